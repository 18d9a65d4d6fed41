#include "model/model.hpp"

#include "model/latent_attention.hpp"
#include "model/mamba.hpp"
#include "model/fp8.hpp"

#include <algorithm>
#include <cmath>

namespace simgpt {

double element_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }

double gradient_element_bytes(Precision p, bool fp32_grads_with_bf16) {
  return fp32_grads_with_bf16 && p == Precision::bf16 ? 4.0 : element_bytes(p);
}

namespace {

// An elementwise pass over `elements` values reading `reads` and writing `writes` tensors.
Kernel pass(double elements, double reads, double writes, double bytes_per_element) {
  return Kernel::memory(elements * (reads + writes) * bytes_per_element);
}

// The model's norm (LayerNorm or RMSNorm) over `elements` values: one pass, read and written.
Kernel norm_pass(const ModelSpec& m, double elements, double bytes_per_element) {
  Kernel k = pass(elements, 1, 1, bytes_per_element);
  k.op = m.norm == Norm::rmsnorm ? Kernel::Op::rmsnorm : Kernel::Op::layernorm;
  k.elements = elements;
  k.width = static_cast<double>(m.hidden);
  return k;
}

// FlashAttention's forward (Dao et al. 2022, arXiv 2205.14135, Algorithm 1; FlashAttention-2, Dao
// 2023, arXiv 2307.08691): one kernel computes softmax(Q K^T / sqrt(d)) V tile by tile in SRAM, so
// the scale, causal mask, softmax and dropout (its mask regenerated from the RNG state) touch no
// HBM. Its two matmuls are the standard core's Q K^T and P V FLOPs; it reads Q, K, V and writes O
// (O(b s h), not O(b a s^2)) and the fp32 logsumexp of each query row its backward needs.
//
// Under a causal mask FlashAttention-2 skips the key blocks wholly above the diagonal (Dao 2023,
// section 3.1.1, "Causal masking": about half the blocks for long sequences, its 1.7-1.8x): of the
// nb x nb tiles of 128 queries by 128 keys (its forward's block sizes on A100 and H100, section
// 3.3), nb (nb + 1) / 2 run. Key and value heads are read at their own number (grouped-query).
// Queries and keys are qk_dim wide, values and the output v_dim (multi-head latent attention's
// differ); the kernel's head dimension is their mean, which gives Q K^T's and P V's FLOPs.
//
// Under a sliding window of `window` keys (0: none) the kernel likewise runs only the key blocks
// that hold a key some query of the block sees (FlashAttention 2.3's local attention, flash-attn
// csrc/flash_attn/src/flash_fwd_kernel.h: n_block_min from the window's left edge; cuDNN's fused
// attention takes the window as a diagonal band, TransformerEngine's fused_attn_f16_arbitrary_seqlen.cu,
// set_diagonal_band_left_bound, and is taken to skip blocks alike): a query block of 128 reads the
// blocks from the one holding its first query's first key to its own, two for a window of 128.
double flash_block_fraction(double seq, bool causal, double window) {
  const double blocks = std::ceil(seq / 128);
  if (!causal)
    return 1;
  if (!(window > 0 && window < seq))
    return (blocks + 1) / (2 * blocks);
  double run = 0;
  for (double q = 0; q < blocks; ++q)
    run += q - std::floor(std::max(0.0, 128 * q - (window - 1)) / 128) + 1;
  return run / (blocks * blocks);
}

Kernel flash_attention_forward(double b, double heads, double groups, double seq, double qk_dim, double v_dim,
                               double E, bool causal, double window) {
  const double qkvo = b * (heads + groups) * seq * (qk_dim + v_dim) * E;
  const double logsumexp = 4 * b * heads * seq;
  const double run = flash_block_fraction(seq, causal, window);
  Kernel k = Kernel::attention(seq, seq, (qk_dim + v_dim) / 2, b * heads, 2 * run, qkvo + logsumexp);
  k.attention_shape = {.batch = b, .seq = seq, .heads = heads, .kv_heads = groups, .qk_dim = qk_dim, .v_dim = v_dim,
                       .causal = causal, .window = window};
  return k;
}

// torchtitan's RMSNorm run eagerly (torchtitan/models/norms.py, RMSNorm.forward at 9dec370:
// `self._norm(x.float()).type_as(x) * self.weight`, _norm = x * rsqrt(x.pow(2).mean(-1) + eps)):
// the cast up, pow, mean, the add and rsqrt of one value a token, the product, the cast down and
// the weight's product, each a kernel, over `elements` values of E bytes.
Kernels eager_rmsnorm(double elements, double E) {
  return {Kernel::memory(elements * (E + 4)), Kernel::memory(elements * 8),
          Kernel::memory(elements * 4), Kernel::memory(0), Kernel::memory(0), Kernel::memory(elements * 8),
          Kernel::memory(elements * (4 + E)), pass(elements, 1, 1, E)};
}

// torchtitan's rotary embedding run eagerly (torchtitan/models/llama/model.py, apply_rotary_emb):
// each of queries and keys cast to fp32 and viewed as complex, multiplied by the broadcast
// frequencies, viewed back and cast down: three kernels each.
Kernels eager_rope(double elements, double E) {
  return {Kernel::memory(elements * (E + 4)), Kernel::memory(elements * 8), Kernel::memory(elements * (4 + E))};
}

// Megatron-Core's unfused rotary embedding, which YaRN's attention scale takes (megatron/core/
// models/common/embeddings/rope_utils.py, apply_rotary_pos_emb: the fused kernels only with mscale
// 1; _apply_rotary_pos_emb_bshd), on queries and keys in turn: cos and sin of the [s, d] frequencies,
// each scaled and cast (small kernels), then t * cos + rotate_half(t) * sin, rotate_half a negation
// of one half and a concatenation, and the concatenation with the unrotated rest: six passes over
// `elements` values of queries and keys together.
Kernels unfused_scaled_rope(double elements, double table, double E) {
  Kernels k;
  for (int i = 0; i < 2; ++i) { // queries, keys
    for (int t = 0; t < 3; ++t) { // cos and sin: the function, the scale, the cast
      k.push_back(Kernel::memory(table * 8));
      k.push_back(Kernel::memory(table * 8));
    }
  }
  const double half = elements / 2; // each tensor's passes, over its share of the elements (summed)
  k.push_back(pass(half, 0.5, 0.5, E)); // -x2, for queries and keys
  k.push_back(pass(half, 1, 1, E));     // cat(-x2, x1)
  k.push_back(pass(half, 1, 1, E));     // t * cos
  k.push_back(pass(half, 1, 1, E));     // rotate_half(t) * sin
  k.push_back(pass(half, 2, 1, E));     // the sum
  k.push_back(pass(half, 1, 1, E));     // cat with the unrotated dimensions (none here)
  for (const Kernel& again : Kernels(k.end() - 6, k.end()))
    k.push_back(again); // the same six for the other tensor
  return k;
}

} // namespace

