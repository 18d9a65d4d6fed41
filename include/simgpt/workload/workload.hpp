// A training job as the user describes it in workload YAML: the model, the training
// settings, the execution plan and the network what-if. Loading validates every key.
#pragma once

#include "simgpt/core/enum_names.hpp"
#include "simgpt/workload/conditions.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simgpt {

enum class Precision { fp32, fp16, bf16 };
inline constexpr EnumName<Precision> kPrecisionNames[] = {
    {Precision::fp32, "fp32"}, {Precision::fp16, "fp16"}, {Precision::bf16, "bf16"}};
constexpr std::span<const EnumName<Precision>> enum_names(Precision) { return kPrecisionNames; }

// fp8 training as TransformerEngine runs it (Megatron-LM's --fp8-format): the transformer layers'
// linear GEMMs take fp8 inputs, the rest of the model keeps `precision`. e4m3 quantizes every
// tensor to E4M3; hybrid the forward's tensors to E4M3 and the backward's output gradients to
// E5M2 (transformer_engine/common/recipe/__init__.py, Format). Both run at the same tensor-core
// rate and store one byte an element: they differ in numerics, which simgpt does not model.
enum class Fp8Format { none, e4m3, hybrid };
inline constexpr EnumName<Fp8Format> kFp8FormatNames[] = {
    {Fp8Format::none, "none"}, {Fp8Format::e4m3, "e4m3"}, {Fp8Format::hybrid, "hybrid"}};
constexpr std::span<const EnumName<Fp8Format>> enum_names(Fp8Format) { return kFp8FormatNames; }

// How TransformerEngine scales a tensor into fp8 (Megatron-LM's --fp8-recipe, default delayed;
// megatron/core/fp8_utils.py, get_fp8_recipe): `delayed` takes the scale from the amax history of
// earlier iterations, the cast kernel recording this one's amax (DelayedScaling); `tensorwise`
// computes each tensor's amax first, a pass over it before the cast (Float8CurrentScaling);
// `mxfp8` scales each block of 32 consecutive values by its own power of two (MXFP8BlockScaling:
// E4M3 data, one E8M0 scale a block, no amax pass), each cast writing a row-wise and a
// column-wise copy, for Blackwell's block-scaled GEMMs (compute capability 10.0 and up); `nvfp4`
// runs the same GEMMs in 4-bit floats (Megatron-Core's --fp4-format e2m1 --fp4-recipe nvfp4,
// TransformerEngine's NVFP4BlockScaling: E2M1 data with an E4M3 scale per 16 values and one fp32
// scale a tensor, an amax pass first, the column-wise copies through a random Hadamard transform)
// at the GPU's fp4 peak; training.fp8 turns low precision on, its format unused.
enum class Fp8Recipe { delayed, tensorwise, mxfp8, nvfp4 };
inline constexpr EnumName<Fp8Recipe> kFp8RecipeNames[] = {{Fp8Recipe::delayed, "delayed"},
                                                          {Fp8Recipe::tensorwise, "tensorwise"},
                                                          {Fp8Recipe::mxfp8, "mxfp8"},
                                                          {Fp8Recipe::nvfp4, "nvfp4"}};
constexpr std::span<const EnumName<Fp8Recipe>> enum_names(Fp8Recipe) { return kFp8RecipeNames; }

enum class Recompute { none, full, selective };
inline constexpr EnumName<Recompute> kRecomputeNames[] = {
    {Recompute::none, "none"}, {Recompute::full, "full"}, {Recompute::selective, "selective"}};
constexpr std::span<const EnumName<Recompute>> enum_names(Recompute) { return kRecomputeNames; }

// What selective recompute reruns as Megatron-core names it (--recompute-modules; megatron/core/
// transformer/transformer_config.py, recompute_modules, default ["core_attn"]): the attention core,
// the dense MLP, the two norms, the experts' activation, latent attention's up projections and
// rotation (mla_up_proj), a whole MoE layer (moe: its router, dispatch, experts, combine and shared
// expert, all-to-alls included, rerun before its backward: megatron/core/transformer/moe/
// moe_layer.py, moe_layer_recompute). A bit each (RecomputeModules).
enum class RecomputeModule : unsigned { core_attn = 1, mlp = 2, layernorm = 4, moe_act = 8, mla_up_proj = 16, moe = 32 };
inline constexpr EnumName<RecomputeModule> kRecomputeModuleNames[] = {{RecomputeModule::core_attn, "core_attn"},
                                                                     {RecomputeModule::mlp, "mlp"},
                                                                     {RecomputeModule::layernorm, "layernorm"},
                                                                     {RecomputeModule::moe_act, "moe_act"},
                                                                     {RecomputeModule::mla_up_proj, "mla_up_proj"},
                                                                     {RecomputeModule::moe, "moe"}};
