#include "estimate/pass_time.hpp"

#include "execution/step_graph/parallel_groups.hpp"
#include "execution/step_graph/zero_gathers.hpp"
#include "execution/task_graph.hpp"
#include "simgpt/framework/profile.hpp"

#include <algorithm>

namespace simgpt {

std::vector<std::vector<int>> replica_groups(const ExecutionPlan& plan, int size) {
  std::vector<std::vector<int>> groups;
  if (size < 2)
    return groups;
  for (int s = 0; s < plan.pp; ++s)
    for (int first = 0; first + size <= plan.dp; first += size)
      for (int t = 0; t < plan.tp; ++t) {
        std::vector<int> members;
        for (int d = first; d < first + size; ++d)
          members.push_back(plan.gpu(s, d, t));
        groups.push_back(std::move(members));
      }
  return groups;
}

std::vector<std::vector<int>> expert_groups(const ExecutionPlan& plan) {
  std::vector<std::vector<int>> groups;
  if (plan.expert_group_size() < 2)
    return groups;
  for (int s = 0; s < plan.pp; ++s)
    for (int first = 0; first + plan.ep <= plan.dp; first += plan.ep)
      for (int t = 0; t < step_graph::expert_group_ranks(plan); ++t)
        groups.push_back(step_graph::expert_group(plan, s, first, t));
  return groups;
}

namespace {

std::vector<std::vector<int>> tp_groups(const ExecutionPlan& plan) {
  std::vector<std::vector<int>> groups;
  if (plan.tp > 1)
    for (int s = 0; s < plan.pp; ++s)
      for (int d = 0; d < plan.dp; ++d)
        groups.push_back(step_graph::tp_group(plan, s, d));
  return groups;
}

// Every stage gathers as it computes: in a pipeline's steady state all of them at once.
std::vector<std::vector<int>> zero3_gather_groups(const ExecutionPlan& plan) {
  std::vector<std::vector<int>> groups;
  if (step_graph::gathers_weights(plan))
    for (int s = 0; s < plan.pp; ++s)
      for (int t = 0; t < plan.tp; ++t)
        groups.push_back(step_graph::dp_group(plan, s, t));
  return groups;
}

std::vector<std::vector<int>> expert_gather_groups(const ExecutionPlan& plan) {
  std::vector<std::vector<int>> groups;
  if (step_graph::gathers_weights(plan) && plan.ep > 1 && plan.dp > plan.ep)
    for (int s = 0; s < plan.pp; ++s)
      for (int t = 0; t < plan.tp; ++t)
        for (std::vector<int>& members : step_graph::expert_dp_groups(plan, s, t))
          groups.push_back(std::move(members));
  return groups;
}

} // namespace

PassTimes::PassTimes(const ExecutionPlan& plan, const Profile& profile, CollectiveCosts& costs)
    : plan_(plan), profile_(profile), costs_(costs), tp_family_(tp_groups(plan)),
      cp_family_(replica_groups(plan, plan.cp)), ep_family_(expert_groups(plan)),
      dp_family_(zero3_gather_groups(plan)), edp_family_(expert_gather_groups(plan)) {}

// ZeRO-3's gathers run on the data-parallel stream, one after another: the gathers of the next
// zero3_prefetch_layers units are issued as a unit's compute is about to start (the first ones
// at the pass's start), and a unit computes once its own gather has ended. Without ZeRO-3, or
// where the weights stay gathered from the forward (`gathers` false), the units run back to back.
std::vector<double> PassTimes::unit_ends(int s, const std::vector<Unit>& units, bool gathers) {
  std::vector<double> ends;
  const bool gathered = gathers && step_graph::gathers_weights(plan_);
  const auto ahead = static_cast<size_t>(std::max(0, plan_.zero3_prefetch_layers));
  std::vector<size_t> with_weights; // units that gather, in order of use
  for (size_t i = 0; i < units.size(); ++i)
    if (gathered && units[i].weight_bytes > 0)
      with_weights.push_back(i);
  std::vector<double> gather_end(units.size(), 0);
  double compute = 0, stream = 0; // when the compute stream and the data-parallel stream are free
  double copies = 0;               // when the copy stream is free (activation offloading)
  std::vector<double> copied;      // each copy's end, in issue order
  size_t issued = 0, used = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    if (units[i].copy_before_s > 0)
      copied.push_back(copies = std::max(copies, compute) + units[i].copy_before_s);
    double start = compute;
    if (units[i].waits_for >= 0 && static_cast<size_t>(units[i].waits_for) < copied.size())
      start = std::max(start, copied[static_cast<size_t>(units[i].waits_for)]);
    if (gathered && units[i].weight_bytes > 0) {
      while (issued < with_weights.size() && issued <= used + ahead) {
        const Unit& u = units[with_weights[issued]];
        // The dense weights over the data-parallel group, then the routed experts' over the
        // expert-data-parallel groups: ZeroGathers::gather.
        const step_graph::ShardGroups groups = step_graph::shard_groups(plan_, s, 0, u.weight_bytes, u.expert_weight_bytes);
        stream = std::max(stream, compute) + costs_.seconds(groups.dense, CollectiveKind::allgather,
                                                            CollectiveAlgorithm::ring, groups.dense_bytes, dp_family_);
        if (!groups.experts.empty())
          stream += costs_.seconds(groups.experts.front(), CollectiveKind::allgather, CollectiveAlgorithm::ring,
                                   groups.expert_bytes, edp_family_);
        gather_end[with_weights[issued]] = stream;
        ++issued;
      }
      ++used;
      start = std::max(start, gather_end[i]);
    }
    compute = start + units[i].seconds;
    if (units[i].copy_after_s > 0)
      copied.push_back(copies = std::max(copies, compute) + units[i].copy_after_s);
    ends.push_back(compute);
  }
  return ends;
}


