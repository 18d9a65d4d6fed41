// Each GPU's memory over the replayed step. Reads the replayed timeline (when each micro-batch's
// activations are allocated and freed); internal. The report's verdict on it is the report's.
#pragma once

#include "execution/plan.hpp"
#include "execution/task_graph.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/memory/memory.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/workload/workload.hpp"

#include <vector>

namespace simgpt {

// A pipeline stage and the GPU whose memory stands for it (its first).
struct StageGpu {
  int stage = 0;
  int gpu = 0;
};

// Memory of each stage's GPU at its peak in the replayed step, in the order given: resident
// state, plus the activations of the micro-batches between their forward's start and their
// backward's end, plus the largest transient working set; the optimizer step may allocate a copy
// of the state instead.
std::vector<MemoryReport> peak_memory(const std::vector<StageGpu>& stages, const TaskGraph& g, const Timeline& t,
                                      const ExecutionPlan& plan, const Workload& w, const Profile& profile,
                                      const GpuSpec& gpu);

// One GPU's allocated memory over the replayed step, a point where it changes: the value from
// `time_s` until the next point.
struct MemoryPoint {
  double time_s = 0;
  double bytes = 0;
};
struct MemorySeries {
  int gpu = 0;
  int stage = 0;
  std::vector<MemoryPoint> points; // from time 0, in time order
};

// Each GPU's memory over the step (indexed by GPU), as peak_memory models its stage's first GPU:
// resident state (weights, optimizer state and the gradients allocated when the backward
// starts) plus the activations of the micro-batches alive at each moment, on the timeline of
// the compute tasks that run its kernels (`compute_stream`, per GPU: StepGraph::compute_stream).
// The transient working set, the optimizer's update copy and the framework's context and
// allocator overhead count in the reported peak but have no place in time: not in the series.
std::vector<MemorySeries> memory_over_time(const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                                           const Workload& w, const Profile& profile, const GpuSpec& gpu,
                                           const std::vector<int>& compute_stream);

} // namespace simgpt