constexpr std::span<const EnumName<RecomputeModule>> enum_names(RecomputeModule) { return kRecomputeModuleNames; }

// sgd: plain SGD (PyTorch's default, no state); sgd_momentum: one fp32 momentum buffer per
// parameter (Megatron-LM's default --sgd-momentum 0.9).
enum class Optimizer { adam, sgd, sgd_momentum };
inline constexpr EnumName<Optimizer> kOptimizerNames[] = {
    {Optimizer::adam, "adam"}, {Optimizer::sgd, "sgd"}, {Optimizer::sgd_momentum, "sgd_momentum"}};
constexpr std::span<const EnumName<Optimizer>> enum_names(Optimizer) { return kOptimizerNames; }

enum class Head { lm, classifier };
inline constexpr EnumName<Head> kHeadNames[] = {{Head::lm, "lm"}, {Head::classifier, "classifier"}};
constexpr std::span<const EnumName<Head>> enum_names(Head) { return kHeadNames; }

// How the attention core runs: `standard` materialises the s x s scores, softmax and dropout mask in
// HBM (Megatron's core attention); `flash` is one fused tiled kernel that keeps them in on-chip SRAM
// and recomputes them in its backward (FlashAttention, Dao et al. 2022, arXiv 2205.14135;
// FlashAttention-2, Dao 2023, arXiv 2307.08691). Only fp16/bf16: FlashAttention has no fp32 kernels.
enum class Attention { standard, flash };
inline constexpr EnumName<Attention> kAttentionNames[] = {{Attention::standard, "standard"},
                                                         {Attention::flash, "flash"}};
constexpr std::span<const EnumName<Attention>> enum_names(Attention) { return kAttentionNames; }

// The MLP's activation: `gelu`, two projections (h -> ffn -> h); `swiglu`, a gated linear unit
// with a SiLU gate (Shazeer 2020, arXiv 2002.05202; Llama): a fused gate-and-up projection
// h -> 2 ffn, SiLU(gate) * up, then ffn -> h (Megatron-LM --swiglu); `quick_geglu`, the same gated
// unit with a quick-GELU gate, x sigmoid(1.702 x), times (up + 1) (GPT-OSS; Megatron-Core's
// quick_gelu activation with gated_linear_unit and glu_linear_offset 1, fused_bias_geglu.py);
// `squared_relu`, two projections with relu(x)^2 between (So et al. 2021, arXiv 2109.08668;
// NemotronH, Megatron-Core's squared_relu activation, megatron/core/activations.py).
enum class Mlp { gelu, swiglu, quick_geglu, squared_relu };
inline constexpr EnumName<Mlp> kMlpNames[] = {
    {Mlp::gelu, "gelu"}, {Mlp::swiglu, "swiglu"}, {Mlp::quick_geglu, "quick_geglu"}, {Mlp::squared_relu, "squared_relu"}};
constexpr std::span<const EnumName<Mlp>> enum_names(Mlp) { return kMlpNames; }

// The normalisation before each block and at the end: LayerNorm (a scale and a bias per
// channel) or RMSNorm (a scale only; Zhang and Sennrich 2019, arXiv 1910.07467; Llama).
enum class Norm { layernorm, rmsnorm };
inline constexpr EnumName<Norm> kNormNames[] = {{Norm::layernorm, "layernorm"}, {Norm::rmsnorm, "rmsnorm"}};
constexpr std::span<const EnumName<Norm>> enum_names(Norm) { return kNormNames; }

// Positions: a learned table added to the token embedding (GPT-2/3), or rotary embeddings applied
// to queries and keys in every layer (RoPE, Su et al. 2021, arXiv 2104.09864; Llama), no table;
// `yarn`, rotary embeddings with YaRN's frequencies and attention scale (Peng et al. 2023, arXiv
// 2309.00071; GPT-OSS), which Megatron-Core applies unfused (its scale is not 1: rope_utils.py);
// `none`, no position signal at all (NemotronH's position_embedding_type "none": its Mamba layers
// order the tokens).
enum class Position { learned, rope, yarn, none };
inline constexpr EnumName<Position> kPositionNames[] = {
    {Position::learned, "learned"}, {Position::rope, "rope"}, {Position::yarn, "yarn"}, {Position::none, "none"}};
