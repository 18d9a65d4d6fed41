// How long one micro-batch's pass through a virtual stage takes on its GPUs, in closed form: the
// framework's host time, the kernels the plan costs, and the collectives the step graph puts
// between them on the compute stream (Megatron's tensor-parallel f/g operators, the context- and
// expert-parallel exchanges), each priced by CollectiveCosts as all the job's groups run it at once.
#pragma once

#include "estimate/collective_cost.hpp"
#include "execution/plan.hpp"

#include <vector>

namespace simgpt {

// Gradients of `bytes` (`expert_bytes` of them routed experts') final `at` seconds into a backward.
struct GradientReady {
  double at = 0;
  double bytes = 0;
  double expert_bytes = 0;
  const std::vector<double>* tensors = nullptr; // each tensor's bytes (collectives.dp_per_tensor), or null
  // The weights' bytes as the optimizer's all-gather moves them, the routed experts' among them.
  double weight_bytes = 0, expert_weight_bytes = 0;
};

class PassTimes {
  const ExecutionPlan& plan_;
  const Profile& profile_;
  CollectiveCosts& costs_;
  GroupFamily tp_family_, cp_family_, ep_family_;
  GroupFamily dp_family_; // ZeRO-3: every stage's and tensor rank's data-parallel group
  GroupFamily edp_family_; // and their expert-data-parallel groups, which gather the routed experts

  // A unit of a pass (the embedding, a layer, the head): its compute and the weights ZeRO-3
  // gathers before it.
  struct Unit {
    double seconds = 0;
    double weight_bytes = 0;
    double expert_weight_bytes = 0; // the routed experts' among them (ZeroGathers::Unit)
    // Activation offloading (ExecutionPlan::offload_layers): the copy stream's work around the unit.
    // `copy_before_s`: a copy issued as the unit is reached (a layer copied back before the
    // backward N layers ahead of its own); `copy_after_s`: one issued when it ends (a layer's
    // activations copied out after its forward); `waits_for`: the index, in issue order, of the copy
    // the unit starts after (-1: none).
    double copy_before_s = 0, copy_after_s = 0;
    int waits_for = -1;
  };

public:
  PassTimes(const ExecutionPlan& plan, const Profile& profile, CollectiveCosts& costs);

  double forward(int v);
  // With `rerun`, full recompute's forward runs again inside it, layer by layer. `gradients`, when
  // given, receives where each unit's gradients become final, in the order the backward makes them.
  double backward(int v, bool rerun, std::vector<GradientReady>* gradients = nullptr);

private:
  // When each unit of a pass on stage s ends, from the pass's start: one after another, each after
  // its ZeRO-3 gather (execution/step_graph/zero_gathers.hpp); `gathers` false where the pass finds
  // the weights gathered already (kept from an earlier pass).
  std::vector<double> unit_ends(int s, const std::vector<Unit>& units, bool gathers);
  double attention(int s, const LayerCost& layer, bool forward);
  double mlp(int s, const LayerCost& layer, bool forward);
  double block(int s, double seconds, double gathered_bytes, const double* overlap_s = nullptr);
  double tp_collective(int s, CollectiveKind kind, double bytes);
  double exchange(int s, int size, GroupFamily& family, CollectiveKind kind, double bytes);
  double ring_attention(int s, double core_seconds, double block_bytes);
};

// Every group of `size` consecutive data-parallel replicas, per stage and tensor rank: the
// context-parallel (or expert-parallel) groups, as the step graph forms them.
std::vector<std::vector<int>> replica_groups(const ExecutionPlan& plan, int size);
// Every expert-parallel group of the plan (step_graph::expert_group), each stage's.
std::vector<std::vector<int>> expert_groups(const ExecutionPlan& plan);

} // namespace simgpt
