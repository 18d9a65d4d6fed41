#include "execution/step_graph/task_limit.hpp"

#include "execution/step_graph.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace simgpt::step_graph {

void check_task_limit(const TaskGraph& graph, size_t max_tasks) {
  if (boost::num_vertices(graph) > max_tasks)
    throw StepGraphTooLarge(fmt::format("the step needs more than {} simulated tasks", max_tasks),
                            boost::num_vertices(graph), max_tasks, false);
}

void TaskProjection::pass_begins(size_t tasks, size_t passes) {
  const size_t built = begun_++;
  tasks_ = tasks;
  passes_ = passes;
  if (built == 0 || built * 8 < passes)
    return;
  const double projected = static_cast<double>(tasks) / static_cast<double>(built) * static_cast<double>(passes);
  if (projected > 1.25 * static_cast<double>(max_tasks_))
    throw StepGraphTooLarge(fmt::format("the step needs about {:.0f} simulated tasks (projected from {} of its {} "
                                        "passes), more than {}",
                                        projected, built, passes, max_tasks_),
                            static_cast<size_t>(projected), max_tasks_, true);
}

void TaskProjection::project(StepGraphTooLarge& e) const {
  if (e.projected || begun_ < 2)
    return;
  const size_t built = begun_ - 1; // passes before the one being built
  const auto projected =
      static_cast<size_t>(static_cast<double>(tasks_) / static_cast<double>(built) * static_cast<double>(passes_));
  e.tasks = std::max(e.tasks, projected);
  e.projected = true;
}

} // namespace simgpt::step_graph