constexpr std::span<const EnumName<Position>> enum_names(Position) { return kPositionNames; }

// How a MoE layer's tokens reach their experts (Megatron-Core's --moe-token-dispatcher-type and
// --moe-flex-dispatcher-backend, megatron/core/transformer/moe/token_dispatcher.py): alltoall
// permutes a copy of each token per chosen expert and exchanges them with NCCL's all-to-all;
// flex's deepep (DeepEP's normal kernels) and hybridep (NVIDIA's Hybrid-EP) send a token once to
// each GPU holding one of its experts, hybridep permuting inside its kernels.
enum class MoeDispatcher { alltoall, deepep, hybridep };
inline constexpr EnumName<MoeDispatcher> kMoeDispatcherNames[] = {
    {MoeDispatcher::alltoall, "alltoall"}, {MoeDispatcher::deepep, "deepep"}, {MoeDispatcher::hybridep, "hybridep"}};
constexpr std::span<const EnumName<MoeDispatcher>> enum_names(MoeDispatcher) { return kMoeDispatcherNames; }

enum class Schedule { gpipe, one_f_one_b, interleaved };
inline constexpr EnumName<Schedule> kScheduleNames[] = {
    {Schedule::gpipe, "gpipe"}, {Schedule::one_f_one_b, "1f1b"}, {Schedule::interleaved, "interleaved"}};
constexpr std::span<const EnumName<Schedule>> enum_names(Schedule) { return kScheduleNames; }

// How context-parallel ranks exchange attention's keys and values (Megatron-LM's --cp-comm-type,
// TransformerEngine's cp_comm_type): p2p passes K/V blocks round a ring (ring attention), a2a
// swaps the sequence split for a head split around the core (DeepSpeed-Ulysses), allgather gathers
// K/V whole, a2a+p2p nests the two.
enum class CpCommType { p2p, a2a, allgather, a2a_p2p };
inline constexpr EnumName<CpCommType> kCpCommTypeNames[] = {
    {CpCommType::p2p, "p2p"}, {CpCommType::a2a, "a2a"}, {CpCommType::allgather, "allgather"}, {CpCommType::a2a_p2p, "a2a+p2p"}};
constexpr std::span<const EnumName<CpCommType>> enum_names(CpCommType) { return kCpCommTypeNames; }

// How data-parallel replicas synchronise gradients: an all-reduce; a reduce-scatter (each replica
// updates its shard, then gathers the rest); a sharded parameter server (each replica owns a shard,
// gradients go to their owner and updated values come back, directly); a central parameter server
// (DT-FM's --dp-mode central_ps, data_parallel/dist_dp_central_ps.py: an NCCL reduce of the
// gradients to the first replica, an NCCL broadcast of the sum back, then every replica updates).
enum class DpAlgorithm { allreduce, reduce_scatter, parameter_server, central_ps };
inline constexpr EnumName<DpAlgorithm> kDpAlgorithmNames[] = {{DpAlgorithm::allreduce, "allreduce"},
                                                             {DpAlgorithm::reduce_scatter, "reduce_scatter"},
                                                             {DpAlgorithm::parameter_server, "parameter_server"},
                                                             {DpAlgorithm::central_ps, "central_ps"}};
constexpr std::span<const EnumName<DpAlgorithm>> enum_names(DpAlgorithm) { return kDpAlgorithmNames; }

// How layers are divided among pipeline stages: as the framework's profile says, the same number
// on every stage, cut where the stages' forward FLOPs (embedding and head included) balance, or a
// list the user gives.
enum class Partition { framework, uniform, balanced, listed };
// Only the partitions a workload or profile names: `framework` is the absence of a choice and
// `listed` is written as the list itself ("13,11").
inline constexpr EnumName<Partition> kPartitionNames[] = {{Partition::uniform, "uniform"},
                                                         {Partition::balanced, "balanced"}};
constexpr std::span<const EnumName<Partition>> enum_names(Partition) { return kPartitionNames; }

