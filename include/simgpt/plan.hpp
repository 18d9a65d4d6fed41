// The execution plan: which GPU runs which pipeline stage, what each stage computes per
// micro-batch, and the task graph of one training step built from it.
#pragma once

#include "simgpt/task_graph.hpp"
#include "simgpt/workload.hpp"

#include <vector>

namespace simgpt {

class ComputeCostModel;
struct Profile;

// Per-micro-batch time of one virtual stage (a stage's model chunk) on its GPU.
struct StageCost {
  double forward_s = 0;
  double backward_s = 0; // includes recomputation
  double optimizer_s = 0;
  int layers = 0;
};

struct PipelinePlan {
  int stages = 1;         // pp
  int chunks = 1;         // model chunks per stage (interleaved)
  int micro_batches = 1;  // per data-parallel replica
  std::vector<int> gpu_of_stage;
  std::vector<StageCost> cost; // per virtual stage: chunk * stages + stage
  double activation_bytes = 0; // one micro-batch's boundary activation
  bool blocking_p2p = false;   // the sender's stream waits for its send to finish
};

// Costs each virtual stage with the GPU's cost model and maps stages to the first GPUs.
PipelinePlan make_pipeline_plan(const Workload& w, const ComputeCostModel& cost, const Profile& profile);

// The step's tasks: each stage's steps in schedule order on its compute stream, one transfer per
// stage boundary and micro-batch (activations forward, gradients backward) serialised per
// direction, and the optimizer step after the last backward.
TaskGraph build_pipeline_graph(const Workload& w, const PipelinePlan& plan);

} // namespace simgpt