double PassTimes::forward(int v) {
  const StageCost& c = plan_.stages[static_cast<size_t>(v)];
  const int s = v % plan_.pp;
  std::vector<Unit> units;
  if (v == 0)
    units.push_back({block(s, c.embedding_forward, 0), c.embedding_bytes});
  // Activation offloading (step_graph.cpp's forward_kernels): layer i < N copied out after its
  // forward, in that order, so copy i is layer i's.
  for (int l = 0; l < c.layers; ++l) {
    const LayerCost& layer = plan_.layer_at(c.first_layer + l);
    Unit unit{attention(s, layer, true) + mlp(s, layer, true), layer.param_bytes, layer.expert_param_bytes};
    if (l < plan_.offload_layers)
      unit.copy_after_s = plan_.offload_s[static_cast<size_t>(l)];
    unit.waits_for = plan_.offload_awaited_before_forward(l);
    units.push_back(unit);
  }
  if (v == plan_.pp * plan_.chunks - 1)
    units.push_back({c.head_forward, c.head_bytes});
  // Weights kept gathered (ZeRO 1-2 under overlap_param_gather, FSDP without resharding) are
  // gathered by a chunk's first forward only, the next units' ahead of their use: the closed form
  // prices every pass as one that finds them gathered, as the backward does.
  const std::vector<double> ends = unit_ends(s, units, !step_graph::keeps_gathered(plan_));
  return profile_.microbatch_overhead_s + (ends.empty() ? 0 : ends.back());
}

double PassTimes::backward(int v, bool rerun, std::vector<GradientReady>* gradients) {
  const StageCost& c = plan_.stages[static_cast<size_t>(v)];
  const int s = v % plan_.pp;
  // The units in the backward's order, each with the gradients it makes final.
  std::vector<Unit> units;
  std::vector<GradientReady> made;
  if (v == plan_.pp * plan_.chunks - 1) {
    units.push_back({c.head_backward, c.head_bytes});
    made.push_back({0, c.head_bytes * plan_.grad_factor, 0, &c.head_grad_tensors, c.head_bytes});
  }
  // Activation offloading (step_graph.cpp's backward_kernels): layer i copied back as layer
  // L - 1 - N + i's backward is reached, so issued for i = N - 1 down to 0; layer i waits for it.
  const int offloaded = plan_.offload_layers;
  for (int l = c.layers - 1; l >= 0; --l) {
    const LayerCost& layer = plan_.layer_at(c.first_layer + l);
    double seconds = rerun ? attention(s, layer, true) + mlp(s, layer, true) : 0;
    if (!rerun && plan_.moe_rerun && layer.moe) // Megatron-core's recompute module moe
      seconds += mlp(s, layer, true);
    seconds += mlp(s, layer, false) + layer.recompute_core + attention(s, layer, false);
    Unit unit{seconds, layer.param_bytes, layer.expert_param_bytes};
    if (const int i = plan_.offload_copied_back_at_backward(l); i >= 0)
      unit.copy_before_s = plan_.offload_s[static_cast<size_t>(i)];
    if (l < offloaded)
      unit.waits_for = offloaded - 1 - l;
    units.push_back(unit);
    made.push_back({0, layer.grad_bytes, layer.expert_grad_bytes, &layer.grad_tensors, layer.param_bytes,
                    layer.expert_param_bytes});
  }
  if (v == 0) {
    units.push_back({c.embedding_backward, c.embedding_bytes});
    made.push_back({0, c.embedding_bytes * plan_.grad_factor, 0, &c.embedding_grad_tensors, c.embedding_bytes});
  }
  const std::vector<double> ends = unit_ends(s, units, !step_graph::keeps_gathered(plan_));
  const double overhead = profile_.microbatch_overhead_s;
  if (gradients != nullptr)
    for (size_t i = 0; i < made.size(); ++i)
      if (made[i].bytes > 0) {
        GradientReady g = made[i];
        g.at = overhead + ends[i];
        gradients->push_back(g);
      }
  return overhead + (ends.empty() ? 0 : ends.back());
}

