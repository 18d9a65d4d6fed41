// A framework profile: how a training framework runs kernels and moves data
// (profiles/<name>.yaml). Its fitted parameters come from `simgpt calibrate`.
#pragma once

#include "simgpt/framework/framework_support.hpp"
#include "simgpt/framework/nccl_tuning.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace simgpt {

// A framework's memory behaviour (the profile's `memory` section).
struct MemoryProfile {
  double context_bytes = 0;      // CUDA context and cuBLAS workspace: fixed per GPU
  // NCCL's buffers on one communicator a rank uses, outside the framework's allocator: its default
  // per channel (NVIDIA/nccl src/init.cc: DEFAULT_BUFFSIZE 4 MiB for the Simple protocol,
  // DEFAULT_LL128_BUFFSIZE 120 x 640 x 8 steps x 8 B = 4.69 MiB, DEFAULT_LL_BUFFSIZE
  // 8 x 512 x 8 steps x 16 B = 0.5 MiB: 9.19 MiB) times 16 channels, what NCCL opens for a ring
  // inside an NVSwitch node. Per communicator: each parallel group (tp, cp, ep, dp, the
  // expert-data-parallel group, pp) of more than one rank has its own.
  double nccl_buffers = 16 * 9.1875 * 1024 * 1024;
  // A fraction of the GPU's memory kept free beyond the model (--memory-headroom): what the
  // allocator's fragmentation and what simgpt does not count may take.
  double headroom = 0;
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
  bool fp32_grads_with_bf16 = false; // under bf16, gradients accumulate and are reduced in fp32 (4 bytes
                                     // a parameter, in memory and on the wire): Megatron-LM's default
  bool ddp_buckets = false;      // with data parallelism, DistributedDataParallel's reducer keeps a flat
                                 // buffer per bucket, a copy of every gradient, from its construction on
  bool master_gradients = false; // a 16-bit model's fp32 master copy holds fp32 gradients of its own,
                                 // cast from the model's before the optimizer and kept from one step to
                                 // the next (4 bytes a parameter beside the 16-bit gradients)
  double logits_bytes = 8;       // bytes per logit element the loss holds at its peak: fp32 logits and
                                 // their gradient (8) for a fused cross-entropy; more when the softmax,
                                 // one-hot labels and products are materialised separately
  // The LM head's inputs, which autograd saves for its backward (the final norm's and the output
  // layer's), and that backward's working set (the input's gradient, under sequence parallelism the
  // input gathered again) counted beside the logits; false where logits_bytes was fitted to the
  // head's whole peak (XLA's buffer assignment: the alpa profile).
  bool head_saved = true;
  double loss_parallel_logits_bytes = 0; // the same where tensor parallelism shards the vocabulary and the
                                         // loss runs on the shards (PyTorch's loss_parallel); 0: logits_bytes
  // TransformerEngine with Megatron's fused weight-gradient accumulation (the wgrad GEMM adds into
  // main_grad) hands autograd a placeholder gradient per weight, kept in a cache by shape and dtype
  // from the first backward on (transformer_engine/pytorch/module/base.py, get_dummy_wgrad, called
  // from linear.py and layernorm_linear.py since TE 2.3 and from grouped_linear.py since 2.10): one
  // weight-sized tensor per distinct linear weight shape on the GPU. none: before TE 2.3, or without
  // TE (Megatron-LM's own layers make a fresh tensor that the gradient hook frees).
  enum class DummyWgrads { none, dense, dense_and_grouped };
  DummyWgrads dummy_wgrads = DummyWgrads::none;
};

// The parts of a step a framework captures as CUDA graphs (compute.cuda_graphs), each replayed
// with one host launch instead of one per kernel. Megatron-Core's scopes (megatron/core/
// transformer/transformer_config.py, cuda_graph_impl and cuda_graph_scope; transformer_layer.py):
// `attn` the attention block (norm, attention, bias-dropout-add), `mlp` a dense layer's MLP block,
// `moe_router` and `moe_preprocess` a MoE block up to its dispatch (norm, router, the token counts
// and the first permutation), `moe` the whole MoE block (dispatch, experts and combine: only with
// a fixed capacity, as its shapes must not change), `mamba` a Mamba mixer; a whole-layer graph
// (cuda_graph_impl local with no scope) is all of a layer's; `full_iteration` (full_cuda_graph.py)
// every micro-batch's forward and backward, embedding and loss included, the optimizer outside.
enum class GraphScope { attention, mlp, moe_router, moe, mamba, outside_layers, none };

struct CudaGraphs {
  bool attention = false, mlp = false, moe_router = false, moe = false, mamba = false, outside_layers = false;

