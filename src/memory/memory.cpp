#include "simgpt/memory/memory.hpp"

#include "model/model.hpp"
#include "model/mamba.hpp"

#include <algorithm>

namespace simgpt {
namespace {

// What an MLP block keeps for its backward, per token (layer_activation_bytes' MLP terms): its
// saved tensors of ffn width (FC1's output and GeLU's, 2 ffn, or the gate-and-up output and
// SwiGLU's, 3 ffn; split over tensor ranks) and FC2's inputs among them; a MoE block's for top_k
// routed copies and the shared expert, and beside them, not split the dense way, the experts'
// inputs and the router's fp32 probabilities (`router_bytes`).
struct MlpSaved {
  double saved = 0, fc2_inputs = 0, expert_inputs = 0, router_bytes = 0;
};

MlpSaved mlp_saved_widths(const ModelSpec& m, double t, bool sequence_parallel, bool experts, bool own_tokens_routed) {
  // A clamped gated unit (model.activation_clamp) keeps both: the clamps' input (FC1's output) and
  // the concatenation the activation reads (fused_bias_geglu.py, weighted_bias_quick_geglu_impl).
  const double clamped = m.activation_clamp > 0 ? 2 : 0;
  const auto saved = [&m, clamped](double f) { return m.gated_mlp() ? (3 + clamped) * f : 2 * f; };
  if (!experts)
    return {saved(static_cast<double>(m.ffn_hidden)), static_cast<double>(m.ffn_hidden)};
  const double k = static_cast<double>(m.top_k), routed = m.capacity_factor ? std::min(1.0, *m.capacity_factor) : 1.0;
  const double fe = static_cast<double>(m.expert_ffn()), shared = static_cast<double>(m.shared_expert_ffn_hidden);
  MlpSaved w{k * routed * saved(fe) + saved(shared), k * routed * fe + shared};
  // The experts' inputs at their width (a latent MoE's: model.moe_latent), and the latent
  // projection back's input, one a token.
  w.expert_inputs = k * routed * static_cast<double>(m.expert_width()) + static_cast<double>(m.moe_latent);
  // Experts whole beside tp > 1 (parallelism.etp 1): a GPU routes only its own tokens.
  if (own_tokens_routed)
    w.expert_inputs /= t;
  w.router_bytes = 2 * 4 * static_cast<double>(m.experts) / (sequence_parallel ? t : 1);
  return w;
}

} // namespace

double layer_activation_bytes(const ModelSpec& m, int64_t micro_batch, int64_t tp, bool sequence_parallel,
                              Recompute recompute, Precision precision, bool dropout, double recompute_kept,
                              double replicated_kept, bool softmax_fp32, bool experts, bool fp8,
                              double quantized_bytes, char symbol, bool own_tokens_routed) {
  const double E = element_bytes(precision);
  const double s = static_cast<double>(m.seq_len), b = static_cast<double>(micro_batch);
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads);
  const double t = static_cast<double>(tp);
  const double d = dropout ? 1 : 0;
  const double sbh = s * b * h;
  if (recompute == Recompute::full)
    return recompute_kept * E * sbh / (sequence_parallel ? t : 1);
  // A hybrid model's layer is one block (model.hybrid_pattern): half of a layer's replicated
  // tensors (its norm's input and its first projection's), one dropout mask.
  const bool attention = symbol_has_attention(symbol), mlp = symbol_has_mlp(symbol);
  const double blocks = symbol == 'T' ? 2 : 1;
  // Layernorm inputs, QKV and FC1 inputs and the two dropout masks are replicated across tensor
  // ranks unless sequence parallelism splits them.
  double replicated = (replicated_kept * E + 2 * d) * blocks / 2;
  if (symbol == 'M') {
    // A Mamba layer (model/mamba.hpp): its projection's output, the scan's output (the gated norm's
    // input) and the norm's (the output projection's input), split over tensor ranks; under fp8 the
    // two projections' inputs in one byte (TE's saved copies).
    double split = E * mamba_saved_width(m, tp) * s * b;
    if (fp8) {
      const double saved_less = E - quantized_bytes;
      replicated -= saved_less;
      split -= saved_less * static_cast<double>(m.mamba_inner()) / t * s * b;
    }
    return sbh * (sequence_parallel ? replicated / t : replicated) + split;
  }
  // Split across tensor ranks (Korthikanti et al. 2022, arXiv 2205.05198, section 4.1: 24 sbh / t
  // in 16 bits for a GPT layer): Q, K and V for the scores and their product (K and V repeated to
  // every query head by the unfused core under grouped-query attention, kept at their own width by
  // FlashAttention), the output projection's input, and the MLP's saved tensors: FC1's output and
  // GeLU's (2 ffn), or the gate-and-up output and SwiGLU's (3 ffn).
  const double q = static_cast<double>(m.q_hidden());
  const double kv = m.attention == Attention::flash ? static_cast<double>(m.kv_hidden()) : q;
  const MlpSaved widths = mlp ? mlp_saved_widths(m, t, sequence_parallel, experts, own_tokens_routed) : MlpSaved{};
  const double mlp_saved = widths.saved, fc2_inputs = widths.fc2_inputs; // per token
  const double expert_inputs = widths.expert_inputs; // per token: the experts' FC1 inputs
  const double moe_kept = widths.router_bytes + E * expert_inputs; // per token, bytes not split the dense way
  // Q, K and V as the core takes them and the output projection's input, per token; with
  // --qk-layernorm also the queries and keys the norms read (their backward's input).
  double attention_saved = attention ? q + 2 * kv + q : 0;
  if (m.qk_layernorm && attention)
    attention_saved += q + static_cast<double>(m.kv_hidden());
  if (m.latent_attention && attention) {
    // Multi-head latent attention (megatron/core/transformer/multi_latent_attention.py): the core
    // keeps queries and keys of heads x (qk_head_dim + qk_pos_emb_head_dim), values of heads x
    // v_head_dim, at their own width whether FlashAttention runs it or not (each head has its own
    // key and value), and the output projection heads x v_head_dim. The up projections keep their
    // latent inputs and the latent norms theirs (q_lora_rank and kv_lora_rank, twice each), on the
    // tokens the duplicated down projections ran on: replicated across tensor ranks unless sequence
    // parallelism splits them. With q_lora_rank 0 the query projection reads the layer norm's
    // output, kept already.
    const double n = static_cast<double>(m.heads), qk = static_cast<double>(m.qk_head_width());
    const double v = static_cast<double>(m.v_head_dim);
    attention_saved = n * (2 * qk + 2 * v);
    replicated += 2 * E * static_cast<double>(m.q_lora_rank + m.kv_lora_rank) / h;
  }
  const double split = E * (attention_saved + mlp_saved) / (h * t);
  double bytes = sbh * ((sequence_parallel ? replicated / t : replicated) + split) + s * b * moe_kept;
  if (fp8) {
    // The linear layers' inputs in one byte instead of E (TransformerEngine saves the fp8 copy,
    // transformer_engine/pytorch/module/linear.py and layernorm_linear.py: saved_inputmat /
    // ln_out keep only the column-wise fp8 data the wgrad GEMM reads; grouped_linear.py likewise).
    // FlashAttention's backward reads its output O (Dao et al. 2022, arXiv 2205.14135, Algorithm
    // 2), kept in E bytes, so the output projection's fp8 copy comes beside it; the standard core's
    // backward reads P and V, not its output, which is then kept in fp8 alone.
    const double saved_less = E - quantized_bytes;
    const double replicated_less = blocks * saved_less; // QKV's and FC1's inputs, the norms' outputs
    const double projection = !attention ? 0 : m.attention == Attention::flash ? 1 : -saved_less;
    bytes += sbh * (-(sequence_parallel ? replicated_less / t : replicated_less) +
                    (projection * h - saved_less * fc2_inputs) / (h * t)) -
             s * b * saved_less * expert_inputs;
  }
  // FlashAttention keeps Q, K, V and O (among the s b h terms above) and, instead of the scores,
  // softmax output and dropout mask, the fp32 logsumexp of each query row and head that its
  // backward recomputes the scores from (Dao et al. 2022, arXiv 2205.14135, section 3.1; Dao 2023,
  // arXiv 2307.08691, section 3.1.2). Selective recompute then has nothing more to drop.
  if (!attention)
    return bytes;
  if (m.attention == Attention::flash)
    return bytes + 4 * b * a * s / t;
  // Scores: the softmax output its backward needs, the input of the product with V (dropout's
  // output, or a 16-bit copy of fp32 probabilities) and dropout's one-byte mask.
  const double Es = softmax_fp32 ? 4.0 : E;
  if (recompute == Recompute::none)
    bytes += a * s * s * b * (Es + (d > 0 || Es != E ? E : 0) + d) / t;
  return bytes;
}

