#include "execution/step_graph.hpp"

#include "execution/schedule.hpp"
#include "execution/step_graph/compute_streams.hpp"
#include "execution/step_graph/data_parallel_streams.hpp"
#include "execution/step_graph/group_collectives.hpp"
#include "execution/step_graph/parallel_groups.hpp"
#include "execution/step_graph/stand_ins.hpp"
#include "execution/step_graph/zero_gathers.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace simgpt {
namespace {

using namespace step_graph;

class Builder {
public:
  Builder(const ExecutionPlan& plan, const Topology& topology, const StepGraphOptions& options)
      : plan_(plan), options_(options), collectives_(plan, topology, out_, options_.max_tasks),
        stand_ins_(find_stand_ins(plan, topology, options_, collectives_, out_.isolated)),
        streams_(out_.graph, options_, stand_ins_, plan.gpus()), dp_streams_(out_.graph, plan.gpus()),
        gathers_(plan, stand_ins_, streams_, dp_streams_, collectives_, out_.graph),
        grad_points_(static_cast<size_t>(plan.gpus())) {
    out_.replicas_simulated = stand_ins_.replicas;
    out_.tensor_ranks_simulated = stand_ins_.first_rank_stands_in ? 1 : plan_.tp;
  }

  StepGraph build() {
    for (int s = 0; s < plan_.pp; ++s) {
      build_stage(s);
      synchronise_and_update(s);
    }
    connect_transfers();
    order_after_sends();
    return std::move(out_);
  }

private:
  // One pass (forward or backward) of one micro-batch on virtual stage `v` of stage `s`, run by
  // the tensor-parallel groups of all the stage's replicas.
  struct Pass {
    int s = 0, v = 0, micro_batch = 0, chunk = 0;
    bool forward = true;
    std::vector<std::vector<int>> groups;
    Slot slot() const { return {forward ? Phase::forward : Phase::backward, s, micro_batch, chunk}; }
  };
  // Identifies one pass of one micro-batch on one GPU: (replica, virtual stage, micro-batch, tp rank, forward?).
  using StepKey = std::tuple<int, int, int, int, bool>;

  TaskGraph& g() { return out_.graph; }

  int owner(int gpu) const { return stand_ins_.owner(gpu); }
  int replica_weight() const { return stand_ins_.replica_weight(); }
  bool stands_in(int t) const { return stand_ins_.stands_in(t); }
  int rank_weight() const { return stand_ins_.rank_weight(); }

  // A collective on the compute streams of `gpus`: it starts when all have reached it, and
  // their next kernels wait for it.
  void blocking_collective(const std::vector<int>& gpus, CollectiveKind kind, double bytes) {
    if (auto isolated = stand_ins_.isolated_index.find(gpus); isolated != stand_ins_.isolated_index.end()) {
      // One task on the group's one stream: what all its GPUs wait for.
      streams_.flush(gpus.front());
      Task t;
      t.kind = Task::Kind::isolated_collective;
      t.phase = Phase::collective;
      t.collective = kind;
      t.gpu = gpus.front();
      t.peer = isolated->second;
      t.bytes = bytes;
      t.seconds = (ring_steps(kind, static_cast<int>(gpus.size())) - 1) * collectives_.rings(gpus).step_latency;
      streams_.append(gpus.front(), boost::add_vertex(t, g()));
      collectives_.count(gpus, kind, bytes, replica_weight());
      return;
    }
    for (int gpu : gpus)
      streams_.flush(gpu);
    CollectiveTasks c = collectives_.add(gpus, kind, bytes, CollectiveAlgorithm::ring, replica_weight());
    for (int gpu : gpus) {
      boost::add_edge(*streams_.tail(gpu), c.entry, g());
      streams_.tail(gpu) = c.exit;
    }
  }

