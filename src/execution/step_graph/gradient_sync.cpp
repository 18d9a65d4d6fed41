#include "execution/step_graph/gradient_sync.hpp"

#include "execution/step_graph/parallel_groups.hpp"
#include "execution/step_graph/zero_gathers.hpp"
#include "simgpt/framework/profile.hpp"

#include <optional>

namespace simgpt::step_graph {

void GradientSync::gradients_final(const std::vector<std::vector<int>>& groups, int s, const UnitBytes& unit,
                                   const std::vector<double>& tensors) {
  const bool experts_apart = plan_.ep > 1 && unit.expert_grads > 0;
  for (const std::vector<int>& group : groups) {
    if (experts_apart) {
      grad_point(group, unit.grads - unit.expert_grads, unit.weights - unit.expert_weights, points_,
                 tensors.empty() ? nullptr : &tensors);
      grad_point(group, unit.expert_grads, unit.expert_weights, expert_points_);
    } else {
      grad_point(group, unit.grads, unit.weights, points_, tensors.empty() ? nullptr : &tensors);
    }
  }
  reduce_scatter_now(s, unit.grads, unit.expert_grads);
}

void GradientSync::grad_point(const std::vector<int>& group, double bytes, double weight_bytes,
                              std::vector<std::vector<GradientPoint>>& points, const std::vector<double>* tensors) {
  if (bytes <= 0)
    return;
  for (int gpu : group)
    points[static_cast<size_t>(gpu)].push_back({streams_.flush(gpu), bytes, weight_bytes, tensors});
}

void GradientSync::gradients_accumulated(int s, double bytes, double expert_bytes) {
  if (!zero3(plan_) || !profile_.zero3_reduce_every_micro_batch || bytes <= 0)
    return;
  reduce_scatter_now(s, bytes, expert_bytes, true);
}

void GradientSync::reduce_scatter_now(int s, double bytes, double expert_bytes, bool stream_tail) {
  if (!zero3(plan_) || bytes <= 0)
    return;
  for (int t = 0; t < plan_.tp && !stand_ins_.stands_in(t); ++t) {
    // The routed experts' gradients over the expert-data-parallel groups (shard_groups).
    const ShardGroups groups = shard_groups(plan_, s, t, bytes, expert_bytes);
    std::vector<std::pair<const std::vector<int>*, double>> parts{{&groups.dense, groups.dense_bytes}};
    for (const std::vector<int>& members : groups.experts)
      parts.emplace_back(&members, groups.expert_bytes);
    for (const auto& [members, part] : parts) {
      if (part <= 0)
        continue;
      CollectiveTasks c = collectives_.add(CommDimension::dp, *members, CollectiveKind::reduce_scatter, part,
                                           dp_collective_algorithm(plan_), stand_ins_.rank_weight());
      for (int gpu : *members) {
        const int owner = stand_ins_.owner(gpu);
        const bool tail = stream_tail || points_[static_cast<size_t>(owner)].empty();
        boost::add_edge(tail ? streams_.flush(owner) : points_[static_cast<size_t>(owner)].back().ready, c.entry,
                        graph_);
        dp_streams_.queue(gpu, c);
        last_reduce_scatter_[gpu] = c.entry;
      }
    }
  }
}

void GradientSync::synchronise_and_update(int s) {
  std::vector<std::vector<int>> members(static_cast<size_t>(plan_.tp));
  for (int t = 0; t < plan_.tp; ++t) {
    members[static_cast<size_t>(t)] = dp_group(plan_, s, t);
    for (int gpu : members[static_cast<size_t>(t)])
      streams_.flush(gpu);
    if (plan_.dp > 1 && !stand_ins_.stands_in(t))
      synchronise_gradients(members[static_cast<size_t>(t)], points_);
    if (plan_.dp > plan_.ep && plan_.ep > 1)
      for (const std::vector<int>& experts : expert_dp_groups(plan_, s, t))
        synchronise_gradients(experts, expert_points_);
  }
  for (int t = 0; t < plan_.tp; ++t)
    update(s, t, members[static_cast<size_t>(t)]);
}

void GradientSync::synchronise_gradients(const std::vector<int>& members,
                                         const std::vector<std::vector<GradientPoint>>& points) {
  if (zero3(plan_)) {
    await_reduce_scatters(members);
    return;
  }
  const auto& first = points[static_cast<size_t>(stand_ins_.owner(members[0]))];
  const CollectiveKind kind = dp_gradient_collective(plan_);
  const CollectiveAlgorithm algorithm = dp_collective_algorithm(plan_);
  std::optional<TaskId> previous;
  double bucket = 0;
  for (const GradientCall& call : gradient_calls(first, profile_.dp_per_tensor)) {
    const size_t i = call.point;
    bucket += call.bytes;
    const bool last = i + 1 == first.size() && call.last_of_point;
    if (!call.flush && !last && (!profile_.dp_overlap || bucket < profile_.dp_bucket_bytes))
      continue;
    CollectiveTasks c = collectives_.add(CommDimension::dp, members, kind, bucket, algorithm, stand_ins_.rank_weight());
    if (central_ps_broadcasts(plan_)) {
      // The sum reduced to the first replica comes back as a broadcast on the same stream.
      const CollectiveTasks back =
          collectives_.add(CommDimension::dp, members, CollectiveKind::broadcast, bucket, algorithm, stand_ins_.rank_weight());
      boost::add_edge(c.exit, back.entry, graph_);
      c.exit = back.exit;
    }
    for (int gpu : members) {
      // Without overlap the whole stream's backward must be done; with it, this bucket's layers.
      const bool early = profile_.dp_overlap;
      TaskId ready = early ? points[static_cast<size_t>(stand_ins_.owner(gpu))][i].ready : *streams_.tail(gpu);
      boost::add_edge(ready, c.entry, graph_);
      // Communication leaves a GPU in the order it was issued: the pipeline sends issued
      // before the synchronisation go first.
      if (!early || last)
        after_sends_.emplace_back(gpu, c.entry);
    }
    if (previous)
      boost::add_edge(*previous, c.entry, graph_); // one NCCL stream for gradient buckets
    previous = c.exit;
    bucket = 0;
  }
  if (previous)
    for (int gpu : members)
      streams_.wait_for(gpu, *previous);
}

void GradientSync::await_reduce_scatters(const std::vector<int>& members) {
  for (int gpu : members) {
    if (auto rs = last_reduce_scatter_.find(gpu); rs != last_reduce_scatter_.end())
      after_sends_.emplace_back(gpu, rs->second);
    if (const auto& tail = dp_streams_.tail(gpu))
      streams_.wait_for(gpu, *tail);
  }
}

void GradientSync::update(int s, int t, const std::vector<int>& group) {
  // The gather moves the weights as they are held (Megatron-core's distributed optimizer
  // all-gathers its param buffer: 16-bit however wide the gradients it reduce-scattered were, fp8
  // parameters at their byte).
  double params = 0, expert_params = 0;
  for (const GradientPoint& point : points_[static_cast<size_t>(group[0])])
    params += point.weight_bytes;
  for (const GradientPoint& point : expert_points_[static_cast<size_t>(group[0])])
    expert_params += point.weight_bytes;
  const bool sharded = plan_.sharded_optimizer() && plan_.dp > 1;
  const double seconds = optimizer_seconds(plan_, s);
  for (int gpu : group) {
    streams_.run(gpu, seconds, {Phase::optimizer, s, -1, 0});
    streams_.flush(gpu);
  }
  // Under overlap_param_gather the gather waits for the next step's forward (zero_gathers.hpp).
  if (sharded && plan_.zero < 3 && !plan_.overlap_param_gather && !stand_ins_.stands_in(t)) {
    // Each replica updated its shard: gather the new weights, the experts' over their own group.
    CollectiveTasks c =
        collectives_.add(CommDimension::dp, group, CollectiveKind::allgather, params, CollectiveAlgorithm::ring, stand_ins_.rank_weight());
    for (int gpu : group)
      boost::add_edge(*streams_.tail(gpu), c.entry, graph_);
    if (expert_params > 0 && plan_.dp > plan_.ep)
      for (const std::vector<int>& experts : expert_dp_groups(plan_, s, t)) {
        CollectiveTasks e = collectives_.add(CommDimension::dp, experts, CollectiveKind::allgather, expert_params,
                                             CollectiveAlgorithm::ring, stand_ins_.rank_weight());
        for (int gpu : experts)
          boost::add_edge(*streams_.tail(gpu), e.entry, graph_);
      }
  }
}

} // namespace simgpt::step_graph