  static CudaGraphs layers() { return {true, true, true, true, true, false}; }
  static CudaGraphs iteration() { return {true, true, true, true, true, true}; }
  bool captures(GraphScope scope) const {
    switch (scope) {
    case GraphScope::attention: return attention;
    case GraphScope::mlp: return mlp;
    case GraphScope::moe_router: return moe_router;
    case GraphScope::moe: return moe;
    case GraphScope::mamba: return mamba;
    case GraphScope::outside_layers: return outside_layers;
    case GraphScope::none: return false;
    }
    return false;
  }
};

struct Profile {
  std::string name;
  std::string file; // the profile file it was read from (load_profile); empty when built in C++
  std::string description;

  // Compute: how the framework turns a layer into kernels.
  int softmax_passes = 1;         // kernels over the attention scores: 1 fused scale-mask-softmax,
                                  // 2 scale then softmax, 3 scale, causal mask, softmax
  // When the fused softmax kernel can run (Megatron's FusedScaleMaskSoftmax.is_kernel_available):
  // 16-bit scores, a key length up to max_seq, and micro-batch x heads per GPU a multiple of
  // batch_multiple. Otherwise the framework falls back to `fallback_passes` kernels, in fp32 when
  // `fallback_fp32` (16-bit scores cast up before and back after). Unset: always the same kernels.
  struct FusedSoftmax {
    bool limited = false;
    int64_t max_seq = 0;
    int64_t batch_multiple = 1;
    int fallback_passes = 1;
    bool fallback_fp32 = false;
  } fused_softmax;
  bool dropout = true;            // the model runs dropout kernels (attention and hidden)
  bool fused_elementwise = false; // bias, dropout and residual fused (XLA) or one kernel each (eager)
  // Unfused attention whose heads are split by view and transpose ([b, s, heads, d] -> [b, heads,
  // s, d]): the copies a layer's forward makes of an activation-sized tensor so that the batched
  // matmuls can read it (queries, transposed keys, values, in that order) and of the output back to
  // [b, s, h] (.contiguous()); each copy's gradient is the inverse copy. 0: none (Megatron-LM's
  // core attention batches [s, b x heads, d] as it is and copies only its output, counted with it).
  int head_copies = 0;
  // fp8 training: the framework keeps each linear layer's weight and input in `precision` and casts
  // them to fp8 at every use, forward and backward (torchao's Float8Linear with dynamic scaling),
  // instead of caching the weights' fp8 copy for the step and saving the inputs in fp8
  // (TransformerEngine). Such casts work on gathered ZeRO-3 weights as on any others.
  bool fp8_recast_per_use = false;
  // The attention kernels the framework runs under model.attention flash: `flash2` (PyTorch's
  // scaled_dot_product_attention, whose flash backend is FlashAttention-2: priced at the GPU's
  // measured flash_attention_2 efficiencies where the catalog has them) or the default, a kernel
  // tiled as a large GEMM (TransformerEngine's cuDNN fused attention, FlashAttention-3).
  bool attention_flash2 = false;
  // What training.recompute: selective recomputes: the attention core (Megatron-LM's
  // --recompute-granularity selective; nothing under FlashAttention, which keeps no scores) or, by
  // torchtitan's op policy, every second matmul of a layer and all its elementwise ops
  // (`every_second_matmul`).
  bool selective_every_second_matmul = false;
  // Eager (not fused_elementwise): the norm and the rotary embedding run as PyTorch's chains of
  // fp32 elementwise kernels, the way torchtitan's model writes them (a cast up, each op, a cast
  // down), and SwiGLU as SiLU then the product; grouped-query attention repeats keys and values
  // to every query head (repeat_kv) before the attention kernel, compiled or not.
  bool eager_fp32_chains = false;
  // Ring attention (parallelism.cp with cp_comm_type p2p) as PyTorch's context parallelism runs it
  // (torch/distributed/tensor/experimental/_attention.py): each later step's partial output merged
  // into an fp32 running one by eager elementwise kernels (_SDPAMerger, convert_to_f32), and the
  // backward's query, key and value gradients accumulated in fp32, the key and value ones passed
  // on in fp32 (_templated_ring_attention_backward).
  bool ring_attention_fp32_merge = false;
  // The loss as TransformerEngine's fused cross-entropy runs it (Megatron's --cross-entropy-loss-fusion
  // with --cross-entropy-fusion-impl te: transformer_engine/pytorch/cross_entropy.py, parallel_cross_entropy,
  // and triton/cross_entropy.py): an online-softmax pass reads the 16-bit logits, a second reads them
  // again and writes the gradient into the logits' own buffer, which the backward scales in place. No
  // fp32 copy: the loss holds the logits alone, in the model's precision.
  bool te_cross_entropy = false;
  // How the framework runs a grouped GEMM (the experts' FFNs): `per_group`, TransformerEngine's
  // general_grouped_gemm, one cuBLAS GEMM a group from a host loop whose time a group is the GPU's
  // grouped_gemm_launch (Megatron-Core's TEGroupedMLP); or the default, `one_kernel` (torch's
  // _grouped_mm), which has no such loop.
  bool grouped_gemm_per_group = false;
  double op_overhead_s = 0;       // host time per kernel launch (Python dispatch); hidden when kernels are longer
  CudaGraphs cuda_graphs;          // the blocks captured as CUDA graphs: one host launch each, not one per kernel
  double microbatch_overhead_s = 0; // host synchronisation per micro-batch and pass, not overlapped
  // The optimizer's fp32 master copy and its update kept in CPU memory (DT-FM's --use-offload,
  // optimizer/optimizer.py Fp16Optimizer(offload=True); DeepSpeed's offload_optimizer): at each
  // step every gradient is copied down to the host, checked for overflow and applied there, and
  // every updated weight copied back up, all on the host's time and none on the GPU's memory.
  bool optimizer_offload = false;
  // The loop keeps fp32 master weights of its own beside the 16-bit model: every step it casts each
  // 16-bit gradient into its master's .grad (one kernel a parameter tensor, reading 2 bytes and
  // writing 4 a parameter) and copies the updated masters back (torch._foreach_copy_: 4 read, 2
  // written), around an optimizer that reads and writes only fp32.
  bool optimizer_master_casts = false;
  // The framework's passes over the gradients outside the optimizer's update (optimizer.grad_passes),
  // each a memory-bound pass at the gradient's element size: `zero_buffer`, the whole gradient
  // buffer zeroed at each step's start (written once); `dp_scale`, the buffer scaled by 1/dp in
  // place before its data-parallel reduction (read and written; none at dp 1); `nan_check`, the
  // buffer's norm taken before that reduction to look for NaN and Inf (read once); `clip_norm`, the
  // gradient norm that clipping takes over the gradients this GPU updates (read once, in fp32).
  struct GradPasses {
    bool zero_buffer = false;
    bool dp_scale = false;
    bool nan_check = false;
    bool clip_norm = false;
  } grad_passes;
  double offload_time_per_parameter_s = 0; // the host's time per parameter of that update
  bool recompute_last_micro_batch = true; // torchgpipe checkpoints every micro-batch but the last