ModelSpec context_local(const ModelSpec& m, int64_t cp) {
  ModelSpec local = m;
  local.seq_len = m.seq_len / cp;
  return local;
}

bool recomputes_attention_core(const ModelSpec& m, Recompute recompute) {
  return recompute == Recompute::selective && m.attention == Attention::standard;
}

SelectiveRerun selective_rerun(const ModelSpec& m, const TrainingSpec& t, bool every_second_matmul_policy) {
  if (t.recompute != Recompute::selective)
    return SelectiveRerun::nothing;
  if (t.recompute_modules != 0)
    return SelectiveRerun::modules;
  if (every_second_matmul_policy)
    return SelectiveRerun::every_second_matmul;
  return recomputes_attention_core(m, t.recompute) ? SelectiveRerun::attention_core : SelectiveRerun::nothing;
}

Kernels attention_core_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double b = static_cast<double>(s.micro_batch), seq = static_cast<double>(m.seq_len);
  const double heads = static_cast<double>(m.heads) / static_cast<double>(s.tp);
  const double head_dim = static_cast<double>(m.head_dim());
  const double groups = static_cast<double>(m.query_groups()) / static_cast<double>(s.tp);
  // Q K^T over the queries' and keys' width, P V over the values' (multi-head latent attention:
  // qk_head_dim + qk_pos_emb_head_dim and v_head_dim; hidden / heads otherwise).
  const double qk_dim = static_cast<double>(m.qk_head_width()), v_dim = static_cast<double>(m.v_head_width());
  // Under context parallelism's all-to-all form (DeepSpeed-Ulysses, Jacobs et al. 2023, arXiv
  // 2309.14509; TransformerEngine's cp_comm_type a2a) each rank runs the whole sequence's attention
  // for heads / cp of its heads: 1/cp of the FLOPs, the causal blocks as without it.
  if (m.attention == Attention::flash) {
    const double cp = static_cast<double>(s.cp);
    Kernel core = flash_attention_forward(b, heads / cp, groups / cp, seq * cp, qk_dim, v_dim, E, m.causal,
                                          static_cast<double>(m.window));
    // Megatron-LM's SelfAttention splits queries, keys and values as views of the QKV projection's
    // output (megatron/core/transformer/attention.py, get_query_key_value_tensors); latent attention
    // concatenates them and makes the value contiguous (multi_latent_attention.py), and context
    // parallelism's all-to-all writes new tensors.
    core.attention_shape.qkv_contiguous = m.latent_attention || s.cp > 1;
    core.attention_shape.runs_whole = !(s.cp > 1 && s.cp_ring);
    return {core};
  }
  const double scores = b * heads * seq * seq; // attention matrix elements on this rank
  Kernels k;
  // The heads' layout copies (Profile::head_copies): queries, keys, values, then the output. A
  // permuting copy runs PyTorch's strided elementwise loop, not its vectorised one.
  const double copied[4] = {b * seq * heads * qk_dim, b * seq * groups * qk_dim, b * seq * groups * v_dim,
                            b * seq * heads * v_dim};
  const auto layout_copy = [&](double elements) {
    Kernel c = Kernel::memory(2 * elements * E);
    c.strided = true;
    c.op = Kernel::Op::layout_copy;
    // torch.matmul makes its operands contiguous itself; the output's .contiguous() is a Python call
    // but one the op count the host time was fitted with already held (profiles/pytorch.yaml).
    c.host_call = false;
    return c;
  };
  for (int i = 0; i < std::min(form.head_copies, 3); ++i)
    k.push_back(layout_copy(copied[i]));
  // Grouped-query attention: the unfused core repeats each key and value head for the query heads
  // it serves before the batched products (megatron/core/transformer/dot_product_attention.py).
  if (groups < heads)
    k.push_back(Kernel::memory(2 * b * seq * head_dim * (groups + heads) * E));
  k.push_back(Kernel::gemm(seq, seq, qk_dim, b * heads)); // Q K^T
  k.back().layout = Kernel::Layout::none;
  const double Es = form.softmax_fp32 ? 4.0 : E;
  if (Es != E)
    k.push_back(Kernel::memory(scores * (E + Es))); // cast the scores up
  for (int i = 0; i < form.softmax_passes; ++i) {
    k.push_back(pass(scores, 1, 1, Es)); // scale, causal mask and softmax, fused or one kernel each
    // Three kernels: the second fills the scores a [s, s] mask hides (masked_fill), the mask
    // broadcast over the batch and heads.
    k.back().strided = form.softmax_passes == 3 && i == 1;
  }
  if (Es != E)
    k.push_back(Kernel::memory(scores * (Es + E))); // and the probabilities back
  if (form.dropout)
    k.push_back(Kernel::memory(scores * (2 * E + 1))); // dropout: read, write, one-byte mask
  k.push_back(Kernel::gemm(seq, v_dim, seq, b * heads)); // P V
  k.back().layout = Kernel::Layout::none;
  if (form.head_copies > 3)
    k.push_back(layout_copy(copied[3]));
  return k;
}

namespace {

// Bias, dropout and residual add after a row-parallel GEMM, on `act` elements.
void add_epilogue(Kernels& k, double act, double E, const KernelForm& form, bool bias) {
  if (form.fused_elementwise) {
    k.push_back(Kernel::memory(act * (3 * E + (form.dropout ? 1 : 0))));
  } else {
    if (bias)
      k.push_back(pass(act, 1, 1, E)); // bias
    if (form.dropout)
      k.push_back(Kernel::memory(act * (2 * E + 1))); // dropout with its one-byte mask
    k.push_back(pass(act, 2, 1, E)); // residual add
  }
}

} // namespace