// A layer's symbol (ModelSpec::symbol): 'T' attention and MLP; a hybrid model's 'M' (Mamba), '*'
// (attention), '-' (dense MLP) and 'E' (MoE MLP), one block each, in kHybridSymbols' order.
inline constexpr std::string_view kHybridSymbols = "M*-E";
constexpr bool symbol_has_attention(char s) { return s == 'T' || s == '*'; }
constexpr bool symbol_has_mixer(char s) { return symbol_has_attention(s) || s == 'M'; }
constexpr bool symbol_has_mlp(char s) { return s == 'T' || s == '-' || s == 'E'; }

// What is computed: a GPT decoder stack (the model domain).
struct ModelSpec {
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t seq_len = 0;
  int64_t vocab = 0;
  int64_t ffn_hidden = 0; // 4 * hidden unless given; with swiglu, the gated unit's width
  Head head = Head::lm;
  bool tie_embeddings = true; // the LM head reuses the word embedding (Megatron, GPT-2); false: its own weights
  Attention attention = Attention::standard;
  Mlp mlp = Mlp::gelu;
  Norm norm = Norm::layernorm;
  Position position = Position::learned;
  bool bias = true; // the linear layers' biases (Megatron's --disable-bias-linear: false, as Llama)
  bool causal = true; // each token attends to those before it (a decoder); false: to all (BERT's encoder)
  // Key and value heads (grouped-query attention, Ainslie et al. 2023, arXiv 2305.13245; Megatron's
  // --num-query-groups): each serves heads / kv_heads query heads. 0: as many as heads (multi-head).
  int64_t kv_heads = 0;
  // Mixture of experts (Shazeer et al. 2017, arXiv 1701.06538; Mixtral, arXiv 2401.04088), as
  // Megatron-LM's MoE layer: each MoE layer's MLP is `experts` expert MLPs of width moe_ffn_hidden
  // (--num-experts, --moe-ffn-hidden-size), a router sending each token to `top_k` of them
  // (--moe-router-topk, default 2), and optionally a shared expert every token runs
  // (--moe-shared-expert-intermediate-size). The first `dense_layers` layers keep a dense MLP of
  // width ffn_hidden (DeepSeek's first_k_dense; Megatron's --moe-layer-freq [0]*k+[1]*n).
  // experts 0: a dense model.
  int64_t experts = 0;
  int64_t top_k = 2;
  bool top_k_given = false; // top_k was written in the workload (or --set): refused on a dense model
  int64_t moe_ffn_hidden = 0; // 0: ffn_hidden
  int64_t shared_expert_ffn_hidden = 0; // 0: no shared expert
  int64_t dense_layers = 0;
  // Each expert takes at most capacity_factor x its even share of the routed tokens, the rest
  // dropped (--moe-expert-capacity-factor); none: dropless (Megatron's default).
  std::optional<double> capacity_factor;
  // Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, section 2.1; Megatron-LM's
  // --multi-latent-attention, megatron/core/transformer/multi_latent_attention.py): queries from a
  // q_lora_rank-wide latent (0: projected from the hidden state directly, as DeepSeek-V2-Lite),
  // keys and values from a kv_lora_rank-wide latent, both latents RMS-normalised; each head's
  // query and key are qk_head_dim wide plus qk_pos_emb_head_dim rotary dimensions (the key's shared
  // by all heads), its value v_head_dim wide. parse_workload fills in Megatron's argument defaults
  // (kv_lora_rank 32, qk_head_dim 128, qk_pos_emb_head_dim 64, v_head_dim 128); 0 when not MLA.
  bool latent_attention = false;
  int64_t q_lora_rank = 0;
  int64_t kv_lora_rank = 0;
  int64_t qk_head_dim = 0;
  int64_t qk_pos_emb_head_dim = 0;
  int64_t v_head_dim = 0;

