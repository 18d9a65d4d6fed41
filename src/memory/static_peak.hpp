// Each GPU's memory peak without simulating: a lower bound of the peak the replayed step
// reports, from the plan and the schedule's order alone. What a planner uses to drop plans that
// cannot fit before it spends a simulation on them.
#pragma once

#include "execution/plan.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/memory/memory.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/workload/workload.hpp"

#include <vector>

namespace simgpt {

struct StaticMemory {
  MemoryReport stage; // the stage with the highest peak (its breakdown, peak and usable bytes)
  int stage_index = 0;
  // The replayed step sums the same bytes in another order: a bound within rounding of the
  // usable memory is not proof that the plan overflows it.
  bool fits() const { return stage.needed() <= stage.usable * (1 + 1e-9); }
};

// The largest over stages of each stage's static peak: the replayed step's accounting
// (memory/footprint) with the activations of the micro-batches that the stage's schedule keeps in
// flight at once, each holding what a checkpointed micro-batch keeps. Why it is a lower bound:
// a GPU runs its passes one after another in the schedule's order, so when a forward starts,
// every backward before it in that order has ended and freed its micro-batch; the replayed
// step counts those same micro-batches, and more only where one keeps more than that (the
// last micro-batch of a framework that does not checkpoint it). Everything else is the same sum.
StaticMemory static_peak(const ExecutionPlan& plan, const Workload& w, const Profile& profile, const GpuSpec& gpu);

// Each stage's static peak, stage 0 first: what the closed-form estimate reports as each stage's
// memory.
std::vector<MemoryReport> static_stage_peaks(const ExecutionPlan& plan, const Workload& w, const Profile& profile,
                                             const GpuSpec& gpu);

} // namespace simgpt