  // One tensor-parallel block: Megatron's f/g operators. Without sequence parallelism the block's
  // output is all-reduced; with it, the input is all-gathered and the output reduce-scattered.
  // The vocabulary-parallel embedding has no input to gather (`gathers_input` false).
  void block(const std::vector<int>& group, double seconds, const Slot& slot, bool gathers_input = true) {
    const bool tp = group.size() > 1;
    if (tp && plan_.sequence_parallel && gathers_input)
      blocking_collective(group, CollectiveKind::allgather, plan_.activation_bytes);
    for (int gpu : group)
      streams_.run(gpu, seconds, slot);
    if (tp)
      blocking_collective(group, plan_.sequence_parallel ? CollectiveKind::reduce_scatter : CollectiveKind::allreduce,
                          plan_.activation_bytes);
  }

  // ZeRO-3 reduce-scatters a unit's gradients as soon as its backward is done (FSDP's
  // post-backward hook, DeepSpeed's reduce_and_partition_stream), on the stream of the gathers.
  void reduce_scatter_now(int s, double bytes) {
    if (!zero3(plan_) || bytes <= 0)
      return;
    for (int t = 0; t < plan_.tp && !stands_in(t); ++t) {
      const std::vector<int> members = dp_group(plan_, s, t);
      CollectiveTasks c =
          collectives_.add(members, CollectiveKind::reduce_scatter, bytes, dp_collective_algorithm(plan_), rank_weight());
      for (int gpu : members) {
        boost::add_edge(grad_points_[static_cast<size_t>(owner(gpu))].back().first, c.entry, g());
        dp_streams_.queue(gpu, c);
        last_reduce_scatter_[gpu] = c.entry;
      }
    }
  }

  // All replicas of stage s step through the schedule together, so that collectives across
  // replicas (ZeRO-3's gathers) can join their streams.
  void build_stage(int s) {
    Pass pass;
    pass.s = s;
    for (int d = 0; d < stand_ins_.replicas; ++d)
      pass.groups.push_back(tp_group(plan_, s, d));
    for (const PipelineStep& step : stage_schedule(plan_.schedule, s, plan_.pp, plan_.micro_batches, plan_.chunks)) {
      pass.v = step.chunk * plan_.pp + s;
      pass.forward = step.pass == PipelineStep::Pass::forward;
      pass.micro_batch = step.micro_batch;
      pass.chunk = step.chunk;
      begin_pass(pass);
      gathers_.begin_pass(s, pass.v, pass.forward);
      if (pass.forward)
        forward_kernels(pass);
      else
        backward_kernels(pass);
      end_pass(pass);
    }
  }

  void run_all(const Pass& pass, double seconds, const Slot& slot) {
    for (const std::vector<int>& group : pass.groups)
      for (int gpu : group)
        streams_.run(gpu, seconds, slot);
  }

  void block_all(const Pass& pass, double seconds, const Slot& slot, bool gathers_input = true) {
    for (const std::vector<int>& group : pass.groups)
      block(group, seconds, slot, gathers_input);
  }

  // Each GPU of the pass waits for its input from the neighbouring virtual stage, then pays the
  // framework's host time per micro-batch.
  void begin_pass(const Pass& pass) {
    const int V = plan_.pp * plan_.chunks;
    const bool receives = pass.forward ? pass.v > 0 : pass.v < V - 1;
    // In three rounds, so that a stream shared by an isolated group waits for all its GPUs'
    // inputs before the pass's first kernels.
    for (const std::vector<int>& group : pass.groups)
      for (int gpu : group)
        streams_.flush(gpu);
    if (receives)
      for (int d = 0; d < static_cast<int>(pass.groups.size()); ++d)
        for (int t = 0; t < plan_.tp; ++t) {
          // Ranks whose transfers are the first rank's arrive with it.
          if (stands_in(t)) {
            receive_[{d, pass.v, pass.micro_batch, t, pass.forward}] =
                receive_.at({d, pass.v, pass.micro_batch, 0, pass.forward});
            continue;
          }
          TaskId recv = streams_.marker(pass.forward ? Phase::activation : Phase::gradient);
          streams_.waits(pass.groups[static_cast<size_t>(d)][static_cast<size_t>(t)]).push_back(recv);
          receive_[{d, pass.v, pass.micro_batch, t, pass.forward}] = recv;
        }
    run_all(pass, plan_.microbatch_overhead_s, pass.slot());
  }

