// Whose simulated tasks draw a GPU's tracks. A step graph may simulate some GPUs' work for others
// (execution/step_graph.hpp): an isolated tensor-parallel group's GPUs run on their first GPU's
// compute stream, and a symmetric graph's first data-parallel replica or block of replicas (and first tensor rank's
// communication) stands for the others. A trace draws such a GPU with its stand-in's times, its
// peers and groups renamed to its own: what the simulation says of it.
#pragma once

#include "execution/plan.hpp"
#include "execution/step_graph.hpp"

#include <array>
#include <vector>

namespace simgpt {

class TraceStandIns {
public:
  TraceStandIns(const StepGraph& step, const ExecutionPlan& plan);

  // The GPU whose compute tasks (and isolated collectives) are `gpu`'s.
  int compute(int gpu) const { return step_.compute_stream[static_cast<size_t>(gpu)]; }
  // The GPU whose pipeline transfers, and collectives where `gpu` has no flows of its own, are `gpu`'s.
  int communication(int gpu) const;
  // GPU `other` of `source`'s communication as `gpu` sees it: the stand-in's replica and tensor
  // rank swapped for `gpu`'s (a one-to-one renaming; `communication(gpu)` becomes `gpu`).
  int rename(int gpu, int other) const;
  // (stage, replica, tensor rank) of a GPU.
  const std::array<int, 3>& rank(int gpu) const { return rank_[static_cast<size_t>(gpu)]; }

private:
  const StepGraph& step_;
  const ExecutionPlan& plan_;
  std::vector<std::array<int, 3>> rank_;
  int replica_block_; // replicas d % block stand for d (0: every replica simulated)
  bool first_rank_stands_in_;
};

} // namespace simgpt
