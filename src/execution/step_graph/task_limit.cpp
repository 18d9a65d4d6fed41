#include "execution/step_graph/task_limit.hpp"

#include "execution/step_graph.hpp"

#include <fmt/format.h>

namespace simgpt::step_graph {

void check_task_limit(const TaskGraph& graph, size_t max_tasks) {
  if (boost::num_vertices(graph) > max_tasks)
    throw StepGraphTooLarge(fmt::format("the step needs more than {} simulated tasks", max_tasks));
}

} // namespace simgpt::step_graph
