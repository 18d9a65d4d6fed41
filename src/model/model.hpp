// The model domain: the kernels one GPT layer runs for one micro-batch, with their FLOPs
// and bytes, and the model's parameter counts. Nothing here knows about GPUs or time.
#pragma once

#include "simgpt/workload/workload.hpp"

#include <vector>

namespace simgpt {

// TransformerEngine's cast of one tensor to fp8 for a GEMM (training.fp8): memory-bound, reading
// the tensor at its element size and writing one byte an element, and beside it the transposed
// copy the other GEMM of the pair reads where the GPU's fp8 GEMMs take only the TN layout (TE's
// cast_transpose). With current scaling (the tensorwise recipe) an amax pass over the tensor and
// a scale kernel come first (model/fp8.cpp).
struct Fp8Cast {
  double elements = 0;
  double source_bytes = 2; // the tensor's element size
  bool transpose = false;
  bool current_scaling = false;
  double block = 0; // values per scale byte (mxfp8's 32), each copy; 0: one scale for the tensor
  double element_bytes = 1; // each quantized copy's bytes a value (nvfp4's E2M1: half a byte)
};

struct Kernel {
  // quantize: a kernel of an fp8 cast (Fp8Cast), memory-bound like `memory`; the gradient passes
  // through a cast unchanged (straight through), so it has no backward kernel of its own.
  //
  // attention: FlashAttention's fused kernel (Dao et al. 2022, arXiv 2205.14135; Dao 2023,
  // arXiv 2307.08691), `products` matmuls of m queries by n keys over head dimension k, `batch`
  // (micro-batch x heads) at once, the scores kept in on-chip SRAM; `bytes` is its HBM traffic.
  enum class Kind { gemm, memory, attention, quantize };
  Kind kind = Kind::memory;
  // GEMM: C[m x n] = A[m x k] B[k x n], `batch` independent products.
  double m = 0, n = 0, k = 0, batch = 1;
  double bytes = 0; // memory-bound and attention kernels: bytes read plus written in HBM
  double products = 0; // attention kernels: [m x n x k] matmuls per batch entry
  // GEMM: a TransformerEngine linear layer's GEMM in fp8 (training.fp8): A and B one byte an
  // element, at the GPU's fp8 tensor-core rate; its backward casts the output gradient
  // (`grad_cast`) and runs its data- and weight-gradient GEMMs in fp8 too.
  bool fp8 = false;
  bool fp4 = false; // with fp8: NVFP4 (training.fp8_recipe nvfp4), E2M1 operands at the fp4 peak
  Fp8Cast grad_cast;
  Fp8Cast backward_recast; // what the backward casts again besides dC (KernelForm::fp8_recast_per_use)
  // A memory-bound kernel one of whose inputs is broadcast (a zero stride: the causal mask over
  // every batch entry and head): PyTorch vectorises an elementwise loop only when its iterator is
  // contiguous (aten/src/ATen/native/cuda/CUDALoops.cuh, gpu_kernel_impl: launch_vectorized_kernel for
  // the trivial 1-d case; otherwise elementwise_kernel over offset calculators, the kernel the device
  // profile shows for masked_fill), so this one loads an element at a time.
  bool strided = false;

  // What a kernel table (system/kernel_table.hpp) keys a kernel by, beyond its kind and sizes:
  //
  // GEMM: how its operands lie, as cuBLAS (and TransformerEngine's general_gemm) names it: a linear
  // layer's forward y = x W^T (x [tokens, in], W [out, in]) is TN, its input gradient NN, its weight
  // gradient NT (C [out x in], the weight's shape). `none`: the products of no linear layer (the
  // unfused attention core's batched Q K^T and P V), which no table times.
  enum class Layout { none, TN, NN, NT };
  Layout layout = Layout::none;
  bool grouped = false; // GEMM: `batch` GEMMs of one shape in one grouped kernel (a MoE layer's experts)
  // attention: the fused kernel's shape; `runs_whole` false where the kernel as costed is not one
  // kernel that runs (ring attention's cp steps are costed together).
  struct AttentionShape {
    double batch = 1, seq = 0, heads = 0, kv_heads = 0, qk_dim = 0, v_dim = 0;
    bool causal = true;
    double window = 0; // a sliding window's keys (0: none)
    bool qkv_contiguous = false; // queries, keys and values tensors of their own, not views of one projection
    bool runs_whole = true;
  };
  AttentionShape attention_shape;
  // memory: a norm over `elements` values, which a table may time; TransformerEngine's fused
  // cross-entropy over `elements` logits and its MoE token permutation or unpermutation, which the
  // catalog may give an efficiency of their own (GpuSpec::memory_op_efficiency); other memory-bound
  // kernels are priced by their bytes.
  enum class Op { other, layernorm, rmsnorm, te_cross_entropy, moe_permute, layout_copy };
  Op op = Op::other;
  double elements = 0;
  double width = 0; // a norm's row: the values it normalises together (the hidden size); 0 unknown
  // The framework's host makes a call of its own to launch it (compute.op_overhead); false for a
  // kernel another op launches from its C++ (torch.matmul making its operand contiguous).
  bool host_call = true;
  bool backward = false; // attention and norms: the backward kernel
  // The backward runs this forward kernel again before its own (a fused kernel that saves only its
  // inputs and rebuilds the rest: Mamba-2's convolution and chunk states, model/mamba.hpp).
  bool rerun_in_backward = false;

