// The step time attributed along the critical path of the replayed step: compute, pipeline
// bubble, exposed communication by kind. Internal: it takes the task graph and its timeline.
#pragma once

#include "execution/task_graph.hpp"
#include "simgpt/report/report.hpp"

namespace simgpt {

// Attributes the step time (the timeline's makespan) along critical_path(). Communication on the
// path counts by kind: p2p for pipeline transfers, a collective's flows and step latencies by the
// collective's name. Compute on the path counts, from each stage's view (its first GPU's
// stream), as that stage's compute when it runs on the stage or while the stage computes too
// (off the path), and as bubble while the stage waits for the rest of the pipeline. What the
// path's tasks leave of the step is other. So for every stage, compute + bubble + communication
// + other = the step time; the report's own figures are those of the pacing stage, the one that
// waits least (the lowest on a tie). For GPipe with p equal stages the bubble is the textbook
// (p - 1)(t_forward + t_backward); in 1F1B's steady state, where the path zigzags between
// neighbouring stages that all compute, it is what each stage actually waits.
CriticalPathReport critical_path_report(const TaskGraph& g, const Timeline& t, int stages);

} // namespace simgpt
