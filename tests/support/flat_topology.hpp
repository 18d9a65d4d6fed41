// A network for step-graph tests that need no SimGrid engine: one ring per group in the order its
// GPUs are listed, 1 us between any two GPUs, links unknown (so nothing is isolated or symmetric).
// Tests that need links derive from it.
#pragma once

#include "execution/step_graph.hpp"

namespace simgpt::testing {

class FlatTopology : public Topology {
public:
  std::vector<Ring> rings(const std::vector<int>& gpus) const override { return {{gpus, 1.0}}; }
  double route_latency(int, int) const override { return 1e-6; }
};

// A plan of `pp` equal stages of `layers_per_stage` layers: per layer 1 ms for attention and for
// the MLP forward, 2 ms each backward, 1 MB of weights and of gradients; 1 MB of activations per
// micro-batch; a 1 ms optimizer step.
inline ExecutionPlan small_plan(int dp, int tp, int pp, int micro_batches, int layers_per_stage) {
  ExecutionPlan p;
  p.dp = dp;
  p.tp = tp;
  p.pp = pp;
  p.micro_batches = micro_batches;
  p.layer = {1e-3, 1e-3, 2e-3, 2e-3, 0, 1e6, 1e6};
  for (int s = 0; s < pp; ++s) {
    StageCost c;
    c.layers = layers_per_stage;
    c.optimizer_s = 1e-3;
    p.stages.push_back(c);
  }
  p.activation_bytes = 1e6;
  return p;
}

} // namespace simgpt::testing
