// What a pipeline stage's GPU holds, before any timeline: its parameters, the activations one
// micro-batch keeps, its resident state, and how a peak is composed from them. Shared by the
// replayed memory (timeline) and the planner's static estimate (static_peak), so that both
// count bytes the same way; internal.
#pragma once

#include "execution/plan.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/memory/memory.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/workload/workload.hpp"

#include <vector>

namespace simgpt {

// What one stage's layers hold: parameters, and per model chunk the activations a micro-batch
// keeps for its backward (`kept`) or would keep without recompute (`full`).
struct StageFootprint {
  double params = 0;
  double layer_params = 0; // of its transformer layers alone
  double expert_params = 0; // of its routed experts alone (sharded over dp / ep, not dp)
  double fp8_weights = 0;   // fp8 training: its linear layers' weights, of which TransformerEngine keeps fp8 copies
  double dummy_wgrads = 0;  // elements of TransformerEngine's cached placeholder gradients (MemoryProfile::dummy_wgrads)
  std::vector<double> kept, full;
  double transient = 0;    // the largest working set beyond the kept activations
  // Activation offloading (training.cpu_offload_layers): what each offloaded layer saves for its
  // backward, which `kept` leaves out.
  std::vector<double> offloaded;
};

StageFootprint stage_footprint(int stage, const ExecutionPlan& plan, const Workload& w, const Profile& profile);

// Sets the plan's activation offloading (ExecutionPlan::offload_layers, offload_s): each offloaded
// layer's saved activations of one micro-batch over the GPU's host_bandwidth. Refused where the
// catalog gives the GPU none.
void with_offload(ExecutionPlan& plan, const Workload& w, const Profile& profile, const GpuSpec& gpu);

// A stage's resident state on one of its GPUs: its weights (under fp8 training with
// TransformerEngine's fp8 copies of the linear layers' weights), gradients and optimizer state.
struct ResidentState {
  double weights = 0, gradients = 0, optimizer_state = 0;
  double gradients_at_activation_peak = 0; // those already allocated when the backward starts
};

ResidentState resident_state(const StageFootprint& f, const ExecutionPlan& plan, const Workload& w,
                             const Profile& profile, const GpuSpec& gpu);

// Completes `mem`, whose weights, gradients (all of them), optimizer state, activations and
// transient are set, into the stage's peak: either during the backward (the activations, with
// `gradients_at_activation_peak` of the gradients) or at the optimizer step, when all gradients
// exist and the update may allocate a copy of the weights; then the framework's context and
// allocator overhead, capacity and usable memory (usable_memory). Returns true when the peak is
// the optimizer step's (its activations and in-flight count are then 0).
bool settle_peak(MemoryReport& mem, double gradients_at_activation_peak, const Profile& profile, const GpuSpec& gpu,
                 const ParallelismSpec& parallelism);

// The NCCL communicators a rank of the plan uses: one per parallel group of more than one rank
// (tensor, context, expert, data (over dp x cp), expert-data, pipeline).
int nccl_communicators(const ParallelismSpec& p);

// What the framework may fill on one GPU: its context plus pool_fraction of what the context,
// NCCL's buffers (nccl_buffers per communicator) and the headroom leave of the GPU's memory.
double usable_memory(const Profile& profile, const GpuSpec& gpu, const ParallelismSpec& parallelism);

} // namespace simgpt
