// Replays a task graph on the SimGrid cluster: compute tasks as executions on their GPU host,
// transfers as point-to-point communications over the platform's routes. Activities are
// created when their inputs finish, so only in-flight activities exist in SimGrid.
#pragma once

#include "system/cluster.hpp"
#include "execution/task_graph.hpp"

namespace simgpt {

// A task's `gpu` and `peer` index the cluster's GPUs. An isolated collective (a task of kind
// isolated_collective over the group `isolated[peer]`) runs its ring flows; its links carry
// nothing else (StepGraphOptions), so every repeat of its (group, kind, bytes) takes the same
// time: the step graph folds the repeats into compute tasks, and a repeat that is a task of its
// own (a graph built by hand) is one timer of that time. A compute task is one timer of its
// kernels and the collectives folded into it, each as long as the isolated one it is like
// (task_end); the timeline says what each one's flows took (Timeline::folded).
Timeline replay(const TaskGraph& g, Cluster& cluster, const std::vector<std::vector<Ring>>& isolated = {});

} // namespace simgpt
