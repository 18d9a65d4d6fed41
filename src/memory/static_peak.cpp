#include "memory/static_peak.hpp"

#include "memory/footprint.hpp"
#include "execution/schedule.hpp"

#include <algorithm>

namespace simgpt {
namespace {

// The most bytes of kept activations alive at once on stage `stage` when its passes run in the
// schedule's order, each micro-batch allocated as its forward starts and freed as its backward
// ends; and how many micro-batches hold them. A framework that does not checkpoint the last
// micro-batch keeps all its activations, as the replayed step counts them.
std::pair<double, int> scheduled_activations(int stage, const ExecutionPlan& plan, const StageFootprint& f,
                                             const Profile& profile) {
  const bool last_kept_whole = !profile.recompute_last_micro_batch && plan.recompute == Recompute::full;
  double live = 0, peak = 0;
  int in_flight = 0, peak_in_flight = 0;
  for (const PipelineStep& step : stage_schedule(plan.schedule, stage, plan.pp, plan.micro_batches, plan.chunks, plan.flushes,
                                                     plan.interleaved_all_warmup)) {
    const auto chunk = static_cast<size_t>(step.chunk);
    const double bytes = last_kept_whole && step.micro_batch == plan.micro_batches - 1 ? f.full[chunk] : f.kept[chunk];
    const bool forward = step.pass == PipelineStep::Pass::forward;
    live += forward ? bytes : -bytes;
    in_flight += forward ? 1 : -1;
    if (live > peak) {
      peak = live;
      peak_in_flight = in_flight;
    }
  }
  return {peak, peak_in_flight};
}

} // namespace

std::vector<MemoryReport> static_stage_peaks(const ExecutionPlan& plan, const Workload& w, const Profile& profile,
                                             const GpuSpec& gpu) {
  std::vector<MemoryReport> stages;
  for (int s = 0; s < plan.pp; ++s) {
    const StageFootprint f = stage_footprint(s, plan, w, profile);
    const ResidentState state = resident_state(f, plan, w, profile, gpu);
    MemoryReport mem;
    mem.weights = state.weights;
    mem.gradients = state.gradients;
    mem.optimizer_state = state.optimizer_state;
    std::tie(mem.activations, mem.in_flight) = scheduled_activations(s, plan, f, profile);
    mem.transient = f.transient;
    settle_peak(mem, state.gradients_at_activation_peak, profile, gpu, w.parallelism);
    stages.push_back(mem);
  }
  return stages;
}

StaticMemory static_peak(const ExecutionPlan& plan, const Workload& w, const Profile& profile, const GpuSpec& gpu) {
  StaticMemory out;
  const std::vector<MemoryReport> stages = static_stage_peaks(plan, w, profile, gpu);
  for (size_t s = 0; s < stages.size(); ++s)
    if (s == 0 || stages[s].peak > out.stage.peak) {
      out.stage = stages[s];
      out.stage_index = static_cast<int>(s);
    }
  return out;
}

} // namespace simgpt