  static Kernel gemm(double m, double n, double k, double batch = 1) {
    Kernel g{Kind::gemm, m, n, k, batch, 0};
    g.layout = Layout::TN;
    return g;
  }
  static Kernel memory(double bytes) { return {Kind::memory, 0, 0, 0, 1, bytes}; }
  static Kernel attention(double queries, double keys, double head_dim, double batch, double products, double bytes) {
    return {Kind::attention, queries, keys, head_dim, batch, bytes, products};
  }
  double flops() const {
    return kind == Kind::gemm ? 2 * m * n * k * batch : kind == Kind::attention ? 2 * m * n * k * batch * products : 0;
  }
};
using Kernels = std::vector<Kernel>;

// How kernels are formed: a framework choice, passed in by the cost model.
struct KernelForm {
  int softmax_passes = 1; // kernels over the attention scores (scale, mask, softmax fused or not)
  bool dropout = true;
  bool fused_elementwise = false;
  bool softmax_fp32 = false; // the softmax kernels work in fp32: 16-bit scores are cast up before, back after
  // fp8 training (training.fp8, TransformerEngine): the transformer layers' linear GEMMs in fp8,
  // their inputs cast first; the casts also write the transposed copy where the GPU's fp8 GEMMs
  // take only the TN layout; `fp8_current_scaling`: the tensorwise recipe's amax pass before each.
  bool fp8 = false;
  bool fp8_transpose = false;
  bool fp8_current_scaling = false;
  // Profile::fp8_recast_per_use: the weight cast before each forward GEMM, and the weight and input
  // cast again (transposed) for the backward's GEMMs.
  bool fp8_recast_per_use = false;
  double fp8_block = 0; // mxfp8: values per scale byte of each copy a cast writes (0: one scale a tensor)
  bool fp4 = false;     // nvfp4: the GEMMs in E2M1, each cast's copies half a byte a value
  // Profile::eager_fp32_chains: `eager_chains` where the kernels are not fused (torch.compile
  // fuses each chain into one kernel), `repeat_kv` either way.
  bool eager_chains = false;
  bool repeat_kv = false;
  bool te_cross_entropy = false; // Profile::te_cross_entropy: the loss over 16-bit logits, no fp32 copy
  int head_copies = 0;            // Profile::head_copies: the unfused core's copies of its inputs and output
};

// Shapes one GPU sees: the micro-batch and its tensor-parallel shard.
struct Shard {
  int64_t micro_batch = 1;
  int64_t tp = 1;
  Precision precision = Precision::fp16;
  bool sequence_parallel = false; // layernorm, dropout and residual work split over tp (Korthikanti et al. 2022)
  int64_t ep = 1; // expert parallelism: this GPU holds experts / ep of each MoE layer's experts
  // Context parallelism: the model given with the shard is the rank's part of the sequence
  // (context_local); the attention core alone sees the whole sequence, for heads / cp of its heads.
  int64_t cp = 1;
  // Context parallelism's ring form (cp_comm_type p2p): the core runs as cp steps, each on a block
  // of keys, not as the one kernel it is costed as.
  bool cp_ring = false;
  MoeDispatcher dispatcher = MoeDispatcher::alltoall; // how MoE layers' tokens reach their experts
  // Expert tensor parallelism (ParallelismSpec::etp): 0 (tp) splits each expert over the tensor
  // ranks, which gather their sequence-parallel tokens before the experts; 1 keeps experts whole,
  // each GPU routing only its own tokens.
  int64_t etp = 0;
  int64_t expert_tp() const { return etp > 0 ? etp : tp; }
};

// What one of cp context-parallel ranks computes of each sequence: seq_len / cp tokens, through
// every kernel but the attention core (Megatron-LM, megatron/core/utils.py get_batch_on_this_cp_rank).
ModelSpec context_local(const ModelSpec& m, int64_t cp);

double element_bytes(Precision p);
// Bytes of one gradient element: the weights' precision, or 4 for a bf16 model whose framework
// accumulates and reduces gradients in fp32 (`fp32_grads_with_bf16`, Megatron-LM's default).
double gradient_element_bytes(Precision p, bool fp32_grads_with_bf16);

// The layer at index i's blocks of a hybrid model (model.hybrid_pattern), forward: its mixer (an
// attention block, or a Mamba layer's: model/mamba.hpp) and its MLP (dense or MoE), either empty
// where the layer has none. A model that is not hybrid has both.
Kernels mixer_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form, int64_t i);

