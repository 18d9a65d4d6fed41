// The routes a step's flows take, and whether several lists of them can be simulated as one.
#pragma once

#include "execution/step_graph/group_collectives.hpp"

#include <functional>
#include <utility>
#include <vector>

namespace simgpt::step_graph {

// Routes flows take, as (sender, receiver) pairs of distinct GPUs.
using Routes = std::vector<std::pair<int, int>>;

// A group's ring flows, to each ring neighbour both ways.
Routes ring_routes(GroupCollectives& collectives, const std::vector<int>& gpus);

// The data-parallel collectives' flows of stage s's tensor rank t: ring neighbours, or every
// pair for the direct algorithm (none without data parallelism).
Routes dp_routes(const ExecutionPlan& plan, GroupCollectives& collectives, int s, int t);

// Calls f(first, pairs) for every expert- and context-parallel group of the plan, every stage and
// every tensor rank whose group is its own (expert_group, replica_group): `first` the group's first
// replica, `pairs` its all-to-all's flows, every pair of its GPUs each way.
void for_each_exchange(const ExecutionPlan& plan, const std::function<void(int first, const Routes& pairs)>& f);
// Those of every expert- and context-parallel group of the plan (for_each_exchange).
Routes all_exchange_routes(const ExecutionPlan& plan);

// The pipeline transfers' routes both ways, per replica and tensor rank: [d][t] lists (a, b).
// The last stage's go back to the first when stages hold several model chunks.
std::vector<std::vector<Routes>> pipeline_routes(const ExecutionPlan& plan);

// Whether the routes of each key's list use links no other key's use, and are alike (the same
// links' rates in the same order) to the first key's, position by position.
bool disjoint_and_alike(const Topology& topology, const std::vector<Routes>& routes);

} // namespace simgpt::step_graph