Kernels attention_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  const double h = static_cast<double>(m.hidden), tp = static_cast<double>(s.tp);
  const double act = tokens * h;                         // one full activation tensor
  const double local = s.sequence_parallel ? act / tp : act; // what this rank's elementwise work covers
  const double rows = s.sequence_parallel ? tokens / tp : tokens; // the tokens it holds
  // The heads' outputs: heads x v_head_width wide (h but under multi-head latent attention).
  const double out = static_cast<double>(m.heads * m.v_head_width()) / tp;
  Kernels k = layer_norm_forward(m, s, form); // layernorm (or RMSNorm) 1
  if (m.latent_attention) {
    // Down projections, latent norms, up projections and rotary dimensions (latent_attention.cpp);
    // MLA rotates its own qk_pos_emb_head_dim dimensions whatever model.position says.
    const Kernels qkv = latent_qkv_forward(m, s, form);
    k.insert(k.end(), qkv.begin(), qkv.end());
  } else {
    // Queries, keys and values: q_hidden + 2 kv_hidden wide (3h without grouped-query attention or
    // a head width of its own).
    const double q = static_cast<double>(m.q_hidden());
    const double qkv = (q + 2 * static_cast<double>(m.kv_hidden())) / tp;
    add_linear(k, form, E, tokens, qkv, h, 1, rows, tokens); // QKV projection (column parallel)
    k.push_back(pass(tokens * qkv, 1, 1, E));  // split heads: q, k, v to [b, a, s, d]
    const double rotated = tokens * (q + static_cast<double>(m.kv_hidden())) / tp;
    if (m.qk_layernorm) // each head's queries and keys normalised (one fused kernel each, TENorm)
      k.push_back(pass(rotated, 1, 1, E));
    if (m.position == Position::rope && form.eager_chains) {
      const Kernels rope = eager_rope(rotated, E);
      k.insert(k.end(), rope.begin(), rope.end());
    } else if (m.position == Position::rope) { // rotate queries and keys (megatron/core/models/common/embeddings/rope_utils.py)
      k.push_back(pass(rotated, 1, 1, E));
    } else if (m.position == Position::yarn) {
      const Kernels rope = unfused_scaled_rope(rotated, static_cast<double>(m.seq_len * m.head_dim()), E);
      k.insert(k.end(), rope.begin(), rope.end());
    }
    // torchtitan's Attention repeats each key and value head for the query heads it serves
    // (torchtitan/models/llama/model.py, repeat_kv: expand, then reshape into a copy) before
    // scaled_dot_product_attention.
    const double kv = static_cast<double>(m.kv_hidden()) / tp;
    if (form.repeat_kv && m.query_groups() < m.heads)
      k.push_back(Kernel::memory(2 * tokens * (kv + q / tp) * E));
  }
  Kernels core = attention_core_forward(m, s, form);
  k.insert(k.end(), core.begin(), core.end());
  k.push_back(pass(tokens * out, 1, 1, E));           // merge heads
  add_linear(k, form, E, tokens, h, out, 1, tokens, rows); // output projection (row parallel)
  add_epilogue(k, local, E, form, m.bias);
  return k;
}

// The layer's norm before the attention block or the MLP (either: they are alike), over the
// tokens this rank holds.
Kernels layer_norm_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double act = static_cast<double>(s.micro_batch * m.seq_len) * static_cast<double>(m.hidden);
  const double local = s.sequence_parallel ? act / static_cast<double>(s.tp) : act;
  if (form.eager_chains && m.norm == Norm::rmsnorm)
    return eager_rmsnorm(local, E);
  return {norm_pass(m, local, E)};
}

namespace {

// A gated unit's clamped inputs (model.activation_clamp; megatron/core/fusions/fused_bias_geglu.py,
// weighted_bias_quick_geglu_impl with clamp_value): the gate and the linear half each clamped, one
// kernel each, then concatenated again before the fused activation; `f` is the unit's output width
// x its rows.
void add_clamp(Kernels& k, const ModelSpec& m, double f, double E) {
  if (m.activation_clamp <= 0)
    return;
  k.push_back(pass(f, 1, 1, E));
  k.push_back(pass(f, 1, 1, E));
  k.push_back(pass(2 * f, 1, 1, E));
}

} // namespace

Kernels mlp_module_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  const double h = static_cast<double>(m.hidden), tp = static_cast<double>(s.tp);
  const double ffn = static_cast<double>(m.ffn_hidden) / tp;
  const double rows = s.sequence_parallel ? tokens / tp : tokens;
  Kernels k;
  if (m.gated_mlp()) {
    // Gate and up projections as one GEMM, then SiLU(gate) * up (megatron/core/transformer/mlp.py,
    // gated_linear_unit; bias_swiglu_impl fuses a bias in when there is one).
    add_linear(k, form, E, tokens, 2 * ffn, h, 1, rows, tokens); // FC1: gate and up (column parallel)
    add_clamp(k, m, tokens * ffn, E);
    if (form.eager_chains) { // F.silu(w1(x)) * w3(x): two kernels (torchtitan's FeedForward)
      k.push_back(pass(tokens * ffn, 1, 1, E));
      k.push_back(pass(tokens * ffn, 2, 1, E));
    } else {
      k.push_back(pass(tokens * ffn, 2, 1, E)); // SwiGLU
    }
  } else {
    add_linear(k, form, E, tokens, ffn, h, 1, rows, tokens); // FC1 (column parallel)
    k.push_back(pass(tokens * ffn, 1, 1, E));  // bias + GeLU
  }
  add_linear(k, form, E, tokens, h, ffn, 1, tokens, rows); // FC2 (row parallel)
  return k;
}

Kernels mlp_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double act = static_cast<double>(s.micro_batch * m.seq_len) * static_cast<double>(m.hidden);
  const double local = s.sequence_parallel ? act / static_cast<double>(s.tp) : act;
  Kernels k = layer_norm_forward(m, s, form); // layernorm (or RMSNorm) 2
  const Kernels mlp = mlp_module_forward(m, s, form);
  k.insert(k.end(), mlp.begin(), mlp.end());
  add_epilogue(k, local, E, form, m.bias);
  return k;
}

Kernels transformer_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  Kernels k = attention_block_forward(m, s, form);
  Kernels mlp = mlp_block_forward(m, s, form);
  k.insert(k.end(), mlp.begin(), mlp.end());
  return k;
}

namespace {

// The tokens whose copies an expert-parallel rank's group routes to its experts, per member: the
// whole sequence where the tensor ranks gather their sequence-parallel shares for experts split
// over them (etp = tp), a rank's own share where experts are whole (etp 1 with tp > 1).
double routing_tokens(const ModelSpec& m, const Shard& s) {
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  return s.expert_tp() < s.tp ? tokens / static_cast<double>(s.tp) : tokens;
}

} // namespace

