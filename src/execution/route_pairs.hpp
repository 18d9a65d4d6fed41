// Which GPUs a step's communication joins: the routes a task's flows take.
#pragma once

#include "execution/step_graph.hpp"

#include <utility>
#include <vector>

namespace simgpt {

// The (sender, receiver) pairs of task v's flows: a transfer's own; an isolated collective's, each
// member to the next on its group's rings, or to every other member for an all-to-all; none for
// compute and delays.
std::vector<std::pair<int, int>> route_pairs(const StepGraph& step, TaskId v);

// Every pair some task of the step sends over, each once, in ascending order.
std::vector<std::pair<int, int>> communicating_pairs(const StepGraph& step);

} // namespace simgpt
