// A lower bound of a plan's step time without simulating it: the compute its GPUs cannot avoid,
// each kernel at the time the cost model gives it (never less than its FLOPs at the GPU's best
// GEMM efficiency). Communication, contention and waiting are left out, so the simulated step
// can only be longer; a planner that has simulated a faster plan needs not simulate this one.
#pragma once

#include "execution/plan.hpp"

namespace simgpt {

struct Profile;

// The larger of:
//  - the busiest stage's compute: one GPU runs all its passes and its optimizer step one after
//    another (the framework's host time per pass included);
//  - the pipeline's fill and drain: the last stage cannot start before the first micro-batch's
//    forward has crossed every stage before it, and after its last backward, that backward
//    still crosses every stage before it, then stage 0 runs its optimizer step.
// The profile gives the framework's host time per pass and whether it reruns the last micro-batch.
double step_time_lower_bound(const ExecutionPlan& plan, const Profile& profile);

} // namespace simgpt
