// The most tasks a step may have (StepGraphOptions::max_tasks).
#pragma once

#include "execution/task_graph.hpp"

#include <cstddef>

namespace simgpt::step_graph {

// Throws StepGraphTooLarge once the graph has grown past `max_tasks`; checked where tasks are
// made, a few at a time, so that a step too large is refused, not built until the machine runs
// out of memory.
void check_task_limit(const TaskGraph& graph, size_t max_tasks);

} // namespace simgpt::step_graph