  // How the framework divides layers among pipeline stages when the workload does not say:
  // uniform (Megatron, GPipe: the same count each) or balanced (Alpa clusters the forward into
  // layers of equal FLOPs, embedding and head included, and gives each stage whole clusters).
  Partition partition = Partition::uniform;
  // The interleaved schedule with as many micro-batches as stages: Megatron-LM runs every
  // forward first (forward_backward_pipelining_with_interleaving: num_microbatches ==
  // pipeline_parallel_size sets all_warmup_microbatches); torch.distributed.pipelining's
  // ScheduleInterleaved1F1B keeps its usual warm-up, (n_local_stages - 1) x pp + 2 (pp - 1 - rank)
  // forwards, and alternates after it.
  bool interleaved_all_warmup = true;

  // Point-to-point transfers between pipeline stages.
  std::string p2p_backend = "nccl";
  double bandwidth_efficiency = 1.0; // payload fraction of link bandwidth (headers, protocol)
  double tcp_window_bytes = 0;       // per-flow window (0: unlimited); rate <= window / round trip
  // The congestion window a point-to-point connection through a NIC (TCP) restarts from, over all
  // its sockets: sockets x Linux's 10 initial segments x the MSS (execution/replay's slow start).
  // 0: no slow start (not TCP, or not modelled).
  double tcp_initial_window_bytes = 0;
  bool p2p_blocking = false;         // the sender's compute stream waits for each send to complete
  double p2p_max_rate_Bps = 0;       // the backend's own throughput ceiling per transfer (0: none),
                                     // e.g. a CPU-bound socket protocol

  // Collectives (tensor- and data-parallel).
  double collective_step_overhead_s = 0; // per ring step beyond the route latency (kernel sync, protocol)
  // The collective library's own cost model (`collectives.library`, profiles/collectives/<name>.yaml):
  // when loaded, a collective's latency and protocol are NCCL's (execution/nccl_model) and the
  // step overhead is not added.
  NcclTuning nccl;
  bool dp_overlap = false;               // gradient all-reduce in buckets overlapped with backward (DDP)
  double dp_bucket_bytes = 25e6;         // gradient bucket size when overlapped
  // One data-parallel collective per parameter tensor, in the module's order, instead of one per
  // bucket (or one for the whole stage): every call pays the library's latency.
  bool dp_per_tensor = false;
  // The SMs the flex dispatchers' kernels hold while they run (DeepEP's and Hybrid-EP's): taken
  // from the computation that runs beside an overlapped all-to-all (parallelism.moe_a2a_overlap).
  int deepep_sms = 0, hybridep_sms = 0;
  // What each of those SMs moves a second (bytes each GPU sends through them): the dispatch and
  // combine kernels copy every token with the SMs they hold, so their exchange takes at least its
  // bytes over sms x this, whatever the links; 0: no such bound.
  double dispatch_sm_bandwidth = 0;
  // tp_comm_overlap: the SMs a reduce-scatter's overlap kernels hold (TransformerEngine's
  // userbuffers "pipeline" and "bulk" methods), which the GEMM beside it gives up; the all-gathers'
  // ring exchange runs on copy engines and holds none.
  int tp_overlap_sms = 0;

