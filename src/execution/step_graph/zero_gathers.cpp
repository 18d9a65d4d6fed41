#include "execution/step_graph/zero_gathers.hpp"

#include "execution/step_graph/parallel_groups.hpp"

#include <algorithm>
#include <utility>

namespace simgpt::step_graph {

std::vector<ZeroGathers::Unit> ZeroGathers::units(int v, bool forward) const {
  const StageCost& c = plan_.stages[static_cast<size_t>(v)];
  const int V = plan_.pp * plan_.chunks;
  std::vector<Unit> units;
  if (v == 0)
    units.push_back({c.embedding_bytes});
  for (int l = 0; l < c.layers; ++l) {
    const LayerCost& layer = plan_.layer_at(c.first_layer + l);
    units.push_back({layer.param_bytes, layer.expert_param_bytes});
  }
  if (v == V - 1)
    units.push_back({c.head_bytes});
  // Units without weights gather nothing (the use_weights calls skip them alike).
  units.erase(std::remove_if(units.begin(), units.end(), [](const Unit& u) { return u.bytes <= 0; }), units.end());
  if (!forward)
    std::reverse(units.begin(), units.end());
  return units;
}

void ZeroGathers::begin_stage(int s) {
  forwards_ = 0;
  if (!plan_.align_param_gather || !gathers_weights(plan_))
    return;
  issued_.assign(static_cast<size_t>(plan_.pp * plan_.chunks), {});
  for (int chunk = 0; chunk < std::min(2, plan_.chunks); ++chunk)
    issue_chunk(s, chunk * plan_.pp + s);
}

void ZeroGathers::issue_chunk(int s, int v) {
  if (static_cast<size_t>(v) < gathered_.size() && gathered_[static_cast<size_t>(v)])
    return; // its first forward has run already and gathered them itself
  for (const Unit& unit : units(v, true))
    issued_[static_cast<size_t>(v)].push_back(gather(s, unit));
}

void ZeroGathers::begin_pass(int s, int v, bool forward) {
  issued_in_pass_ = false;
  if (!gathers_weights(plan_))
    return;
  const int V = plan_.pp * plan_.chunks;
  if (forward && plan_.align_param_gather) {
    // Megatron-Core's is_first_microbatch_for_model_chunk with pp micro-batches a chunk's group.
    const int aligned = forwards_++ + s;
    const int chunk = aligned / plan_.pp + 1;
    if (aligned % plan_.pp == 0 && chunk >= 2 && chunk < plan_.chunks && aligned < plan_.micro_batches * plan_.chunks) {
      issue_chunk(s, chunk * plan_.pp + s);
      issued_in_pass_ = true;
    }
  }
  pass_ = {s, units(v, forward), {}, 0, false};
  if (keeps_gathered(plan_)) {
    // FSDP2 with reshard_after_forward=False keeps what a forward gathered for its backward, and
    // torch.distributed.pipelining runs every micro-batch's backward but the last without
    // resharding (stage.py, backward_maybe_with_nosync: set_reshard_after_backward(False)): the
    // virtual stage's first forward gathers its weights for the whole step.
    gathered_.resize(static_cast<size_t>(V), false);
    pass_.held = gathered_[static_cast<size_t>(v)];
    gathered_[static_cast<size_t>(v)] = true;
  }
  if (!pass_.held && !issued_.empty() && !issued_[static_cast<size_t>(v)].empty())
    pass_.done = std::move(issued_[static_cast<size_t>(v)]); // issued ahead: the pass only waits
}

void ZeroGathers::use_weights(double bytes) {
  if (!gathers_weights(plan_) || bytes <= 0 || pass_.held)
    return;
  GatherPass& p = pass_;
  const size_t j = p.used++;
  const size_t ahead = static_cast<size_t>(std::max(0, plan_.zero3_prefetch_layers));
  while (p.done.size() < std::min(p.bytes.size(), j + 1 + ahead))
    issue_gather();
  // The wait must not attach to kernels already pending on the stream: close them first.
  for (int t = 0; t < plan_.tp; ++t) {
    const Exits& exits = p.done[j][static_cast<size_t>(t)];
    const std::vector<int> members = dp_group(plan_, p.stage, t);
    for (size_t d = 0; d < members.size(); ++d) {
      const int gpu = members[d];
      streams_.flush(gpu);
      if (exits.dense)
        streams_.wait_for(gpu, *exits.dense);
      if (!exits.experts.empty())
        streams_.wait_for(gpu, exits.experts[d]);
    }
  }
}

void ZeroGathers::issue_gather() {
  GatherPass& p = pass_;
  p.done.push_back(gather(p.stage, p.bytes[p.done.size()]));
}

std::vector<ZeroGathers::Exits> ZeroGathers::gather(int s, const Unit& unit) {
  std::vector<Exits> exits;
  for (int t = 0; t < plan_.tp; ++t) {
    if (stand_ins_.stands_in(t)) {
      exits.push_back(exits.front());
      continue;
    }
    const auto issue = [&](const std::vector<int>& members, double bytes) {
      CollectiveTasks c = collectives_.add(CommDimension::dp, members, CollectiveKind::allgather, bytes,
                                           CollectiveAlgorithm::ring, stand_ins_.rank_weight());
      for (int gpu : members) {
        boost::add_edge(streams_.flush(gpu), c.entry, graph_);
        dp_streams_.queue(gpu, c);
      }
      return c.exit;
    };
    // The dense weights over the data-parallel group, the routed experts' over the
    // expert-data-parallel groups (shard_groups), replica d waiting for group d % ep's.
    const ShardGroups groups = shard_groups(plan_, s, t, unit.bytes, unit.expert_bytes);
    Exits e;
    if (groups.dense_bytes > 0)
      e.dense = issue(groups.dense, groups.dense_bytes);
    std::vector<TaskId> expert_exits;
    for (const std::vector<int>& members : groups.experts)
      expert_exits.push_back(issue(members, groups.expert_bytes));
    if (!expert_exits.empty())
      for (int d = 0; d < plan_.dp; ++d)
        e.experts.push_back(expert_exits[static_cast<size_t>(d % plan_.ep)]);
    exits.push_back(std::move(e));
  }
  return exits;
}

} // namespace simgpt::step_graph
