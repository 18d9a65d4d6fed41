// Symmetric graphs (StepGraphOptions::symmetric): what is alike is simulated once.
#pragma once

#include "execution/step_graph/group_collectives.hpp"
#include "execution/step_graph/stand_ins.hpp"

#include <vector>

namespace simgpt::step_graph {

// The first replica stands for the others when their pipeline transfers use disjoint, alike
// routes. Under expert or context parallelism, the first block of replicas that exchange tokens
// among themselves stands for the other blocks when the blocks' transfers and all-to-alls use
// disjoint, alike routes; under expert parallelism alone the block's replicas are then alike too
// when their own pipeline transfers use disjoint, alike routes (each replica on its own NIC),
// and the first replica stands for the whole block: the block's expert-parallel group (one per
// stage and tensor rank) runs on its first member's stream, and its all-to-alls are replayed
// whole, the first of each size with its flows on the links they use (appended to `isolated`,
// as an isolated tensor-parallel group's collectives), the others as long
// (StandIns::expert_groups_folded). The first tensor rank's pipeline transfers and data-parallel
// collectives stand for the other ranks' when the ranks' streams are one (every tensor-parallel
// group isolated) and their pipeline and gradient routes are disjoint and alike.
void find_symmetry(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                   StandIns& stand_ins, std::vector<std::vector<Ring>>& isolated);

} // namespace simgpt::step_graph
