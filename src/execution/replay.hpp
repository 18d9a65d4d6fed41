// Replays a task graph on the SimGrid cluster: compute tasks as executions on their GPU host,
// transfers as point-to-point communications over the platform's routes. Activities are
// created when their inputs finish, so only in-flight activities exist in SimGrid.
#pragma once

#include "system/cluster.hpp"
#include "execution/task_graph.hpp"

namespace simgpt {

// A task's `gpu` and `peer` index the cluster's GPUs.
Timeline replay(const TaskGraph& g, Cluster& cluster);

} // namespace simgpt
