// The step time in closed form, from the same plan, kernels, collectives (NCCL's cost model over
// the platform's links) and schedule as the replay, with no task graph: each stage's passes in
// its schedule's order, each starting once its stage is free and its input has arrived; then each
// stage's data-parallel gradient synchronisation and optimizer step. What `--fidelity estimate`
// reports and the planner ranks candidates by (milliseconds where the replay takes seconds).
#pragma once

#include "estimate/collective_cost.hpp"
#include "execution/plan.hpp"

#include <vector>

namespace simgpt {

struct StageTimes {
  double compute_s = 0; // its passes and optimizer step, collectives on the compute stream included
  double end_s = 0;     // when its last work (the optimizer's gather of new weights) ends
};

struct StepEstimate {
  double step_time_s = 0;
  std::vector<StageTimes> stages;
  // A collective or transfer was priced with flows that share a link moving at once
  // (FlowTime::contended): the replay can be faster. Without, on the validation rows the estimate
  // was never above the replay (README, "Planning").
  bool contended = false;
};

StepEstimate estimate_step(const ExecutionPlan& plan, const Profile& profile, CollectiveCosts& costs);

} // namespace simgpt