double routed_tokens(const ModelSpec& m, const Shard& s) {
  const double tokens = routing_tokens(m, s);
  // Over the expert-parallel group, ep x tokens tokens (each tensor-parallel rank routes its
  // sequence-parallel share, gathered again over tp before the experts: Megatron's alltoall
  // dispatcher with expert tensor parallelism) send top_k copies each, an even 1/ep of them to
  // each rank's experts; a capacity factor below 1 drops the rest (megatron/core/transformer/moe/
  // moe_utils.py, get_capacity: capacity = tokens x top_k / experts x capacity_factor).
  const double kept = m.capacity_factor ? std::min(1.0, *m.capacity_factor) : 1.0;
  return tokens * static_cast<double>(m.top_k) * kept;
}

double expected_destinations(int64_t experts, int64_t top_k, int64_t ep) {
  // Top-k distinct experts drawn evenly from `experts`, experts / ep on each GPU: a GPU holds none
  // of them with probability C(experts - experts/ep, k) / C(experts, k).
  const double held = static_cast<double>(experts) / static_cast<double>(ep);
  double none = 1;
  for (int64_t i = 0; i < top_k; ++i)
    none *= std::max(0.0, (static_cast<double>(experts) - held - static_cast<double>(i)) /
                              (static_cast<double>(experts) - static_cast<double>(i)));
  return static_cast<double>(ep) * (1 - none);
}

double all_to_all_bytes(const ModelSpec& m, const Shard& s) {
  const double local = s.sequence_parallel ? 1.0 / static_cast<double>(s.tp) : 1.0;
  // The tokens as they travel: hidden wide, or the latent width (model.moe_latent: the dispatcher
  // takes hidden_dim = moe_latent_size, megatron/core/transformer/moe/moe_layer.py).
  const double E = element_bytes(s.precision), h = static_cast<double>(m.expert_width());
  // Each GPU sends the copies of its own tokens: a 1/tp share of routed_tokens where the tensor
  // ranks gather them after the exchange (etp = tp), all of them where it routes only its own.
  if (s.dispatcher == MoeDispatcher::alltoall)
    return routed_tokens(m, s) * (s.expert_tp() < s.tp ? 1.0 : local) * h * E;
  // DeepEP and Hybrid-EP send a token once to each GPU holding any of its experts (DeepEP's
  // get_dispatch_layout: is_token_in_rank per token and rank; Hybrid-EP's routing map per rank),
  // in bf16 either way (Megatron-Core's fused_a2a.py passes no fp8 tensor; Hybrid-EP asserts
  // not fp8_dispatch); the receiver expands it to its experts. A capacity factor drops copies as before.
  const double kept = m.capacity_factor ? std::min(1.0, *m.capacity_factor) : 1.0;
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  return tokens * expected_destinations(m.experts, m.top_k, s.ep) * kept * local * h * E;
}

MoeBlock moe_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  const double h = static_cast<double>(m.hidden), tp = static_cast<double>(s.tp);
  const double local = s.sequence_parallel ? tokens / tp : tokens; // the tokens this rank routes
  const double experts = static_cast<double>(m.experts), top_k = static_cast<double>(m.top_k);
  const bool swiglu = m.gated_mlp();
  MoeBlock b;
  b.before_dispatch.push_back(norm_pass(m, local * h, E)); // layernorm (or RMSNorm) 2
  // megatron/core/transformer/moe/router.py, TopKRouter: logits = hidden x [h, experts], then
  // softmax and top-k over fp32 scores (read the logits, write the probabilities and indices).
  b.before_dispatch.push_back(Kernel::gemm(local, experts, h));
  b.before_dispatch.push_back(pass(local * experts, 2, 2, 4.0));
  // Permute: each token copied once per chosen expert, grouped by expert (moe_utils.py, permute).
  // Hybrid-EP permutes inside its dispatch kernel (Megatron-Core's dispatch_with_permute); DeepEP
  // receives a token per GPU and Megatron permutes the received tokens to their experts after it
  // (MoEFlexTokenDispatcher.get_permuted_hidden_states_by_experts): as many copies either way.
  // Latent MoE (model.moe_latent): the tokens projected to the latent width before the dispatch
  // (fc1_latent_proj, a TELinear of parallel_mode "duplicated": whole on every tensor rank, on its
  // own tokens; megatron/core/transformer/moe/moe_layer.py); the experts then run in it.
  const double width = static_cast<double>(m.expert_width());
  if (m.moe_latent > 0)
    add_linear(b.before_dispatch, form, E, local, width, h, 1, local, local);
  if (s.dispatcher != MoeDispatcher::hybridep) {
    b.before_dispatch.push_back(pass(local * top_k * width, 1, 1, E));
    b.before_dispatch.back().op = Kernel::Op::moe_permute;
  }
  // The experts this GPU holds, as one grouped GEMM per projection (megatron/core/transformer/moe/
  // experts.py, TEGroupedMLP): experts / ep problems of routed / (experts / ep) rows each.
  const double held = experts / static_cast<double>(s.ep);
  double rows = routed_tokens(m, s) / held;
  // With a capacity factor each source rank sends an expert at most its capacity, a whole number of
  // tokens (moe_utils.py, get_capacity: ceil(tokens x top_k / experts x capacity_factor)), and
  // Megatron's --moe-pad-expert-input-to-capacity fills it; balanced routing reaches it: each
  // expert's GEMM runs ep x that many rows.
  if (m.capacity_factor)
    rows = static_cast<double>(s.ep) * std::ceil(routing_tokens(m, s) * top_k * std::min(1.0, *m.capacity_factor) / experts);
  const double f = static_cast<double>(m.expert_ffn()) / static_cast<double>(s.expert_tp());
  add_linear(b.experts, form, E, rows, swiglu ? 2 * f : f, width, held, rows, rows); // FC1 (gate and up)
  b.experts.back().grouped = true;
  add_clamp(b.experts, m, rows * held * f, E);
  b.experts.push_back(pass(rows * held * f, swiglu ? 2 : 1, 1, E));     // SwiGLU, GeLU or squared ReLU
  add_linear(b.experts, form, E, rows, width, f, held, rows, rows);              // FC2
  b.experts.back().grouped = true;
  if (m.bias) {
    // FC2's bias outside the grouped GEMM, each expert's rows plus its bias times their router
    // probabilities, then the experts' outputs concatenated (megatron/core/transformer/moe/
    // experts.py, TEGroupedMLP._apply_bias); FC1's is in its GEMM's epilogue.
    for (double e = 0; e < held; ++e)
      b.experts.push_back(pass(rows * width, 2, 2, E));
    b.experts.push_back(pass(rows * held * width, 1, 1, E));
  }
  // Unpermute: each copy scaled by its router probability and summed back into its token (in
  // Hybrid-EP's combine kernel with the flex dispatcher's hybridep backend).
  if (s.dispatcher != MoeDispatcher::hybridep) {
    b.after_combine.push_back(pass(local * top_k * width, 1, 1, E));
    b.after_combine.back().op = Kernel::Op::moe_permute;
  }
  if (m.moe_latent > 0) // back to hidden (fc2_latent_proj), before the shared expert's output is added
    add_linear(b.after_combine, form, E, local, h, width, 1, local, local);
  if (m.shared_expert_ffn_hidden > 0) {
    // The shared expert: a dense MLP every token runs (megatron/core/transformer/moe/shared_experts.py).
    const double sf = static_cast<double>(m.shared_expert_ffn_hidden) / tp;
    add_linear(b.after_combine, form, E, tokens, swiglu ? 2 * sf : sf, h, 1, local, tokens);
    b.after_combine.push_back(pass(tokens * sf, swiglu ? 2 : 1, 1, E));
    add_linear(b.after_combine, form, E, tokens, h, sf, 1, tokens, local);
    b.after_combine.push_back(pass(local * h, 2, 1, E)); // added to the routed experts' output
  }
  add_epilogue(b.after_combine, local, E, form, m.bias);
  return b;
}