  // One head's width apart from hidden / heads (model.head_dim; Megatron-LM's --kv-channels, Qwen3's
  // 128 on hidden 4096 with 64 heads): queries are heads x head_dim wide, keys and values
  // kv_heads x head_dim, and the output projection maps heads x head_dim back to hidden. 0: hidden /
  // heads. Not under multi-head latent attention, which has its own widths.
  int64_t head_width = 0;
  // A norm (model.norm's kind) over each head's queries and keys before the core (Megatron-LM's
  // --qk-layernorm, megatron/core/transformer/attention.py, q_layernorm and k_layernorm of
  // hidden_size_per_attention_head; Qwen3): head_dim weights each, whole on every tensor rank.
  bool qk_layernorm = false;
  // Sliding-window attention (Beltagy et al. 2020, arXiv 2004.05150; Mistral, GPT-OSS): each query
  // attends to the `window` keys up to itself (Megatron-Core's window_size (window - 1, 0)); 0: all
  // before it. With full_attention_every n, layers n, 2n, ... (counted from 1) keep full attention
  // and the rest are windowed (Megatron-Core's window_attn_skip_freq,
  // megatron/core/transformer/utils.py, is_layer_window_attention); 0: every layer windowed.
  int64_t window = 0;
  int64_t full_attention_every = 0;
  // A learned sink logit per head in each softmax's denominator (GPT-OSS; Megatron-Core's
  // softmax_type learnable, TransformerEngine's softmax_offset): heads parameters a layer.
  bool attention_sinks = false;
  // The gated unit's inputs clamped to [-clamp, clamp] (the gate above only) before the activation
  // (Megatron-Core's activation_func_clamp_value; GPT-OSS's 7); 0: none.
  double activation_clamp = 0;

  // Multi-token prediction (DeepSeek-V3, arXiv 2412.19437, section 2.2; Megatron-Core's
  // --mtp-num-layers, megatron/core/transformer/multi_token_prediction.py): after the decoder, each
  // of `mtp_layers` modules embeds the tokens shifted once more, normalises that and the previous
  // hidden state, projects their concatenation 2h -> h (eh_proj), runs one more layer like the
  // model's last and the LM head again. On the last pipeline stage, with its own copy of the word
  // embedding when the model is pipelined. 0: none.
  int64_t mtp_layers = 0;
  // The modules share one module's weights, run mtp_layers times (Megatron-Core's
  // mtp_use_repeated_layer, multi_token_prediction.py: "only 1 layer is created and applied
  // mtp_num_layers times"; Nemotron 3 Super): one module's parameters, gradients and gathers.
  bool mtp_shared_layer = false;
  // Multi-token prediction layer i (indexed after the model's layers) holds weights of its own:
  // the first's where the modules share one.
  bool has_own_weights(int64_t i) const { return i < layers + (mtp_shared_layer ? 1 : mtp_layers); }

  // A hybrid model (Megatron-Core's hybrid stack, megatron/core/models/hybrid/: NemotronH, Nemotron
  // 3): each layer is one block with its own norm before it and residual after, named by a symbol
  // of `hybrid_pattern` (Megatron's --hybrid-layer-pattern, formerly --hybrid-override-pattern;
  // hybrid_layer_allocation.py): 'M' a Mamba-2 mixer, '*' self-attention, '-' a dense MLP, 'E' a
  // MoE MLP. Empty: every layer attention and MLP. Its length is `layers`.
  std::string hybrid_pattern;
  // The Mamba-2 mixer (Dao and Gu 2024, arXiv 2405.21060; megatron/core/ssm/mamba_mixer.py):
  // mamba_heads heads of mamba_head_dim channels (d_inner = heads x head_dim), each with a state of
  // mamba_state per channel, its B and C shared by the heads of each of mamba_groups groups
  // (--mamba-num-heads, --mamba-head-dim, --mamba-state-dim, --mamba-num-groups). parse_workload
  // fills in Megatron's defaults (head_dim 64, state 128, groups 8, heads 2 hidden / head_dim).
  int64_t mamba_heads = 0;
  int64_t mamba_head_dim = 0;
  int64_t mamba_state = 0;
  int64_t mamba_groups = 0;
  // Latent MoE (Megatron-Core's moe_latent_size, megatron/core/transformer/moe/moe_layer.py;
  // Nemotron 3 Super): tokens projected from hidden to moe_latent wide before the dispatch
  // (fc1_latent_proj, whole on every tensor rank), the routed experts moe_latent -> moe_ffn_hidden
  // -> moe_latent, and back to hidden after the combine (fc2_latent_proj); the router and the
  // shared expert see the hidden width. 0: none.
  int64_t moe_latent = 0;

