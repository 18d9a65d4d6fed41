// Per-GPU memory: what a training step keeps resident (weights, gradients, optimizer state),
// what each in-flight micro-batch keeps for its backward pass, and the largest transient
// working set on top. Part of the model domain; the replayed schedule says how many
// micro-batches are in flight when.
#pragma once

#include "simgpt/workload/workload.hpp"

#include <string>

namespace simgpt {

struct KernelForm;


// One GPU's memory at its peak in the replayed step, by what holds it.
struct MemoryReport {
  double weights = 0, gradients = 0, optimizer_state = 0, activations = 0, transient = 0, framework = 0;
  double peak = 0;          // bytes
  double peak_time_s = 0;   // when in the step the peak occurs
  int in_flight = 0;        // micro-batches holding activations at the peak
  double capacity = 0;      // the GPU's memory
  double usable = 0;        // what the framework may fill: its context plus its allocator's pool
  double allocator_cache = 0; // of framework: what the caching allocator holds beyond the live tensors
  // What the GPU must hold at the peak: the peak less the allocator's cache, which PyTorch's
  // caching allocator releases and retries with before it reports out of memory
  // (c10/cuda/CUDACachingAllocator.cpp, malloc: release_cached_blocks, then alloc_block again).
  double needed() const { return peak - allocator_cache; }
  bool out_of_memory() const { return needed() > usable; }
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
// A MoE layer (`experts` true) keeps, instead of the dense MLP's 2 or 3 ffn, per token: the fp32
// router logits and probabilities (2 x 4 experts bytes), and for each of its top_k copies the
// expert FC1's input (h, gathered over tp) and its outputs (2 or 3 moe_ffn / t), and the shared
// expert's like a dense MLP's.
// Under fp8 training (`fp8`, TransformerEngine) each linear layer keeps its input as the fp8 copy
// its weight-gradient GEMM reads, one byte an element: QKV's and FC1's (two of the replicated
// tensors), the output projection's, FC2's and the experts' (their FC1's input, and FC2's of the
// 2 or 3 moe_ffn). The attention core, the norms and the activation functions keep theirs in
// `precision`: FlashAttention its output O, which the projection also reads, beside its fp8 copy.
// What a dense layer keeps for backward under torchtitan's op-level selective checkpointing
// (model/model.hpp, every_second_matmul_rerun): the block's input, the saved matmuls' outputs
// (wq, wv, w1 and w2 of SwiGLU; wq, wv and fc1 of GeLU), FlashAttention's output and fp32
// logsumexp, and under tensor parallelism the two reduce-scatters' outputs; for one micro-batch on
// one GPU.
double every_second_matmul_kept_bytes(const ModelSpec& m, int64_t micro_batch, int64_t tp, bool sequence_parallel,
                                      Precision precision);

// What Megatron-core's recompute modules (TrainingSpec::recompute_modules, `modules` its bits) free
// of what a layer keeps for backward with no recompute, for one micro-batch on one GPU: under
// FlashAttention the core's fp32 logsumexp (its output stays, saved by the output projection; an
// unfused core's scores come off in layer_activation_bytes' selective form), the dense MLP's FC1
// and activation outputs, the two norms' outputs, the experts' activation outputs.
double recompute_modules_freed_bytes(const ModelSpec& m, int64_t micro_batch, int64_t tp, bool sequence_parallel,
                                     Precision precision, bool experts, bool fp8, unsigned modules,
                                     double quantized_bytes = 1, char symbol = 'T', bool own_tokens_routed = false);

// `symbol`: a hybrid model's layer's (model.hybrid_pattern: a Mamba, attention, MLP or MoE block
// alone), 'T' a layer of attention and MLP; both functions count that layer's tensors.
// `own_tokens_routed`: experts whole beside tp > 1 (parallelism.etp 1), each GPU's experts' inputs
// its own tokens' copies, not the tensor-parallel group's.
double layer_activation_bytes(const ModelSpec& m, int64_t micro_batch, int64_t tp, bool sequence_parallel,
                              Recompute recompute, Precision precision, bool dropout, double recompute_kept = 1,
                              double replicated_kept = 4, bool softmax_fp32 = false, bool experts = false,
                              bool fp8 = false, double quantized_bytes = 1, char symbol = 'T',
                              bool own_tokens_routed = false);
// What a saved fp8 (or nvfp4) input holds a value: one byte, or nvfp4's column-wise copy, half a
// byte and an E4M3 scale per 16 (transformer_engine/pytorch/module/linear.py keeps the
// column-wise copy only).
double quantized_input_bytes(Fp8Recipe recipe);

// Bytes per parameter of weights, gradients and optimizer state before any ZeRO sharding:
// mixed-precision Adam keeps 2 + 2 + 12 (fp32 master weight and two moments); fp32 Adam 4 + 4 + 8;
// SGD without momentum keeps no state beyond the fp32 master copy under mixed precision; with
// momentum one fp32 buffer more (mixed precision 2 + 2 + 8, fp32 4 + 4 + 4).
struct StateBytes {
  double weights, gradients, optimizer;
};
// `fp32_grads_with_bf16`: under bf16 the gradients are fp32 (the profile's memory.fp32_grads_with_bf16).
// `master_gradients`: a 16-bit model's fp32 master copy holds its own fp32 gradients (the profile's
// memory.master_gradients), counted with the optimizer's state.
StateBytes state_bytes_per_parameter(const TrainingSpec& t, bool fp32_grads_with_bf16 = false,
                                     bool master_gradients = false);

} // namespace simgpt