Kernels moe_activation_forward(const ModelSpec& m, const Shard& s) {
  // The experts' block runs FC1 (grouped), the activation, FC2: the activation is the elementwise
  // kernels after the first grouped GEMM (a clamped unit's clamps and concatenation with it).
  const MoeBlock b = moe_block_forward(m, s, KernelForm{});
  Kernels act;
  for (size_t i = 0; i + 1 < b.experts.size(); ++i)
    if (b.experts[i].kind == Kernel::Kind::gemm && b.experts[i].grouped) {
      for (size_t j = i + 1; j < b.experts.size() && b.experts[j].kind == Kernel::Kind::memory; ++j)
        act.push_back(b.experts[j]);
      break;
    }
  return act;
}

Kernels mixer_block_forward(const ModelSpec& model, const Shard& s, const KernelForm& form, int64_t i) {
  if (!model.has_mixer(i))
    return {};
  if (model.is_mamba_layer(i))
    return mamba_block_forward(model, s, form);
  ModelSpec m = model;
  if (!model.is_windowed_layer(i))
    m.window = 0; // layer i attends to every key before each query
  return attention_block_forward(m, s, form);
}

ModelSpec mtp_layer_model(const ModelSpec& m) {
  ModelSpec t = m;
  if (m.hybrid()) {
    if (m.symbol(m.layers - 1) != 'E')
      t.experts = 0;
    t.hybrid_pattern.clear();
    t.dense_layers = 0;
  }
  return t;
}

Kernels mtp_layer_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const ModelSpec t = mtp_layer_model(m);
  return layer_forward(t, s, form, t.layers - 1);
}

Kernels layer_forward(const ModelSpec& m, const Shard& s, const KernelForm& form, int64_t i) {
  Kernels k = mixer_block_forward(m, s, form, i);
  if (!m.has_mlp(i))
    return k;
  if (!m.is_moe_layer(i)) {
    const Kernels mlp = mlp_block_forward(m, s, form);
    k.insert(k.end(), mlp.begin(), mlp.end());
    return k;
  }
  const MoeBlock b = moe_block_forward(m, s, form);
  for (const Kernels* part : {&b.before_dispatch, &b.experts, &b.after_combine})
    k.insert(k.end(), part->begin(), part->end());
  return k;
}

Kernels every_second_matmul_rerun(const ModelSpec& m, const Kernels& attention, const Kernels& mlp) {
  const double q = static_cast<double>(m.q_hidden()), kv = static_cast<double>(m.kv_hidden());
  // Per GEMM of the block in order, the part of it rerun: the key projection's share of QKV, the
  // output projection; the up projection's half of gate-and-up (SwiGLU) or FC2 (GeLU).
  const std::vector<double> attention_rerun = {kv / (q + 2 * kv), 1.0};
  const std::vector<double> mlp_rerun = m.gated_mlp() ? std::vector<double>{0.5, 0.0} : std::vector<double>{0.0, 1.0};
  Kernels rerun;
  const auto add = [&rerun](const Kernels& block, const std::vector<double>& gemm_parts) {
    size_t gemm = 0;
    for (const Kernel& k : block) {
      if (k.kind == Kernel::Kind::attention)
        continue; // saved
      if (k.kind != Kernel::Kind::gemm) {
        rerun.push_back(k); // elementwise, norms, casts: not in the save list
        continue;
      }
      const double part = gemm < gemm_parts.size() ? gemm_parts[gemm] : 0.0;
      ++gemm;
      if (part <= 0)
        continue;
      Kernel g = k;
      g.n *= part; // the rerun projection's columns of the fused GEMM
      rerun.push_back(g);
    }
  };
  add(attention, attention_rerun);
  add(mlp, mlp_rerun);
  return rerun;
}