  void forward_kernels(const Pass& pass) {
    const StageCost& c = plan_.stages[static_cast<size_t>(pass.v)];
    const Slot slot = pass.slot();
    if (pass.v == 0) {
      gathers_.use_weights(c.embedding_bytes);
      block_all(pass, c.embedding_forward, slot, false);
    }
    for (int l = 0; l < c.layers; ++l) {
      gathers_.use_weights(plan_.layer.param_bytes);
      block_all(pass, plan_.layer.attention_forward, streams_.in_layer(slot, l));
      block_all(pass, plan_.layer.mlp_forward, streams_.in_layer(slot, l));
    }
    if (pass.v == plan_.pp * plan_.chunks - 1) {
      gathers_.use_weights(c.head_bytes);
      run_all(pass, c.head_forward, slot);
    }
  }

  // The backward runs the layers last to first (the order ZeRO-3's gathers follow too).
  void backward_kernels(const Pass& pass) {
    const StageCost& c = plan_.stages[static_cast<size_t>(pass.v)];
    const Slot slot = pass.slot();
    const int M = plan_.micro_batches;
    const bool last_backward = pass.micro_batch == M - 1;
    const bool rerun = plan_.recompute == Recompute::full && (plan_.recompute_last_micro_batch || pass.micro_batch < M - 1);
    if (pass.v == plan_.pp * plan_.chunks - 1) {
      gathers_.use_weights(c.head_bytes);
      run_all(pass, c.head_backward, slot);
      if (last_backward)
        gradients_final(pass.groups, pass.s, c.head_bytes);
    }
    for (int l = c.layers - 1; l >= 0; --l) {
      gathers_.use_weights(plan_.layer.param_bytes);
      if (rerun) {
        block_all(pass, plan_.layer.attention_forward, streams_.in_layer(slot, l, true));
        block_all(pass, plan_.layer.mlp_forward, streams_.in_layer(slot, l, true));
      }
      block_all(pass, plan_.layer.mlp_backward, streams_.in_layer(slot, l));
      // Selective recompute's attention core (nothing to run without it: no task split for it).
      if (plan_.layer.recompute_core > 0)
        run_all(pass, plan_.layer.recompute_core, streams_.in_layer(slot, l, true));
      block_all(pass, plan_.layer.attention_backward, streams_.in_layer(slot, l));
      if (last_backward)
        gradients_final(pass.groups, pass.s, plan_.layer.grad_bytes);
    }
    if (pass.v == 0) {
      gathers_.use_weights(c.embedding_bytes);
      run_all(pass, c.embedding_backward, slot);
      if (last_backward)
        gradients_final(pass.groups, pass.s, c.embedding_bytes);
    }
  }

  // The pass's output goes to the neighbouring virtual stage (connect_transfers adds the flows).
  void end_pass(const Pass& pass) {
    const int V = plan_.pp * plan_.chunks;
    for (int d = 0; d < static_cast<int>(pass.groups.size()); ++d)
      for (int t = 0; t < plan_.tp; ++t) {
        const int gpu = pass.groups[static_cast<size_t>(d)][static_cast<size_t>(t)];
        const StepKey key{d, pass.v, pass.micro_batch, t, pass.forward};
        send_[key] = streams_.flush(gpu);
        if (plan_.blocking_p2p && (pass.forward ? pass.v < V - 1 : pass.v > 0) && !stands_in(t)) {
          // The sender's stream waits for its send to complete before going on.
          TaskId sent = streams_.marker(pass.forward ? Phase::activation : Phase::gradient);
          streams_.waits(gpu).push_back(sent);
          sent_[key] = sent;
        }
      }
  }

  // The last micro-batch's gradients of `bytes` per GPU are final on every replica's group:
  // ZeRO-3 reduce-scatters them now, other modes in synchronise_gradients.
  void gradients_final(const std::vector<std::vector<int>>& groups, int s, double bytes) {
    for (const std::vector<int>& group : groups)
      grad_point(group, bytes);
    reduce_scatter_now(s, bytes);
  }

