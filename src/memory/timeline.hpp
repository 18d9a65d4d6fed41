// Each GPU's memory over the replayed step and the out-of-memory verdict. Reads the replayed
// timeline (when each micro-batch's activations are allocated and freed); internal.
#pragma once

#include "simgpt/execution/plan.hpp"
#include "execution/task_graph.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/report/report.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/workload/workload.hpp"

#include <vector>

namespace simgpt {

// Memory of each stage's first GPU over the replayed step: resident state, plus the activations
// of the micro-batches between their forward's start and their backward's end, plus the largest
// transient working set; the optimizer step may allocate a copy of the state instead.
void add_memory(std::vector<StageReport>& stages, const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                const Workload& w, const Profile& profile, const GpuSpec& gpu);

// The step's peak over GPUs and which stages exceed what their framework may use.
void judge_memory(Report& r);

} // namespace simgpt