Kernels backward_of(const Kernels& forward) {
  Kernels k;
  k.reserve(2 * forward.size());
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    if (it->rerun_in_backward) {
      k.push_back(*it);
      k.back().rerun_in_backward = false;
    }
    if (it->kind == Kernel::Kind::gemm) {
      // An fp8 GEMM's backward casts dC first; both its GEMMs then take fp8 operands (TE's
      // default fp8_wgrad; the weight's transposed copy and A's, saved by the forward's casts).
      if (it->fp8) {
        const Kernels cast = fp8_cast_kernels(it->grad_cast);
        k.insert(k.end(), cast.begin(), cast.end());
        if (it->backward_recast.elements > 0) {
          const Kernels recast = fp8_cast_kernels(it->backward_recast);
          k.insert(k.end(), recast.begin(), recast.end());
        }
      }
      const bool linear = it->layout != Kernel::Layout::none;
      Kernel data_grad = Kernel::gemm(it->m, it->k, it->n, it->batch); // dA = dC B^T
      // dB = A^T dC; a linear layer's weight gradient as cuBLAS runs it, [out x in] like the weight.
      Kernel weight_grad = linear ? Kernel::gemm(it->n, it->k, it->m, it->batch) : Kernel::gemm(it->k, it->n, it->m, it->batch);
      data_grad.layout = linear ? Kernel::Layout::NN : Kernel::Layout::none;
      weight_grad.layout = linear ? Kernel::Layout::NT : Kernel::Layout::none;
      for (Kernel* g : {&data_grad, &weight_grad}) {
        g->fp8 = it->fp8;
        g->fp4 = it->fp4;
        g->grouped = it->grouped;
        k.push_back(*g);
      }
    } else if (it->kind == Kernel::Kind::quantize) {
      continue; // a cast has no backward of its own
    } else if (it->kind == Kernel::Kind::attention) {
      // FlashAttention's backward recomputes S = Q K^T from Q, K and the logsumexp, then dV = P^T dO,
      // dP = dO V^T, dQ = dS K, dK = dS^T Q: five matmuls for the forward's two (Dao 2023, arXiv
      // 2307.08691, section 3.1.2: 2.5x the forward's matmul FLOPs). It reads Q, K, V, O, dO and the
      // logsumexp and writes dQ, dK, dV: about twice the forward's HBM bytes.
      k.push_back(Kernel::attention(it->m, it->n, it->k, it->batch, 2.5 * it->products, 2 * it->bytes));
      k.back().attention_shape = it->attention_shape;
      k.back().backward = true;
    } else {
      // An elementwise kernel's backward reads its output's gradient and its saved inputs and writes
      // their gradients: about twice its bytes. A permutation's is the inverse permutation of the
      // gradient (TransformerEngine's moe_permute backward runs the unpermute kernel and the
      // unpermute's the permute: transformer_engine/pytorch/permutation.py), the same bytes, as is
      // a layout copy's (the gradient copied back to the layout the forward's input had); the
      // fused cross-entropy's scales the gradient its forward wrote, in place (element_mul_kernel:
      // read and write 2 of the forward's 3 passes).
      const double bytes = it->op == Kernel::Op::moe_permute || it->op == Kernel::Op::layout_copy ? it->bytes
                           : it->op == Kernel::Op::te_cross_entropy ? it->bytes * 2 / 3
                                                                     : 2 * it->bytes;
      k.push_back(Kernel::memory(bytes));
      k.back().strided = it->strided; // a masked fill's gradient is the same fill of the gradient
      k.back().op = it->op;
      k.back().elements = it->elements;
      k.back().width = it->width;
      k.back().host_call = it->host_call; // autograd's engine launches it with the op it inverts
      k.back().backward = true;
    }
  }
  return k;
}

Kernels embedding_forward(const ModelSpec& m, const Shard& s) {
  const double E = element_bytes(s.precision);
  const double act = static_cast<double>(s.micro_batch * m.seq_len * m.hidden);
  // Token and position lookups, their sum, and embedding dropout; rotary positions (and none) have
  // no table.
  if (m.position != Position::learned)
    return {pass(act, 0, 1, E), Kernel::memory(act * (2 * E + 1))};
  return {pass(act, 0, 1, E), pass(act, 0, 1, E), pass(act, 2, 1, E), Kernel::memory(act * (2 * E + 1))};
}

Kernels head_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  const double h = static_cast<double>(m.hidden);
  Kernels k{norm_pass(m, tokens * h, E)}; // final layernorm
  if (m.head == Head::lm) {
    const double vocab = static_cast<double>(m.vocab) / static_cast<double>(s.tp);
    k.push_back(Kernel::gemm(tokens, vocab, h));
    if (form.te_cross_entropy) {
      // TransformerEngine's fused cross-entropy on the 16-bit logits: online_softmax_kernel reads
      // them, cross_entropy_kernel reads them again and writes the gradient in their place.
      k.push_back(pass(tokens * vocab, 2, 1, E));
      k.back().op = Kernel::Op::te_cross_entropy;
      k.back().elements = tokens * vocab;
    } else {
      // Softmax cross-entropy over fp32 logits: max, exp-sum and loss passes.
      k.push_back(pass(tokens * vocab, 3, 1, 4.0));
    }
  } else {
    // Classifier on the first token: pooler dense + tanh, then the class projection.
    const double b = static_cast<double>(s.micro_batch);
    k.push_back(Kernel::gemm(b, h, h));
    k.push_back(Kernel::gemm(b, 2, h));
  }
  return k;
}

Kernels mtp_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  const double h = static_cast<double>(m.hidden), tp = static_cast<double>(s.tp);
  const double rows = s.sequence_parallel ? tokens / tp : tokens;
  // megatron/core/transformer/multi_token_prediction.py, MultiTokenPredictionLayer: the shifted
  // tokens' embedding (the model's own, _get_embeddings), enorm and hnorm, their concatenation
  // [s, b, 2h], eh_proj (column parallel, 2h -> h, no bias), its output gathered whole over tp;
  // after the layer, its final layernorm and the LM head again (process_mtp_loss).
  Kernels k = embedding_forward(m, s);
  k.push_back(norm_pass(m, rows * h, E));
  k.push_back(norm_pass(m, rows * h, E));
  k.push_back(pass(rows * 2 * h, 1, 1, E));
  add_linear(k, form, E, tokens, h / tp, 2 * h, 1, rows, tokens);
  if (s.tp > 1)
    k.push_back(pass(tokens * h, 1, 1, E)); // gathered along the hidden dimension
  const Kernels head = head_forward(m, s, form);
  k.insert(k.end(), head.begin(), head.end());
  return k;
}

double mtp_parameters(const ModelSpec& m, int64_t tp) {
  const double h = static_cast<double>(m.hidden);
  const double norms = 3 * static_cast<double>(m.hidden) * (m.norm == Norm::layernorm ? 2 : 1);
  const double modules = m.mtp_shared_layer ? std::min<int64_t>(m.mtp_layers, 1) : m.mtp_layers;
  return modules * (2 * h * h / static_cast<double>(tp) + norms);
}

namespace {
double norm_parameters(const ModelSpec& m) {
  return static_cast<double>(m.hidden) * (m.norm == Norm::layernorm ? 2 : 1); // scale (and bias)
}
} // namespace