double recompute_modules_freed_bytes(const ModelSpec& m, int64_t micro_batch, int64_t tp, bool sequence_parallel,
                                     Precision precision, bool experts, bool fp8, unsigned modules,
                                     double quantized_bytes, char symbol, bool own_tokens_routed) {
  const bool attention = symbol_has_attention(symbol), dense_mlp = symbol_has_mlp(symbol) && symbol != 'E';
  const double norms = symbol == 'T' ? 2 : 1;
  const double E = element_bytes(precision);
  const double sb = static_cast<double>(micro_batch * m.seq_len), t = static_cast<double>(tp);
  const double h = static_cast<double>(m.hidden);
  const auto has = [modules](RecomputeModule r) { return (modules & static_cast<unsigned>(r)) != 0; };
  double freed = 0;
  if (has(RecomputeModule::core_attn) && m.attention == Attention::flash && attention)
    freed += 4 * static_cast<double>(micro_batch * m.heads) * static_cast<double>(m.seq_len) / t;
  if (has(RecomputeModule::layernorm)) // the two norms' outputs, the QKV and FC1 inputs (fp8: TE's copies)
    freed += norms * (fp8 ? quantized_bytes : E) * sb * h / (sequence_parallel ? t : 1);
  const double f = static_cast<double>(m.ffn_hidden);
  // A clamped unit's concatenated input to the activation is kept inside what is recomputed.
  const double clamped = m.activation_clamp > 0 ? 2 : 0;
  if (has(RecomputeModule::mlp) && !experts && dense_mlp) // FC1's output and the activation's (FC2's input, fp8: 1 byte)
    freed += sb * ((m.gated_mlp() ? (2 + clamped) * f : f) * E + f * (fp8 ? quantized_bytes : E)) / t;
  if (has(RecomputeModule::mla_up_proj) && m.latent_attention && attention) {
    // Q, K and V as the core takes them (heads x (2 (qk_head_dim + qk_pos_emb_head_dim) +
    // v_head_dim)), rebuilt before the core's backward, and the up projections' normed latent
    // inputs: the checkpoint keeps only the latents before their norms (multi_latent_attention.py,
    // qkv_up_proj_and_rope_apply under CheckpointWithoutOutput).
    const double n = static_cast<double>(m.heads), qk = static_cast<double>(m.qk_head_width());
    freed += sb * E * n * (2 * qk + static_cast<double>(m.v_head_dim)) / t;
    freed += sb * E * static_cast<double>(m.q_lora_rank + m.kv_lora_rank) / (sequence_parallel ? t : 1);
  }
  if (has(RecomputeModule::moe) && experts) {
    // The checkpointed MoE layer keeps its input alone (megatron/core/transformer/moe/moe_layer.py,
    // moe_layer_recompute): the experts' and the shared expert's saved tensors, the routed copies of
    // the tokens and the router's fp32 probabilities come off (layer_activation_bytes' MoE terms).
    const MlpSaved w = mlp_saved_widths(m, t, sequence_parallel, true, own_tokens_routed);
    const double q = fp8 ? E - quantized_bytes : 0; // what a saved fp8 input is less
    freed += sb * (E * w.saved - q * w.fc2_inputs) / t;
    freed += sb * (w.router_bytes + (E - q) * w.expert_inputs);
    return freed; // moe_act's are among them
  }
  if (has(RecomputeModule::moe_act) && experts) {
    const double k = static_cast<double>(m.top_k), routed = m.capacity_factor ? std::min(1.0, *m.capacity_factor) : 1.0;
    const double fe = static_cast<double>(m.expert_ffn());
    freed += sb * k * routed * (fe * (fp8 ? quantized_bytes : E) + clamped * fe * E) / t;
  }
  return freed;
}

