// What the workload's conditions did to the replayed step (Report::Conditions): where the slowed
// GPUs and conditioned links meet the critical path.
#pragma once

#include "execution/step_graph.hpp"
#include "simgpt/report/report.hpp"
#include "simgpt/workload/workload.hpp"
#include "system/cluster.hpp"

#include <vector>

namespace simgpt {

// `slowdown`: per GPU of the job (empty: none slowed); `first_gpu`: the job's first GPU on the
// platform; `timeline` empty (no replay, --fidelity estimate): the conditions alone. A compute task
// on the path is its stream's, attributed to the slowest GPU whose kernels the stream runs.
Report::Conditions conditions_report(const Workload& w, const std::vector<double>& slowdown, int first_gpu,
                                     const StepGraph* step, const Timeline* timeline, const Cluster& cluster);

} // namespace simgpt