namespace {

// The attention block's weights and biases on one tensor-parallel rank: QKV column-parallel (its
// bias split), the projection row-parallel (its bias whole), and the block's norm. Multi-head latent
// attention has its own projections and latent norms (latent_attention.cpp), without biases, and
// an output projection from heads x v_head_dim.
double attention_parameters(const ModelSpec& m, double t) {
  const double h = static_cast<double>(m.hidden);
  const double bias = m.bias ? h : 0, norm = norm_parameters(m);
  if (m.latent_attention)
    return latent_qkv_parameters(m, t) + static_cast<double>(m.heads * m.v_head_dim) * h / t + bias + norm;
  const double q = static_cast<double>(m.q_hidden()), qkv = q + 2 * static_cast<double>(m.kv_hidden());
  // --qk-layernorm: a norm of head_dim weights (and biases, LayerNorm) for queries and one for keys.
  const double qk_norms = m.qk_layernorm ? 2 * static_cast<double>(m.head_dim()) * (m.norm == Norm::layernorm ? 2 : 1) : 0;
  // Attention sinks: a logit per head, split with the heads (TransformerEngine's softmax_offset).
  const double sinks = m.attention_sinks ? static_cast<double>(m.heads) : 0;
  return (qkv * h + q * h + (m.bias ? qkv : 0) + sinks) / t + bias + norm + qk_norms;
}

// An MLP of width f on one tensor-parallel rank: FC1 column-parallel (gate and up with SwiGLU, its
// bias split), FC2 row-parallel (its bias whole); no norm. `width`: its input and output (hidden,
// or a latent MoE's experts' latent width).
double mlp_parameters(const ModelSpec& m, double f, double t, double width = 0) {
  const double h = width > 0 ? width : static_cast<double>(m.hidden);
  const double up = m.gated_mlp() ? 2 * f : f; // FC1's output width
  return (up * h + f * h + (m.bias ? up : 0)) / t + (m.bias ? h : 0);
}

} // namespace

double layer_parameters(const ModelSpec& m, int64_t tp) {
  const double t = static_cast<double>(tp);
  return attention_parameters(m, t) + mlp_parameters(m, static_cast<double>(m.ffn_hidden), t) + norm_parameters(m);
}

double expert_parameters(const ModelSpec& m, int64_t tp, int64_t ep) {
  return static_cast<double>(m.experts / ep) * mlp_parameters(m, static_cast<double>(m.expert_ffn()), static_cast<double>(tp),
                                                               static_cast<double>(m.expert_width()));
}

namespace {

// A MoE MLP without its norm: the router, the shared expert, a latent MoE's two projections and the
// routed experts this GPU holds.
double moe_mlp_parameters(const ModelSpec& m, int64_t tp, int64_t ep, int64_t etp) {
  const double t = static_cast<double>(tp);
  // The router: a hidden x experts linear layer without bias, whole on every rank
  // (megatron/core/transformer/moe/router.py, Router.__init__).
  const double router = static_cast<double>(m.hidden) * static_cast<double>(m.experts);
  const double shared = m.shared_expert_ffn_hidden > 0
                            ? mlp_parameters(m, static_cast<double>(m.shared_expert_ffn_hidden), t)
                            : 0;
  // fc1_latent_proj and fc2_latent_proj, whole on every tensor rank (parallel_mode "duplicated").
  const double latent = 2 * static_cast<double>(m.hidden) * static_cast<double>(m.moe_latent);
  return router + shared + latent + expert_parameters(m, etp > 0 ? etp : tp, ep);
}

} // namespace

double moe_layer_parameters(const ModelSpec& m, int64_t tp, int64_t ep, int64_t etp) {
  return attention_parameters(m, static_cast<double>(tp)) + norm_parameters(m) + moe_mlp_parameters(m, tp, ep, etp);
}

double layer_parameters_at(const ModelSpec& m, int64_t tp, int64_t ep, int64_t i, int64_t etp) {
  if (m.symbol(i) == 'T')
    return m.is_moe_layer(i) ? moe_layer_parameters(m, tp, ep, etp) : layer_parameters(m, tp);
  // A hybrid model's layer: one block and its norm (the attention block counts its own).
  const double t = static_cast<double>(tp);
  switch (m.symbol(i)) {
  case 'M': return mamba_layer_parameters(m, tp);
  case '*': return attention_parameters(m, t);
  case '-': return mlp_parameters(m, static_cast<double>(m.ffn_hidden), t) + norm_parameters(m);
  default: return moe_mlp_parameters(m, tp, ep, etp) + norm_parameters(m);
  }
}

double active_parameters(const ModelSpec& m) {
  double total = total_parameters(m);
  if (m.moe()) // each token runs top_k of a MoE layer's experts
    total -= static_cast<double>(m.moe_layers() * (m.experts - m.top_k)) * expert_parameters(m, 1, m.experts);
  return total;
}

double embedding_parameters(const ModelSpec& m, int64_t tp) {
  const double h = static_cast<double>(m.hidden);
  const double positions = m.position == Position::learned ? static_cast<double>(m.seq_len) * h : 0;
  return static_cast<double>(m.vocab) * h / static_cast<double>(tp) + positions;
}

double head_parameters(const ModelSpec& m, int64_t tp) {
  const double h = static_cast<double>(m.hidden);
  // The LM head's final layernorm, and its own projection and bias (vocabulary-parallel) unless it
  // is tied to the word embedding; the classifier has a pooler and a projection.
  if (m.head == Head::lm)
    return norm_parameters(m) +
           (m.tie_embeddings ? 0.0 : static_cast<double>(m.vocab) * (h + (m.bias ? 1 : 0)) / static_cast<double>(tp));
  return norm_parameters(m) + h * h + h + 2 * h + 2;
}

namespace {

// A linear layer's weight and (when the model has biases) its bias.
void linear(std::vector<double>& tensors, const ModelSpec& m, double weight, double bias) {
  tensors.push_back(weight);
  if (m.bias)
    tensors.push_back(bias);
}

// A norm's scale and, for LayerNorm, its shift.
void norm(std::vector<double>& tensors, const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden);
  tensors.push_back(h);
  if (m.norm == Norm::layernorm)
    tensors.push_back(h);
}

} // namespace

std::vector<double> layer_parameter_tensors(const ModelSpec& m, int64_t tp) {
  if (m.latent_attention || m.moe())
    return {};
  const double t = static_cast<double>(tp), h = static_cast<double>(m.hidden);
  const double kv = static_cast<double>(m.kv_hidden()), f = static_cast<double>(m.ffn_hidden);
  const double q = static_cast<double>(m.q_hidden());
  const double up = m.gated_mlp() ? 2 * f : f;
  std::vector<double> tensors;
  // Column-parallel projections split weight and bias over tp; row-parallel ones keep the bias whole.
  linear(tensors, m, q * h / t, q / t);   // q
  linear(tensors, m, kv * h / t, kv / t); // v
  linear(tensors, m, kv * h / t, kv / t); // k
  if (m.qk_layernorm) {
    const double d = static_cast<double>(m.head_dim());
    for (int i = 0; i < 2; ++i) { // q_layernorm, k_layernorm
      tensors.push_back(d);
      if (m.norm == Norm::layernorm)
        tensors.push_back(d);
    }
  }
  linear(tensors, m, q * h / t, h);       // output projection
  linear(tensors, m, up * h / t, up / t); // FC1 (gate and up with SwiGLU)
  linear(tensors, m, f * h / t, h);       // FC2
  norm(tensors, m);
  norm(tensors, m);
  return tensors;
}

