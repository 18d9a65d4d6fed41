// The groups of GPUs that communicate together, as the plan places its ranks on GPUs.
#pragma once

#include "execution/collective.hpp"
#include "execution/plan.hpp"

#include <vector>

namespace simgpt::step_graph {

// The tensor-parallel group of `replica` on `stage`, in tensor rank order.
inline std::vector<int> tp_group(const ExecutionPlan& plan, int stage, int replica) {
  std::vector<int> gpus;
  for (int t = 0; t < plan.tp; ++t)
    gpus.push_back(plan.gpu(stage, replica, t));
  return gpus;
}

// Tensor rank t of the `size` consecutive replicas from `first` on `stage`, in replica order: an
// expert- or context-parallel group.
inline std::vector<int> replica_group(const ExecutionPlan& plan, int stage, int first, int size, int t) {
  std::vector<int> gpus;
  for (int d = first; d < first + size; ++d)
    gpus.push_back(plan.gpu(stage, d, t));
  return gpus;
}

// The expert-parallel group of the plan.ep consecutive replicas from `first` on `stage` that holds
// tensor rank t: their tensor rank t, or with experts whole beside tp > 1 (plan.expert_group_tp)
// all their tensor ranks, in rank order (Megatron's expert grid with etp 1: ep consecutive ranks).
inline std::vector<int> expert_group(const ExecutionPlan& plan, int stage, int first, int t) {
  if (plan.expert_group_tp == 1)
    return replica_group(plan, stage, first, plan.ep, t);
  std::vector<int> gpus;
  for (int d = first; d < first + plan.ep; ++d)
    for (int r = 0; r < plan.tp; ++r)
      gpus.push_back(plan.gpu(stage, d, r));
  return gpus;
}

// The tensor ranks whose expert-parallel groups differ: every one, or the first alone where a
// group spans them (expert_group).
inline int expert_group_ranks(const ExecutionPlan& plan) { return plan.expert_group_tp > 1 ? 1 : plan.tp; }

// The data-parallel group of tensor rank t on stage s, in replica order.
inline std::vector<int> dp_group(const ExecutionPlan& plan, int s, int t) {
  std::vector<int> members;
  for (int d = 0; d < plan.dp; ++d)
    members.push_back(plan.gpu(s, d, t));
  return members;
}

// The expert-data-parallel groups of tensor rank t on stage s: the replicas at the same place in
// their expert-parallel group (parallel_state.py's expert rank order, tp-ep-dp-pp: replica d in
// group d % ep), which reduce the routed experts' gradients and gather their sharded state.
inline std::vector<std::vector<int>> expert_dp_groups(const ExecutionPlan& plan, int s, int t) {
  std::vector<std::vector<int>> groups(static_cast<size_t>(plan.ep));
  for (int d = 0; d < plan.dp; ++d)
    groups[static_cast<size_t>(d % plan.ep)].push_back(plan.gpu(s, d, t));
  return groups;
}

// Where a unit's sharded weights or gradients (ZeRO-3's gathers and reduce-scatters, the
// distributed optimizer's gathers under overlap_param_gather) move on tensor rank t of stage s:
// the dense part, `bytes` less the routed experts' `expert_bytes`, over the data-parallel group
// (`dense`); the experts' over each expert-data-parallel group (`experts`, group g the replicas
// d with d % ep = g), none where every replica holds experts of its own (dp = ep). Without expert
// parallelism all of it is dense. Megatron-Core's distributed optimizer and Megatron-FSDP keep an
// expert-parallel buffer sharded over that group (megatron/core/distributed/
// distributed_data_parallel.py).
struct ShardGroups {
  std::vector<int> dense;
  double dense_bytes = 0;
  std::vector<std::vector<int>> experts;
  double expert_bytes = 0;
};
inline ShardGroups shard_groups(const ExecutionPlan& plan, int s, int t, double bytes, double expert_bytes) {
  ShardGroups g;
  const double experts = plan.ep > 1 ? expert_bytes : 0;
  g.dense = dp_group(plan, s, t);
  g.dense_bytes = bytes - experts;
  if (experts > 0 && plan.dp > plan.ep) {
    g.experts = expert_dp_groups(plan, s, t);
    g.expert_bytes = experts;
  }
  return g;
}

// The collective that synchronises a data-parallel group's gradients: a reduce-scatter under a
// sharded optimizer (ZeRO >= 1, or dp_algorithm reduce_scatter), a reduce to the first replica
// under a central parameter server (whose sum a broadcast takes back: central_ps_broadcasts), else an
// all-reduce.
inline CollectiveKind dp_gradient_collective(const ExecutionPlan& plan) {
  if (plan.sharded_optimizer())
    return CollectiveKind::reduce_scatter;
  return plan.dp_algorithm == DpAlgorithm::central_ps ? CollectiveKind::reduce : CollectiveKind::allreduce;
}

// Whether each gradient reduce is followed by a broadcast of its sum (a central parameter server).
inline bool central_ps_broadcasts(const ExecutionPlan& plan) { return plan.dp_algorithm == DpAlgorithm::central_ps; }

// One gradient collective's part of a point where gradients become final: the whole point, or
// with collectives.dp_per_tensor one of its tensors, each its own call (`flush`).
struct GradientCall {
  size_t point = 0;
  double bytes = 0;
  bool last_of_point = true;
  bool flush = false;
};

// The calls of the points' gradients in order. A point is anything with `bytes` and `tensors` (a
// pointer to each tensor's bytes, or null): the step graph's and the estimate's alike.
template <class Point>
std::vector<GradientCall> gradient_calls(const std::vector<Point>& points, bool per_tensor) {
  std::vector<GradientCall> calls;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::vector<double>* tensors = points[i].tensors;
    if (!per_tensor || tensors == nullptr || tensors->empty()) {
      calls.push_back({i, points[i].bytes, true, false});
      continue;
    }
    for (size_t j = 0; j < tensors->size(); ++j)
      calls.push_back({i, (*tensors)[j], j + 1 == tensors->size(), true});
  }
  return calls;
}

// A sharded parameter server exchanges every member's shard with every other member directly;
// the other modes run rings.
inline CollectiveAlgorithm dp_collective_algorithm(const ExecutionPlan& plan) {
  return plan.dp_algorithm == DpAlgorithm::parameter_server ? CollectiveAlgorithm::direct
                                                            : CollectiveAlgorithm::ring;
}

} // namespace simgpt::step_graph