  // Gradients of `bytes` per GPU are final once the stream reaches this point.
  void grad_point(const std::vector<int>& group, double bytes) {
    if (bytes <= 0)
      return;
    for (int gpu : group)
      grad_points_[static_cast<size_t>(gpu)].push_back({streams_.flush(gpu), bytes});
  }

  // Data-parallel gradient synchronisation of stage s, then the optimizer step.
  // All tensor ranks' synchronisations come before any optimizer step: in an isolated group the
  // ranks share one stream, whose optimizer waits for every rank's gradients.
  void synchronise_and_update(int s) {
    std::vector<std::vector<int>> members(static_cast<size_t>(plan_.tp));
    for (int t = 0; t < plan_.tp; ++t) {
      members[static_cast<size_t>(t)] = dp_group(plan_, s, t);
      for (int gpu : members[static_cast<size_t>(t)])
        streams_.flush(gpu);
      if (plan_.dp > 1 && !stands_in(t))
        synchronise_gradients(members[static_cast<size_t>(t)]);
    }
    for (int t = 0; t < plan_.tp; ++t) {
      const std::vector<int>& group = members[static_cast<size_t>(t)];
      double params = 0;
      for (const auto& point : grad_points_[static_cast<size_t>(group[0])])
        params += point.second;
      for (int gpu : group) {
        double seconds = 0;
        for (int c = 0; c < plan_.chunks; ++c)
          seconds += plan_.stages[static_cast<size_t>(c * plan_.pp + s)].optimizer_s;
        if (plan_.sharded_optimizer() && plan_.dp > 1)
          seconds /= plan_.dp;
        streams_.run(gpu, seconds, {Phase::optimizer, s, -1, 0});
        streams_.flush(gpu);
      }
      if (plan_.dp > 1 && plan_.sharded_optimizer() && plan_.zero < 3 && !stands_in(t)) {
        // Each replica updated its shard: gather the new weights.
        CollectiveTasks c =
            collectives_.add(group, CollectiveKind::allgather, params, CollectiveAlgorithm::ring, rank_weight());
        for (int gpu : group)
          boost::add_edge(*streams_.tail(gpu), c.entry, g());
      }
    }
  }

  void synchronise_gradients(const std::vector<int>& members) {
    if (zero3(plan_)) {
      // The reduce-scatters were issued during the backward (reduce_scatter_now); the optimizer
      // waits for the data-parallel stream, whose last collective is the last reduce-scatter.
      for (int gpu : members) {
        if (auto rs = last_reduce_scatter_.find(gpu); rs != last_reduce_scatter_.end())
          after_sends_.emplace_back(gpu, rs->second);
        if (const auto& tail = dp_streams_.tail(gpu))
          streams_.waits(gpu).push_back(*tail);
      }
      return;
    }
    const auto& first = grad_points_[static_cast<size_t>(members[0])];
    const CollectiveKind kind = plan_.sharded_optimizer() ? CollectiveKind::reduce_scatter : CollectiveKind::allreduce;
    const CollectiveAlgorithm algorithm = dp_collective_algorithm(plan_);
    std::optional<TaskId> previous;
    double bucket = 0;
    for (size_t i = 0; i < first.size(); ++i) {
      bucket += first[i].second;
      const bool last = i + 1 == first.size();
      if (!last && (!plan_.dp_overlap || bucket < plan_.dp_bucket_bytes))
        continue;
      CollectiveTasks c = collectives_.add(members, kind, bucket, algorithm, rank_weight());
      for (int gpu : members) {
        // Without overlap the whole stream's backward must be done; with it, this bucket's layers.
        const bool early = plan_.dp_overlap;
        TaskId ready = early ? grad_points_[static_cast<size_t>(owner(gpu))][i].first : *streams_.tail(gpu);
        boost::add_edge(ready, c.entry, g());
        // Communication leaves a GPU in the order it was issued: the pipeline sends issued
        // before the synchronisation go first.
        if (!early || last)
          after_sends_.emplace_back(gpu, c.entry);
      }
      if (previous)
        boost::add_edge(*previous, c.entry, g()); // one NCCL stream for gradient buckets
      previous = c.exit;
      bucket = 0;
    }
    if (previous)
      for (int gpu : members)
        streams_.waits(gpu).push_back(*previous);
  }