std::vector<double> embedding_parameter_tensors(const ModelSpec& m, int64_t tp) {
  std::vector<double> tensors{static_cast<double>(m.vocab * m.hidden) / static_cast<double>(tp)};
  if (m.position == Position::learned)
    tensors.push_back(static_cast<double>(m.seq_len * m.hidden));
  return tensors;
}

std::vector<double> head_parameter_tensors(const ModelSpec& m, int64_t tp) {
  const double h = static_cast<double>(m.hidden);
  std::vector<double> tensors;
  norm(tensors, m);
  if (m.head == Head::lm) {
    if (!m.tie_embeddings)
      linear(tensors, m, static_cast<double>(m.vocab) * h / static_cast<double>(tp), static_cast<double>(m.vocab) / static_cast<double>(tp));
    return tensors;
  }
  // The classifier: a pooler (hidden x hidden with its bias) and a two-class projection with its bias.
  tensors.insert(tensors.end(), {h * h, h, 2 * h, 2});
  return tensors;
}

double total_parameters(const ModelSpec& m) {
  if (m.hybrid()) {
    double layers = 0;
    for (int64_t i = 0; i < m.layers; ++i)
      layers += layer_parameters_at(m, 1, 1, i);
    return layers + embedding_parameters(m, 1) + head_parameters(m, 1);
  }
  const double dense = static_cast<double>(m.layers - m.moe_layers()) * layer_parameters(m, 1);
  const double moe = m.moe() ? static_cast<double>(m.moe_layers()) * moe_layer_parameters(m, 1, 1) : 0;
  return dense + moe + embedding_parameters(m, 1) + head_parameters(m, 1);
}

double sum_flops(const Kernels& ks) {
  double total = 0;
  for (const Kernel& k : ks)
    total += k.flops();
  return total;
}

namespace {

// One step's forward FLOPs as Megatron-LM counts them: the transformer layers (a causal core
// counted half) and the head, and of the layers the attention core alone.
struct ForwardFlops {
  double layers = 0;
  double core = 0; // the attention core (Q K^T, P V) as counted, part of `layers`
  double head = 0;
};

ForwardFlops forward_flops_per_step(const Workload& w) {
  const Shard whole{w.training.global_batch, 1, w.training.precision};
  const KernelForm form;
  // Counted on the standard core whatever runs it: FlashAttention's backward recomputes Q K^T
  // (2.5x its forward's matmuls, not 2x) and its causal kernel skips tiles, neither model FLOPs.
  ModelSpec counted = w.model;
  counted.attention = Attention::standard;
  // Dropless, as Megatron-LM counts a MoE layer (its num_floating_point_operations has no capacity).
  counted.capacity_factor.reset();
  ForwardFlops f;
  f.head = sum_flops(head_forward(counted, whole));
  // A causal mask leaves half of Q K^T and of P V useful: counted half, as Megatron-LM counts
  // them (megatron/training/training.py, num_floating_point_operations: "causal mask (only half
  // of the mask is non-zero)"); Narayanan et al. 2021's formula counted them whole.
  const double core = sum_flops(attention_core_forward(counted, whole, form));
  const double uncounted = w.model.causal ? core / 2 : 0;
  // A MoE layer's router GEMM (2 h experts per token) is counted, which Megatron-LM's formula
  // leaves out: Mixtral's router is 1e-5 of a layer's FLOPs.
  double attention_layers = static_cast<double>(w.model.layers);
  if (w.model.hybrid()) {
    // Each kind of layer once, times its count (a pattern may be long).
    attention_layers = 0;
    for (const char symbol : kHybridSymbols) {
      const size_t first = w.model.hybrid_pattern.find(symbol);
      if (first == std::string::npos)
        continue;
      const double count = static_cast<double>(w.model.layers_of(symbol));
      f.layers += count * sum_flops(layer_forward(counted, whole, form, static_cast<int64_t>(first)));
      if (symbol == '*')
        attention_layers = count;
    }
  } else {
    const int64_t moe_layers = w.model.moe_layers();
    f.layers = static_cast<double>(w.model.layers - moe_layers) * sum_flops(transformer_forward(counted, whole, form));
    if (moe_layers > 0)
      f.layers += static_cast<double>(moe_layers) * sum_flops(layer_forward(counted, whole, form, w.model.layers - 1));
  }
  // Multi-token prediction, as Megatron-LM counts it (num_floating_point_operations: the modules'
  // layers as the model's last, eh_proj's 2h x h, the logits once more each).
  const double mtp = static_cast<double>(w.model.mtp_layers);
  const double tokens = static_cast<double>(w.training.global_batch * w.model.seq_len);
  const double h = static_cast<double>(w.model.hidden);
  if (mtp > 0)
    f.layers += mtp * (sum_flops(mtp_layer_forward(counted, whole, form)) + 2 * tokens * 2 * h * h);
  f.head *= 1 + mtp;
  const double cores = attention_layers + mtp;
  f.layers -= cores * uncounted;
  f.core = cores * (core - uncounted);
  return f;
}

} // namespace

double model_flops_per_step(const Workload& w) {
  const ForwardFlops f = forward_flops_per_step(w);
  // Forward plus backward (twice the forward GEMM FLOPs).
  return 3 * (f.layers + f.head);
}

double hardware_flops_per_step(const Workload& w) {
  const ForwardFlops f = forward_flops_per_step(w);
  // Recompute runs a layer's forward again in its backward: every layer's (full, Megatron's
  // --recompute-granularity full) or the attention core's (selective: Korthikanti et al. 2022,
  // arXiv 2205.05198, section 4.2), as Megatron-LM's hardware-FLOPs utilisation counts it.
  const double model = 3 * (f.layers + f.head);
  switch (w.training.recompute) {
  case Recompute::full: return model + f.layers;
  case Recompute::selective: return model + f.core;
  case Recompute::none: break;
  }
  return model;
}

} // namespace simgpt