  bool hybrid() const { return !hybrid_pattern.empty(); }
  // Layer i's symbol; 'T' (attention and MLP) where the model is not hybrid, and for the layers of
  // multi-token prediction's modules, indexed after the model's (mtp_layer_model).
  char symbol(int64_t i) const {
    return hybrid() && i >= 0 && static_cast<size_t>(i) < hybrid_pattern.size() ? hybrid_pattern[static_cast<size_t>(i)]
                                                                                  : 'T';
  }
  // Layer i (from 0) has a mixer (attention or Mamba) before its MLP, and an MLP (dense or MoE):
  // every layer of a model that is not hybrid has both.
  bool has_mixer(int64_t i) const { return symbol_has_mixer(symbol(i)); }
  bool has_mlp(int64_t i) const { return symbol_has_mlp(symbol(i)); }
  // A hybrid model's layers of one symbol.
  int64_t layers_of(char s) const { return static_cast<int64_t>(std::count(hybrid_pattern.begin(), hybrid_pattern.end(), s)); }
  bool is_mamba_layer(int64_t i) const { return symbol(i) == 'M'; }
  int64_t mamba_inner() const { return mamba_heads * mamba_head_dim; }
  // The experts' input and output width: the latent one, or hidden.
  int64_t expert_width() const { return moe_latent > 0 ? moe_latent : hidden; }

  int64_t query_groups() const { return kv_heads > 0 ? kv_heads : heads; }
  int64_t head_dim() const { return head_width > 0 ? head_width : hidden / heads; }
  int64_t q_hidden() const { return heads * head_dim(); } // width of Q, and of the heads' outputs
  int64_t kv_hidden() const { return query_groups() * head_dim(); } // width of K (and of V)
  // One head's query and key width, and its value width: hidden / heads, or MLA's own.
  int64_t qk_head_width() const { return latent_attention ? qk_head_dim + qk_pos_emb_head_dim : head_dim(); }
  int64_t v_head_width() const { return latent_attention ? v_head_dim : head_dim(); }
  bool moe() const { return experts > 0; }
  bool gated_mlp() const { return mlp == Mlp::swiglu || mlp == Mlp::quick_geglu; } // FC1 makes a gate and an up projection
  bool rotary() const { return position == Position::rope || position == Position::yarn; }
  // Layer i (from 0) attends within its window.
  bool is_windowed_layer(int64_t i) const {
    return window > 0 && (full_attention_every == 0 || (i + 1) % full_attention_every != 0);
  }
  int64_t expert_ffn() const { return moe_ffn_hidden > 0 ? moe_ffn_hidden : ffn_hidden; }
  int64_t moe_layers() const {
    if (hybrid())
      return layers_of('E');
    return moe() ? layers - dense_layers : 0;
  }
  // Layer i (from 0) has experts.
  // A hybrid model's multi-token prediction layers have experts where its last layer has.
  bool is_moe_layer(int64_t i) const {
    return hybrid() ? symbol(std::min(i, layers - 1)) == 'E' : moe() && i >= dense_layers;
  }
};

struct TrainingSpec {
  int64_t global_batch = 0;
  int64_t micro_batch = 1;
  Precision precision = Precision::fp16;
  Recompute recompute = Recompute::none;
  // With selective recompute, the modules rerun (RecomputeModule bits; 0: the framework's own
  // selective recompute, its profile's compute.selective_recompute).
  unsigned recompute_modules = 0;
  bool recomputes(RecomputeModule m) const {
    return recompute == Recompute::selective && (recompute_modules & static_cast<unsigned>(m)) != 0;
  }
  Optimizer optimizer = Optimizer::adam;
  Fp8Format fp8 = Fp8Format::none;
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;
  // fp8 parameters (Megatron's --fp8-param-gather, which sets fp8_param too: megatron/core/
  // distributed/distributed_data_parallel_config.py, "keep the compute param in fp8 ... and perform
  // the param all-gather in fp8"): the linear layers' weights are TransformerEngine's quantized
  // tensors themselves, built so by fp8_model_init, with no 16-bit copy beside them; the fp32
  // master weights stay with the optimizer, which writes each update into them.
  bool fp8_param_gather = false;
  // Activation offloading (Megatron's --cpu-offloading with --cpu-offloading-num-layers N, as
  // TransformerEngine's get_cpu_offload_context runs it for a TransformerBlock): the activations the
  // first N layers save for the backward are copied to the host's memory after each layer's
  // forward and back before its backward, on a stream of their own (transformer_engine/pytorch/
  // cpu_offload.py, DefaultOffloadSynchronizer, TransformerEngine 2.10 on). 0: none.
  int64_t cpu_offload_layers = 0;
  // What a report's time to train is for: the tokens to train on (0: not asked) and the price of
  // a GPU-hour (0: no cost reported). Neither changes the step.
  double tokens = 0;
  double gpu_hour_price = 0;
};