double every_second_matmul_kept_bytes(const ModelSpec& m, int64_t micro_batch, int64_t tp, bool sequence_parallel,
                                      Precision precision) {
  const double E = element_bytes(precision);
  const double tokens = static_cast<double>(micro_batch * m.seq_len);
  const double h = static_cast<double>(m.hidden), kv = static_cast<double>(m.kv_hidden());
  const double f = static_cast<double>(m.ffn_hidden), t = static_cast<double>(tp);
  // The checkpointed block's input: sequence-parallel, the rank's share of the tokens.
  const double input = sequence_parallel ? h / t : h;
  // Column-parallel outputs are split over tensor ranks; the row-parallel w2's output is a whole
  // hidden-wide partial sum on each rank before its reduce-scatter.
  const double q = static_cast<double>(m.q_hidden());
  double saved = q / t + kv / t;          // wq, wv
  saved += m.gated_mlp() ? f / t + h : f / t; // w1 and w2, or fc1
  const double core = q / t;              // scaled_dot_product_attention's output
  const double reduce_scattered = tp > 1 ? 2 * h / t : 0;
  const double logsumexp = 4.0 * static_cast<double>(micro_batch * m.heads) * static_cast<double>(m.seq_len) / t;
  return tokens * E * (input + saved + core + reduce_scattered) + logsumexp;
}

double quantized_input_bytes(Fp8Recipe recipe) { return recipe == Fp8Recipe::nvfp4 ? 0.5 + 1.0 / 16 : 1.0; }

StateBytes state_bytes_per_parameter(const TrainingSpec& t, bool fp32_grads_with_bf16, bool master_gradients) {
  const bool mixed = t.precision != Precision::fp32;
  const double E = element_bytes(t.precision);
  const double master = mixed ? (master_gradients ? 8 : 4) : 0; // fp32 weights, and their gradients
  const double moments = t.optimizer == Optimizer::adam ? 8 : t.optimizer == Optimizer::sgd_momentum ? 4 : 0;
  return {E, gradient_element_bytes(t.precision, fp32_grads_with_bf16), master + moments};
}

} // namespace simgpt
