// One pass (forward or backward) of one micro-batch on virtual stage `v` of stage `s`, run by
// the tensor-parallel groups of all the stage's replicas.
#pragma once

#include "execution/step_graph/compute_streams.hpp"

#include <vector>

namespace simgpt::step_graph {

struct Pass {
  int s = 0, v = 0, micro_batch = 0, chunk = 0;
  bool forward = true;
  bool paired = false; // moe_a2a_overlap: run beside a pass of the other direction (combined 1F1B)
  std::vector<std::vector<int>> groups; // per replica simulated: its tensor-parallel group on stage s
  Slot slot() const { return {forward ? Phase::forward : Phase::backward, s, micro_batch, chunk}; }
};

} // namespace simgpt::step_graph