// How it is parallelized and scheduled (the execution domain).
struct ParallelismSpec {
  int64_t dp = 1;
  // The workload file left dp out: on a platform, dp is its GPUs (placement.gpus when given) over
  // tp x cp x pp, as Megatron-LM derives it from the world size (on_platform). Until then dp is 1
  // and the plan's consistency is not checked.
  bool dp_from_platform = false;
  bool dp_derived = false; // dp was derived so (on_platform): the report says so
  int64_t tp = 1;
  int64_t pp = 1;
  // Expert parallelism (Megatron's --expert-model-parallel-size): each MoE layer's experts are
  // split over ep data-parallel ranks, which exchange tokens by all-to-all.
  int64_t ep = 1;
  // Expert tensor parallelism (Megatron's --expert-tensor-parallel-size): the tensor ranks each
  // expert is split over. 0: tp (Megatron's default). 1 with tp > 1: experts whole on every GPU,
  // the expert-parallel group ep consecutive ranks that span the tensor ranks of ep / tp replicas
  // (megatron/core/parallel_state.py, the expert grid etp x ep x edp x pp), each GPU routing its own
  // sequence-parallel tokens without the tensor-parallel gather (MoEAlltoAllTokenDispatcher with
  // tp_size = etp). Other values are not modelled.
  int64_t etp = 0;
  int64_t expert_tp() const { return etp > 0 ? etp : tp; }
  // Context parallelism (Megatron's --context-parallel-size): each sequence split over cp ranks,
  // placed between tensor and data ranks (Megatron's order tp-cp-ep-dp-pp); they hold the same
  // weights, so gradients are reduced over dp x cp ranks.
  int64_t cp = 1;
  CpCommType cp_comm_type = CpCommType::p2p;
  Schedule schedule = Schedule::one_f_one_b;
  int64_t chunks = 1; // model chunks per stage, for the interleaved schedule
  // The step's micro-batches run as this many schedules one after another, the pipeline flushed
  // after each, the gradients accumulated over them (DT-FM's --gradient-accumulate-step: that many
  // GPipe rounds of --batch-size / --micro-batch-size micro-batches before the optimizer step).
  int64_t pipeline_flushes = 1;
  int64_t zero = 0;
  // ZeRO 1-2 (Megatron's distributed optimizer): the updated weights' all-gather is issued layer by
  // layer as the next step's forward reaches them, overlapped with it, instead of after the update
  // (Megatron-LM's --overlap-param-gather).
  bool overlap_param_gather = false;
  // With overlap_param_gather under the interleaved schedule: each model chunk's all-gathers issued
  // together, ahead of the chunk's first forward at the same point on every pipeline rank
  // (Megatron-LM's --align-param-gather: chunks 0 and 1 at the step's start, chunk c when the
  // rank's forward reaches virtual micro-batch (c - 1) x pp - its pipeline rank).
  bool align_param_gather = false;
  bool sequence_parallel = false;
  // Sequence parallelism's all-gathers and reduce-scatters split into tp chunks and overlapped with
  // the GEMM beside them (TransformerEngine's userbuffers, Megatron's --tp-comm-overlap; PyTorch's
  // async tensor parallelism, torchtitan's enable_async_tensor_parallel).
  bool tp_comm_overlap = false;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  // Megatron-Core's --overlap-moe-expert-parallel-comm with --delay-wgrad-compute (the "combined
  // 1F1B" schedule): one micro-batch's forward runs beside another's backward, each's expert
  // all-to-alls on a second stream under the other's computation.
  bool moe_a2a_overlap = false;
  DpAlgorithm dp_algorithm = DpAlgorithm::allreduce;
  Partition partition = Partition::framework;
  std::vector<int64_t> stage_layers; // layers per (virtual) stage when partition is listed
};

// `tc netem delay D rate R` on every node's outgoing inter-node interface.
struct NetworkWhatIf {
  std::optional<double> delay_s;
  std::optional<double> bandwidth_Bps;
};

