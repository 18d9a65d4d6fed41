// The most tasks a step may have (StepGraphOptions::max_tasks), checked as the graph grows and
// projected from its first passes.
#pragma once

#include "execution/step_graph.hpp"
#include "execution/task_graph.hpp"

#include <cstddef>

namespace simgpt::step_graph {

// Throws StepGraphTooLarge once the graph has grown past `max_tasks`; checked where tasks are
// made, a few at a time, so that a step too large is refused, not built until the machine runs
// out of memory.
void check_task_limit(const TaskGraph& graph, size_t max_tasks);

// The step's tasks projected from the passes built so far. Every stage runs as many passes, and
// like passes make as many tasks (a stage's first passes also hold its groups' first collectives
// of each kind, a task each), so the tasks per pass so far times all the step's passes is its size
// to a few percent once an eighth of the passes are built. A step projected past the limit by a
// quarter is refused then, after an eighth of its build (StepGraphTooLarge::projected), not when
// it reaches the limit; one projected nearer it is built on, the limit itself still checked.
class TaskProjection {
  size_t max_tasks_;
  size_t begun_ = 0;           // passes begun
  size_t tasks_ = 0, passes_ = 0; // at the last pass begun: the tasks made, the step's passes

public:
  explicit TaskProjection(size_t max_tasks) : max_tasks_(max_tasks) {}
  // Before each pass: `tasks` made so far, `passes` in the whole step.
  void pass_begins(size_t tasks, size_t passes);
  // A step refused at the limit itself: the tasks it would need, projected from the passes built
  // (at least the limit), in `e`.
  void project(StepGraphTooLarge& e) const;
};

} // namespace simgpt::step_graph