  // ZeRO-3 (FSDP): how many units (layers) ahead the weight all-gathers are issued, on the
  // data-parallel NCCL stream, while the current unit computes; 0: each gather blocks the compute
  // before its unit. FSDP's limit_all_gathers rate limiter allows 1 (the current and the next
  // unit's weights); DeepSpeed's stage3_prefetch_bucket_size allows as many layers as fit its bytes.
  int zero3_prefetch_layers = 1;
  // DeepSpeed counts its prefetch in parameter elements (stage3_prefetch_bucket_size): the layers
  // ahead are as many as that many elements reach, ceil(bucket / one layer's elements on a GPU).
  // 0: `zero3_prefetch_layers` applies.
  double zero3_prefetch_bucket_elements = 0;
  // ZeRO-3: whether a unit's gathered weights are freed after its forward and gathered again for
  // its backward (FSDP's FULL_SHARD, FSDP2's reshard_after_forward=True, DeepSpeed), never (kept
  // from the forward to the backward: FSDP2's reshard_after_forward=False), or unless the model is
  // pipelined (torchtitan: its pipeline schedules then keep each stage's weights gathered over all
  // the step's micro-batches).
  enum class Reshard { always, never, unless_pipelined };
  Reshard zero3_reshard_after_forward = Reshard::always;
  // ZeRO-3: whether every micro-batch's backward reduce-scatters each unit's gradients into the
  // shards (Megatron-FSDP's optim_grads_params: grad_reduce_every_bprop), not only the step's last.
  // The replay runs them; the closed-form estimate counts the last micro-batch's only.
  bool zero3_reduce_every_micro_batch = false;
  // ZeRO-3: whether the root unit's weights (those no wrapped block holds: the embedding, the final
  // norm and the output layer) stay gathered from the forward to the end of the backward, as both
  // PyTorch FSDPs keep them ("do not reshard after forward" for the root). Memory only: the replay
  // still gathers the output layer again for its backward, a gather of one unit.
  bool zero3_keep_root_gathered = false;
  // ZeRO-3: whether the compute stream copies each unit's gathered weights out of the all-gather's
  // buffer into its parameters (reading and writing them), and its gradients into the
  // reduce-scatter's buffer in the reduced type before it frees them: PyTorch FSDP2's
  // foreach_all_gather_copy_out and foreach_reduce_scatter_copy_in. Megatron-FSDP and DeepSpeed
  // gather into and reduce from the buffers the parameters and gradients live in.
  bool zero3_copies = false;

  MemoryProfile memory;

  // The schedules, ZeRO stages and kinds of parallelism the framework runs (default: all).
  FrameworkSupport supports;

  // Which parameters `simgpt calibrate` fits and from which validation rows.
  std::vector<std::string> fitted;
  std::vector<std::string> calibration_rows;
};

// Sets a fitted parameter by its key in the profile file ("compute.microbatch_overhead", in
// seconds); throws InputError at `where` (default: "--profile-set KEY", whence DataPaths'
// overrides come) for a key that cannot be fitted (not in framework/parameters.hpp) or a value
// that is not finite and within its range.
void set_profile_parameter(Profile& p, const std::string& key, double value, const std::string& where = "");
double get_profile_parameter(const Profile& p, const std::string& key);

// Names that become file names (profiles/<name>.yaml, platforms/<name>) or parts of an id
// ("table/row"): 1 to 64 letters, digits, '.', '_' or '-', and not "." or "..". Longer names
// fail as "File name too long", and '/' reaches outside the directory or splits an id.
inline constexpr size_t kMaxPlainNameChars = 64;
inline constexpr const char* kPlainNameRule = "1 to 64 letters, digits, '.', '_' or '-'";
bool is_plain_name(std::string_view name);

// Loads <name>.yaml from the first of the profile folders `dirs` that has it (DataPaths::profiles();
// its collectives/ tuning file likewise from the first that has it); throws InputError naming the
// profile and the known ones of all folders. `options` ("section.key" -> value) replace the
// file's entries, checked as the file's own are; `where` names them in messages.
Profile load_profile(const std::vector<std::string>& dirs, const std::string& name, const std::string& where,
                     const std::map<std::string, std::string>& options = {});

} // namespace simgpt
