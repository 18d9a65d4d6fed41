// Per-GPU memory: what a training step keeps resident (weights, gradients, optimizer state),
// what each in-flight micro-batch keeps for its backward pass, and the largest transient
// working set on top. Part of the model domain; the replayed schedule says how many
// micro-batches are in flight when.
#pragma once

#include "simgpt/workload/workload.hpp"

#include <string>

namespace simgpt {

struct KernelForm;

// A framework's memory behaviour (the profile's `memory` section).
struct MemoryProfile {
  double context_bytes = 0;      // CUDA context, cuBLAS workspace, NCCL buffers: fixed per GPU
  double allocator_overhead = 0; // fraction of allocated bytes the caching allocator holds beyond them
  bool checkpoint_stages = false; // full recompute checkpoints a pipeline stage's whole partition
                                  // (torchgpipe's Pipe) rather than each layer (Megatron)
  double pool_fraction = 1;      // share of the memory left after the context that the allocator may
                                 // take: JAX preallocates 90% of it, PyTorch grows into all of it
  double update_copy = 0;        // copies of the weights the optimizer step allocates before it frees
                                 // the old ones: 1 for a functional update that returns new weights
  double recompute_kept = 1;     // [s, b, h] tensors a fully recomputed layer keeps: 1 (its input) when
                                 // the whole layer is checkpointed, more when only some blocks are
  double replicated_kept = 4;    // [s, b, h] tensors a layer keeps for backward that tensor parallelism
                                 // does not split: 4 in Megatron (two layernorm inputs, the QKV and FC1
                                 // inputs; Korthikanti et al. 2022), more when a compiler keeps others
  bool persistent_gradients = true; // a gradient buffer lives through the whole step (PyTorch's .grad,
                                    // Megatron's contiguous buffer); false when gradients are values the
                                    // backward produces (JAX/XLA), kept whole only to accumulate micro-batches
  double logits_bytes = 8;       // bytes per logit element the loss holds at its peak: fp32 logits and
                                 // their gradient (8) for a fused cross-entropy; more when the softmax,
                                 // one-hot labels and products are materialised separately
};

struct MemoryBreakdown {
  double weights = 0, gradients = 0, optimizer_state = 0;
  double activations = 0; // kept for backward by the micro-batches in flight at the peak
  double transient = 0;   // one layer's full activations during its backward, the head's logits
  double framework = 0;   // context and allocator overhead
  double total() const { return weights + gradients + optimizer_state + activations + transient + framework; }
};

// Bytes one transformer layer keeps for its backward pass, for one micro-batch on one GPU.
// Korthikanti et al. 2022 (arXiv 2205.05198), Table 2, generalised to the element size E and to
// models without dropout: without recompute, s b h (4E + 2m + 12E/t) + a s^2 b (E(1 + d) + m)/t,
// where t is the tensor-parallel degree, d = 1 with dropout and m = d one-byte masks (for fp16
// with dropout: s b h (10 + 24/t + 5 a s/(h t)), the paper's form). Sequence parallelism divides
// the first term by t too; selective recompute drops the a s^2 b term; full recompute keeps only
// the layer input, E s b h (divided by t with sequence parallelism). `replicated_kept` generalises
// the paper's 4 replicated tensors (the 4E), `recompute_kept` the one input a checkpointed layer keeps.
// With FlashAttention (m.attention) the a s^2 b term is replaced by the fp32 logsumexp, 4 b a s / t
// bytes, with or without selective recompute.
double layer_activation_bytes(const ModelSpec& m, int64_t micro_batch, int64_t tp, bool sequence_parallel,
                              Recompute recompute, Precision precision, bool dropout, double recompute_kept = 1,
                              double replicated_kept = 4, bool softmax_fp32 = false);

// Bytes per parameter of weights, gradients and optimizer state before any ZeRO sharding:
// mixed-precision Adam keeps 2 + 2 + 12 (fp32 master weight and two moments); fp32 Adam 4 + 4 + 8;
// SGD without momentum keeps no state beyond the fp32 master copy under mixed precision; with
// momentum one fp32 buffer more (mixed precision 2 + 2 + 8, fp32 4 + 4 + 4).
struct StateBytes {
  double weights, gradients, optimizer;
};
StateBytes state_bytes_per_parameter(const TrainingSpec& t);

} // namespace simgpt