// Forward kernels of one transformer layer (attention + MLP, Megatron's column/row split).
// Under tensor parallelism each block ends in an all-reduce (or reduce-scatter with sequence
// parallelism) of its output: the attention block and the MLP block are costed separately.
// Multi-head latent attention replaces the QKV projection by its down projections, latent norms
// and up projections (latent_attention.hpp).
Kernels attention_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
Kernels mlp_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
Kernels transformer_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
// Parts of a layer that Megatron-core's recompute modules rerun (TrainingSpec::recompute_modules):
// one of the layer's two norms; the dense MLP without its norm and residual (FC1, activation,
// FC2: "mlp"); a MoE layer's experts' activation ("moe_act").
Kernels layer_norm_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
Kernels mlp_module_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
Kernels moe_activation_forward(const ModelSpec& m, const Shard& s);
// A mixture-of-experts MLP block (Megatron-LM's MoELayer, megatron/core/transformer/moe/): the
// router's GEMM and top-k, the permutation of tokens to their experts, the experts' FFNs as grouped
// GEMMs, the weighted unpermutation, and a shared expert when the model has one. Split in three
// around the token exchange of expert parallelism: what runs before the dispatch all-to-all (norm,
// router, permute), the experts between it and the combine all-to-all, and what runs after.
struct MoeBlock {
  Kernels before_dispatch, experts, after_combine;
};
MoeBlock moe_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
// Token copies this GPU's experts process per micro-batch: every token of the expert-parallel
// group goes to top_k experts, an even share of them to each rank (balanced routing, what
// Megatron's load-balancing loss aims at), bounded by the capacity factor when there is one.
double routed_tokens(const ModelSpec& m, const Shard& s);
// GPUs of ep, each holding experts / ep of the experts, that a token's top_k experts (drawn evenly,
// distinct) fall on, in expectation.
double expected_destinations(int64_t experts, int64_t top_k, int64_t ep);
// Bytes one GPU sends in one dispatch (or combine) all-to-all, (ep - 1) / ep of them to other
// ranks: its routed token copies' hidden states (alltoall), or a copy per destination GPU (flex).
double all_to_all_bytes(const ModelSpec& m, const Shard& s);
// The layer at index i (from 0): its attention block and its MLP, dense or with experts.
Kernels layer_forward(const ModelSpec& m, const Shard& s, const KernelForm& form, int64_t i);
// Kernels of the attention core only (scores, softmax, context): what selective recompute reruns
// (Korthikanti et al. 2022, section 5). With FlashAttention, one fused kernel with the same
// matmul FLOPs that writes only the output and the softmax statistics to HBM.
Kernels attention_core_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
// Whether the backward reruns the attention core's forward first: selective recompute does, unless
// the core is FlashAttention, whose own backward already recomputes the scores (Megatron-LM takes
// its flash path instead of checkpointing the core attention).
bool recomputes_attention_core(const ModelSpec& m, Recompute recompute);

// What a layer's backward reruns first under selective recompute: Megatron-core's modules where
// the workload names them (training.recompute_modules), else the framework's own: torchtitan's op
// policy (`every_second_matmul_policy`, Profile::selective_every_second_matmul) or the attention
// core (recomputes_attention_core); nothing otherwise.
enum class SelectiveRerun { nothing, attention_core, every_second_matmul, modules };
SelectiveRerun selective_rerun(const ModelSpec& m, const TrainingSpec& t, bool every_second_matmul_policy);

