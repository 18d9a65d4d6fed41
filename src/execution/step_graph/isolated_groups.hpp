// Tensor-parallel groups whose collectives meet nothing else on the network.
#pragma once

#include "execution/step_graph/group_collectives.hpp"
#include "execution/step_graph/stand_ins.hpp"

#include <map>
#include <vector>

namespace simgpt::step_graph {

// Adds a group whose collectives are replayed whole: its rings to `isolated` (as StepGraph::isolated
// holds them), their index to `index`.
void add_isolated(const std::vector<int>& group, GroupCollectives& collectives, std::map<std::vector<int>, int>& index,
                  std::vector<std::vector<Ring>>& isolated);

// Finds the tensor-parallel groups whose flows' links (their rings', both ways) no other
// communication of the step uses: no other group's collectives, no data-parallel collective,
// no pipeline transfer. Their collectives then meet nothing on the network, so each is replayed
// whole (their rings appended to `isolated`, their index in `stand_ins.isolated_index`), and
// their GPUs share one compute stream. Nothing is isolated when a route's links are unknown.
void find_isolated_groups(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                          StandIns& stand_ins, std::vector<std::vector<Ring>>& isolated);

// Finds the data-parallel groups (and expert-data-parallel ones) whose rings' links no other
// communication of the step uses: no other group's collectives, no tensor-, expert- or
// context-parallel collective, no pipeline transfer. A group's collectives run one after another
// on its data-parallel NCCL stream (ZeRO-3's gathers and reduce-scatters, the gradient buckets,
// the gather after a sharded update), so each meets nothing on its links and every one like it
// (kind and bytes) takes as long: each is one task replayed whole, the first of its kind with
// its flows, the others as long (their rings appended to `isolated`, their index in
// `stand_ins.whole_index`). The ring algorithm only; nothing when a route's links are unknown.
void find_whole_dp_groups(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                          StandIns& stand_ins, std::vector<std::vector<Ring>>& isolated);

} // namespace simgpt::step_graph
