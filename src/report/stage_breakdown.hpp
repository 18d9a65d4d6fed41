// Where each pipeline stage's time went in the replayed step: computing, waiting for
// communication, or idle. Reads the replayed timeline; internal (it takes the task graph).
#pragma once

#include "execution/plan.hpp"
#include "execution/task_graph.hpp"
#include "simgpt/report/report.hpp"

#include <vector>

namespace simgpt {

// Splits the wall time of each stage's first GPU into computing, waiting for communication
// (the part of each gap the communication it waited for accounts for) and idling. Memory is
// left empty (memory/timeline fills it).
std::vector<StageReport> stage_breakdown(const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan);

} // namespace simgpt
