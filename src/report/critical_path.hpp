// The step time attributed along the critical path of the replayed step: compute, pipeline
// bubble, exposed communication by kind. Internal: it takes the task graph and its timeline.
#pragma once

#include "execution/task_graph.hpp"
#include "simgpt/report/report.hpp"

namespace simgpt {

// Attributes the step time (the timeline's makespan) along critical_path(). Compute tasks count
// for their stage (of `stages`, the pipeline's): from stage s's view, the path's compute on the
// other stages' GPUs is bubble, the time s waits for the pipeline. Communication counts by kind:
// p2p for pipeline transfers, a collective's flows and step latencies by the collective's name.
// What the path's tasks leave of the step is other. So for every stage, compute + bubble +
// communication + other = the step time; the report's own figures are those of the pacing
// stage, the one with the most compute on the path. For GPipe with p equal stages this bubble is
// the textbook (p - 1)(t_forward + t_backward).
CriticalPathReport critical_path_report(const TaskGraph& g, const Timeline& t, int stages);

} // namespace simgpt
