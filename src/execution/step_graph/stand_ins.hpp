// Whose simulated work stands for whose (StepGraphOptions): the GPUs of a tensor-parallel group
// whose links nothing else uses run on their first GPU's compute stream; in a symmetric graph
// the first data-parallel replica stands for the others, and the first tensor rank's
// communication for the other ranks'.
#pragma once

#include "execution/step_graph.hpp"
#include "execution/step_graph/group_collectives.hpp"

#include <cstddef>
#include <map>
#include <vector>

namespace simgpt::step_graph {

struct StandIns {
  std::vector<int> stream_gpu; // per GPU: the GPU whose compute stream it runs on
  std::vector<int> owner_gpu;  // per GPU: the GPU whose simulated work stands for its
  int dp = 1, tp = 1;
  int replicas = 1;                               // replicas simulated
  bool first_rank_stands_in = false;              // the first tensor rank's communication stands for all ranks'
  // The first expert-parallel group of each stage and tensor rank runs on its first member's
  // stream, its all-to-alls replayed whole (symmetry.hpp).
  bool expert_groups_folded = false;
  std::map<std::vector<int>, int> isolated_index; // isolated group -> index in StepGraph::isolated
  // Data-parallel groups whose collectives meet nothing else on the network, each replayed whole
  // on the data-parallel stream -> index in StepGraph::isolated (isolated_groups.hpp).
  std::map<std::vector<int>, int> whole_index;

  // Every GPU on its own stream, standing for itself: the full graph.
  explicit StandIns(const ExecutionPlan& plan);

  // The GPU whose compute stream `gpu`'s kernels run on: its own, or in an isolated
  // tensor-parallel group the group's first GPU's (StepGraphOptions).
  int stream(int gpu) const { return stream_gpu[static_cast<size_t>(owner(gpu))]; }
  // The GPU whose simulated work stands for `gpu`'s: its own, or in a symmetric graph the same
  // rank's of the first replica.
  int owner(int gpu) const { return owner_gpu[static_cast<size_t>(gpu)]; }
  // How many replicas each simulated one stands for (counted in the reports).
  int replica_weight() const { return dp / replicas; }
  // How many groups of `size` consecutive replicas (expert- or context-parallel; one replica's:
  // replica_weight) each simulated one stands for: all dp / size of them over the simulated ones.
  int group_weight(int size) const { return dp / size / (replicas > size ? replicas / size : 1); }
  // Whether tensor rank t's communication is the first rank's (in a symmetric graph), and how many
  // ranks' alike collectives one simulated collective stands for.
  bool stands_in(int t) const { return t > 0 && first_rank_stands_in; }
  int rank_weight() const { return first_rank_stands_in ? tp : 1; }
};

// The stand-ins the options allow on this plan and network: isolated tensor-parallel groups
// (their rings appended to `isolated`, as StepGraph::isolated holds them; none under expert or
// context parallelism), then symmetry.
StandIns find_stand_ins(const ExecutionPlan& plan, const Topology& topology, const StepGraphOptions& options,
                        GroupCollectives& collectives, std::vector<std::vector<Ring>>& isolated);

} // namespace simgpt::step_graph