double PassTimes::tp_collective(int s, CollectiveKind kind, double bytes) {
  return costs_.seconds(step_graph::tp_group(plan_, s, 0), kind, CollectiveAlgorithm::ring, bytes, tp_family_);
}

// Megatron's f/g operators around a tensor-parallel block (the step graph's `block`).
double PassTimes::block(int s, double seconds, double gathered_bytes, const double* overlap_s) {
  if (plan_.tp < 2)
    return seconds;
  // tp_comm_overlap: each collective holds the stream for one of its tp chunks and what the GEMM
  // beside it does not cover (FoldedCollective::overlap_s).
  const auto exposed = [&](double whole, int i) {
    return overlap_s ? overlapped_hold_s(whole, overlap_s[i], whole / plan_.tp) : whole;
  };
  double t = seconds;
  if (plan_.sequence_parallel && gathered_bytes > 0)
    t += exposed(tp_collective(s, CollectiveKind::allgather, gathered_bytes), 0);
  t += exposed(tp_collective(s, plan_.sequence_parallel ? CollectiveKind::reduce_scatter : CollectiveKind::allreduce,
                             plan_.activation_bytes),
               1);
  return t;
}

double PassTimes::exchange(int s, int size, GroupFamily& family, CollectiveKind kind,
                           double bytes) {
  if (size < 2)
    return 0;
  std::vector<int> members;
  for (int d = 0; d < size; ++d)
    members.push_back(plan_.gpu(s, d, 0));
  return costs_.seconds(members, kind, CollectiveAlgorithm::ring, bytes, family);
}

// Each of the cp steps attends to one block while the next block is passed on; the last passes none.
double PassTimes::ring_attention(int s, double core_seconds, double block_bytes) {
  const double shift = exchange(s, plan_.cp, cp_family_, CollectiveKind::ring_shift, block_bytes);
  const double step = core_seconds / plan_.cp;
  return (plan_.cp - 1) * std::max(step, shift) + step;
}

double PassTimes::attention(int s, const LayerCost& layer, bool forward) {
  if (!layer.mixer) // a hybrid model's MLP layer
    return 0;
  const double gathered = layer.attention_gather_bytes > 0 ? layer.attention_gather_bytes : plan_.activation_bytes;
  if (plan_.cp < 2)
    return block(s, forward ? layer.attention_forward : layer.attention_backward, gathered,
                 layer.tp_overlap_s[0][forward ? 0 : 1]);
  const double* parts = forward ? layer.attention_parts_forward : layer.attention_parts_backward;
  double core = 0;
  if (plan_.cp_comm_type == CpCommType::p2p) {
    core = ring_attention(s, parts[1], forward ? layer.context_kv_bytes : layer.context_kv_backward_bytes);
  } else {
    core = exchange(s, plan_.cp, cp_family_, CollectiveKind::all_to_all,
                    forward ? layer.context_in_bytes : layer.context_out_bytes) +
           parts[1] +
           exchange(s, plan_.cp, cp_family_, CollectiveKind::all_to_all,
                    forward ? layer.context_out_bytes : layer.context_in_bytes);
  }
  return block(s, parts[0] + parts[2], gathered, layer.tp_overlap_s[0][forward ? 0 : 1]) + core;
}

double PassTimes::mlp(int s, const LayerCost& layer, bool forward) {
  if (!layer.mlp) // a hybrid model's Mamba or attention layer
    return 0;
  if (!layer.moe)
    return block(s, forward ? layer.mlp_forward : layer.mlp_backward, plan_.activation_bytes,
                 layer.tp_overlap_s[1][forward ? 0 : 1]);
  const double* parts = forward ? layer.moe_forward : layer.moe_backward;
  const double tokens =
      plan_.expert_group_size() < 2
          ? 0
          : costs_.seconds(step_graph::expert_group(plan_, s, 0, 0), CollectiveKind::all_to_all,
                           CollectiveAlgorithm::ring, layer.all_to_all_bytes, ep_family_,
                           plan_.dispatch_floor_s(layer.all_to_all_bytes));
  // moe_a2a_overlap: each all-to-all beside its partner pass's computation (LayerCost::
  // a2a_overlap_s; zeros without it), every pass taken as paired (the replay exposes the warm-up's
  // and cool-down's lone passes).
  const double* beside = layer.a2a_overlap_s[forward ? 0 : 1];
  const double floor = tokens * plan_.a2a_sm_share;
  const double exposed = overlapped_hold_s(tokens, beside[0], floor) + overlapped_hold_s(tokens, beside[1], floor);
  // Experts whole beside tp > 1 (expert_group_tp) take no tensor-parallel gather and reduce-scatter.
  const double experts = plan_.expert_group_tp > 1 ? parts[1] : block(s, parts[1], plan_.activation_bytes);
  return parts[0] + exposed + experts + parts[2];
}

} // namespace simgpt