  // Point-to-point transfers between neighbouring virtual stages, serialised per direction.
  void connect_transfers() {
    const int V = plan_.pp * plan_.chunks;
    std::map<std::pair<int, int>, TaskId> last_on_link;
    // Issue order on each link follows the sender's schedule: walk senders' steps in order.
    for (int s = 0; s < plan_.pp; ++s)
      for (int d = 0; d < stand_ins_.replicas; ++d)
        for (const PipelineStep& step : stage_schedule(plan_.schedule, s, plan_.pp, plan_.micro_batches, plan_.chunks)) {
          const bool forward = step.pass == PipelineStep::Pass::forward;
          const int v = step.chunk * plan_.pp + s;
          const int to = forward ? v + 1 : v - 1;
          if (to < 0 || to >= V)
            continue;
          std::optional<TaskId> first_rank; // the first tensor rank's transfer
          for (int t = 0; t < plan_.tp; ++t) {
            const StepKey from_key{d, v, step.micro_batch, t, forward};
            const TaskId producer = send_.at(from_key);
            const TaskId consumer = receive_.at({d, to, step.micro_batch, t, forward});
            const int src = plan_.gpu(s, d, t), dst = plan_.gpu(to % plan_.pp, d, t);
            if (src != dst) {
              out_.p2p_transfers += replica_weight();
              out_.p2p_bytes += replica_weight() * plan_.activation_bytes / plan_.tp;
            }
            if (src != dst && first_rank && stand_ins_.first_rank_stands_in) {
              // The first rank's transfer, receive and send markers stand for this rank's.
              last_send_[src] = *first_rank;
              continue;
            }
            TaskId done = producer;
            if (src != dst) {
              Task x;
              x.kind = Task::Kind::transfer;
              x.phase = forward ? Phase::activation : Phase::gradient;
              x.gpu = src;
              x.peer = dst;
              x.stage = s;
              x.micro_batch = step.micro_batch;
              x.chunk = step.chunk;
              // Megatron's scatter-gather: each tensor rank sends its 1/tp slice.
              x.bytes = plan_.activation_bytes / plan_.tp;
              done = boost::add_vertex(x, g());
              boost::add_edge(producer, done, g());
              auto link = std::make_pair(src, dst);
              if (auto prev = last_on_link.find(link); prev != last_on_link.end())
                boost::add_edge(prev->second, done, g());
              last_on_link[link] = done;
              first_rank = done;
            }
            boost::add_edge(done, consumer, g());
            if (src != dst)
              last_send_[src] = done;
            if (auto sent = sent_.find(from_key); sent != sent_.end())
              boost::add_edge(done, sent->second, g());
          }
        }
  }

  // Gradient synchronisations that start after the GPU's last pipeline send.
  void order_after_sends() {
    for (const auto& [gpu, entry] : after_sends_)
      if (auto send = last_send_.find(gpu); send != last_send_.end())
        boost::add_edge(send->second, entry, g());
  }

  const ExecutionPlan& plan_;
  const StepGraphOptions options_;
  StepGraph out_;
  GroupCollectives collectives_;
  const StandIns stand_ins_;
  ComputeStreams streams_;
  DataParallelStreams dp_streams_;
  ZeroGathers gathers_;
  std::vector<std::pair<int, TaskId>> after_sends_;
  std::map<int, TaskId> last_send_;
  std::vector<std::vector<std::pair<TaskId, double>>> grad_points_;
  std::map<StepKey, TaskId> send_, receive_, sent_;
  std::map<int, TaskId> last_reduce_scatter_; // per GPU: the entry of its last reduce-scatter
};

} // namespace

StepGraph build_step_graph(const ExecutionPlan& plan, const Topology& topology, const StepGraphOptions& options) {
  return Builder(plan, topology, options).build();
}

} // namespace simgpt
