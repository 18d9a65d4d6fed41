// Symmetric graphs (StepGraphOptions::symmetric): what is alike is simulated once.
#pragma once

#include "execution/step_graph/group_collectives.hpp"
#include "execution/step_graph/stand_ins.hpp"

#include <cstddef>

namespace simgpt::step_graph {

// The first replica stands for the others when their pipeline transfers use disjoint, alike
// routes (under expert or context parallelism, the first block of replicas that exchange tokens
// among themselves, when the blocks' transfers and all-to-alls use disjoint, alike routes); the first tensor rank's pipeline transfers and data-parallel collectives stand for the
// other ranks' when the ranks' streams are one (all `isolated_groups` of the plan's tensor-parallel
// groups are isolated) and their pipeline and gradient routes are disjoint and alike.
void find_symmetry(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                   size_t isolated_groups, StandIns& stand_ins);

} // namespace simgpt::step_graph