// torchtitan's op-level selective activation checkpointing (torchtitan/parallelisms/
// parallelize_llama.py at 9dec370, _apply_ac_to_transformer_block with selective_ac_option "op"):
// within each transformer block the outputs of aten.mm are saved but every second one, and
// scaled_dot_product_attention's and the tensor-parallel reduce-scatters' outputs are saved; the
// rest is rerun before the block's backward. torchtitan's layer runs seven matmuls in order (wq,
// wk, wv, wo, then w1, w3, w2 of SwiGLU; two of GeLU): wk, wo and w3 (GeLU: fc2) are rerun. Of a
// dense layer's forward kernels (attention_block_forward, then mlp_block_forward, whose QKV and
// gate-and-up GEMMs are fused: the rerun matmuls are their parts), the kernels rerun.
Kernels every_second_matmul_rerun(const ModelSpec& m, const Kernels& attention, const Kernels& mlp);
// Backward of a forward kernel list: each GEMM becomes its data- and weight-gradient GEMMs
// (twice the FLOPs), each memory-bound kernel reads and writes about twice the bytes; a
// FlashAttention kernel becomes its fused backward, five matmuls for the forward's two (2.5x); a
// kernel rerun in the backward (Kernel::rerun_in_backward) runs once more first.
Kernels backward_of(const Kernels& forward);
// The layer each multi-token prediction module runs (model.mtp_layers): the model's last, or, in a
// hybrid model, an attention layer and the last layer's MLP together (Megatron-Core's MTP pattern
// "*E" of Nemotron 3 Super, one '*' and one 'E' layer): as a model that is not hybrid, whose last
// layer it is.
ModelSpec mtp_layer_model(const ModelSpec& m);
Kernels mtp_layer_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
// Token embedding lookup (and position embedding) on the first stage.
Kernels embedding_forward(const ModelSpec& m, const Shard& s);
// Output layer on the last stage: LM head with softmax cross-entropy, or a classifier.
Kernels head_forward(const ModelSpec& m, const Shard& s, const KernelForm& form = {});
// One multi-token prediction module's kernels beside its transformer layer (model.mtp_layers): the
// shifted tokens' embedding, the two norms and eh_proj, the final norm and the LM head again.
Kernels mtp_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
// The mtp_layers modules' weights beside their transformer layers on one tensor rank: eh_proj and
// the three norms each, or one module's where they share it (model.mtp_shared_layer; the word
// embedding's copy on a pipelined model's last stage is the caller's).
double mtp_parameters(const ModelSpec& m, int64_t tp);

// Parameters of one dense transformer layer held by one tensor-parallel rank.
double layer_parameters(const ModelSpec& m, int64_t tp);
// Parameters of one MoE layer held by one GPU: attention, norms and the router (replicated over
// tp), the shared expert split over tp, and experts / ep routed experts split over tp (Megatron's
// default expert tensor parallelism, etp = tp). expert_parameters is the routed experts' part
// alone: what the expert-data-parallel group (dp / ep ranks) reduces.
double moe_layer_parameters(const ModelSpec& m, int64_t tp, int64_t ep, int64_t etp = 0);
double expert_parameters(const ModelSpec& m, int64_t tp, int64_t ep);
// Layer i's parameters on one GPU, dense or MoE; `etp` the experts' tensor ranks (0: tp).
double layer_parameters_at(const ModelSpec& m, int64_t tp, int64_t ep, int64_t i, int64_t etp = 0);
// Parameters one token runs through: a MoE layer counts top_k of its experts (Mixtral 8x7B: 12.9B
// of 46.7B).
double active_parameters(const ModelSpec& m);
double embedding_parameters(const ModelSpec& m, int64_t tp);
double head_parameters(const ModelSpec& m, int64_t tp); // a tied LM head: its final layernorm only
double total_parameters(const ModelSpec& m);

// The same parameters as PyTorch holds them, one tensor per module weight or bias, in module
// order (model.parameters()): what a framework that synchronises each tensor with its own call
// sends. A dense layer is the unfused GPT layer (q, v, k and output projections, FC1, FC2, the two
// norms: DT-FM's GPTTransformerLayer, modules/gpt_modules.py); its tensors sum to
// layer_parameters. Multi-head latent attention and MoE layers are not listed (empty).
std::vector<double> layer_parameter_tensors(const ModelSpec& m, int64_t tp);
std::vector<double> embedding_parameter_tensors(const ModelSpec& m, int64_t tp);
std::vector<double> head_parameter_tensors(const ModelSpec& m, int64_t tp);

// Model FLOPs of one training step (forward + backward, recompute not counted), the sum of the
// GEMMs above; Narayanan et al. 2021 (arXiv 2104.04473) eq. 3 without recompute:
// 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) for the LM head.
double model_flops_per_step(const Workload& w);
// The FLOPs the GPUs run per step: the model's plus what recompute runs again (hardware FLOPs).
double hardware_flops_per_step(const Workload& w);

double sum_flops(const Kernels& ks);

} // namespace simgpt