// The order in which ranks fill GPUs, fastest-varying first: Megatron's default "tp-dp-pp" puts a
// tensor-parallel group on neighbouring GPUs, then data-parallel replicas, then stages.
enum class RankOrder { tp_dp_pp, tp_pp_dp, dp_tp_pp, pp_tp_dp };
inline constexpr EnumName<RankOrder> kRankOrderNames[] = {{RankOrder::tp_dp_pp, "tp-dp-pp"},
                                                         {RankOrder::tp_pp_dp, "tp-pp-dp"},
                                                         {RankOrder::dp_tp_pp, "dp-tp-pp"},
                                                         {RankOrder::pp_tp_dp, "pp-tp-dp"}};
constexpr std::span<const EnumName<RankOrder>> enum_names(RankOrder) { return kRankOrderNames; }

struct Placement {
  std::optional<int64_t> gpus; // how many of the platform's GPUs the job uses (first N hosts)
  // The platform's GPU the job's first rank runs on: the job takes GPUs first_gpu onwards (jobs
  // sharing a platform each on their own GPUs).
  int64_t first_gpu = 0;
  RankOrder order = RankOrder::tp_dp_pp;
};

// KEY=VALUE overrides in dotted form, applied after the file is read: "parallelism.pp=4".
using Overrides = std::vector<std::pair<std::string, std::string>>;

struct Workload {
  std::string source; // file the workload came from, for messages
  Overrides overrides; // the --set overrides applied over the file, in order
  ModelSpec model;
  TrainingSpec training;
  ParallelismSpec parallelism;
  std::string framework = "generic";
  // The run's own framework flags over its profile's defaults, by the profile's dotted keys:
  // {"compute.fused_elementwise": "false"} for Megatron's --no-bias-dropout-fusion.
  std::map<std::string, std::string> framework_options;
  Placement placement;
  NetworkWhatIf network;
  Conditions conditions; // slow GPUs and degraded links (conditions.hpp)

  // "dp*tp*pp = 8*4*2", with cp among them when there is context parallelism: how messages about
  // the GPU count show it.
  std::string gpu_product() const;
  int64_t gpus() const { return parallelism.dp * parallelism.cp * parallelism.tp * parallelism.pp; }
  int64_t micro_batches() const { return training.global_batch / (training.micro_batch * parallelism.dp); }
};

// The most framework_options a workload may set: a profile has a few dozen keys, so more is never
// valid, and each option is written into the profile's YAML tree, whose lookups are linear.
inline constexpr size_t kMaxFrameworkOptions = 1000;

// Parses "KEY=VALUE"; throws InputError naming the option.
std::pair<std::string, std::string> parse_override(const std::string& text);
// Each of `texts` parsed, in order.
Overrides parse_overrides(const std::vector<std::string>& texts);

// Throws InputError (naming `--set KEY` and the valid keys) unless `key` is one --set accepts.
void check_override_key(const std::string& key);

// Checks a workload as parse_workload checks a file's: every key's range and limit, then the
// plan's products and consistency. Throws InputError (LimitError past a documented limit) naming
// `source` (or "workload" when it is empty) and the key. simulate() calls it, so a Workload
// filled in C++ is held to the same rules as one read from YAML.
void check_workload(const Workload& workload);

// The workload as it runs on a platform of `platform_gpus` GPUs (placement.gpus of them when
// given): dp derived where the file left it out (ParallelismSpec::dp_from_platform), then checked
// whole. Throws InputError naming parallelism.dp when the GPUs are not a multiple of tp x cp x pp.
Workload on_platform(const Workload& workload, int64_t platform_gpus);

// Throws InputError naming parallelism.dp when the plan leaves some of the platform's GPUs idle
// without placement.gpus saying so: a job on part of a platform is asked for, never a silent
// default. simulate() checks it once the plan is made, so that the plan's own errors come first.
void check_gpus_used(const Workload& workload, int64_t platform_gpus);

// The workload as simulated, as a workload file: every section and key, defaults included, after
// the overrides (resolved_workload.hpp says which keys are left out and why). Read back, it is the
// same workload.
std::string workload_yaml(const Workload& workload);

// Reads and checks a workload file; throws InputError with the file, key and what is valid.
Workload load_workload(const std::string& path, const Overrides& overrides = {});
// Same, from YAML text (`source` names it in messages); past 256 KiB a LimitError.
Workload parse_workload(const std::string& yaml_text, const std::string& source, const Overrides& overrides = {});

} // namespace simgpt
