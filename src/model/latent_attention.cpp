#include "model/latent_attention.hpp"

#include "model/fp8.hpp"

namespace simgpt {

// megatron/core/transformer/multi_latent_attention.py (NVIDIA/Megatron-LM d98e8a6), MLASelfAttention
// under the Transformer Engine layer spec (megatron/core/models/gpt/gpt_layer_specs.py,
// get_gpt_layer_with_transformer_engine_spec, multi_latent_attention):
// - linear_q_down_proj (h -> q_lora_rank) and linear_kv_down_proj (h -> kv_lora_rank +
//   qk_pos_emb_head_dim) are TELinear with parallel_mode "duplicated": every tensor-parallel rank
//   holds them whole and runs them on the tokens it holds (its s / tp share under sequence
//   parallelism, all of them without).
// - The latents' norms (q_layernorm, kv_layernorm: DeepSeek's q_a_layernorm and kv_a_layernorm,
//   Megatron's --qk-layernorm, fused into the up projections as TELayerNormColumnParallelLinear)
//   run on the same tokens.
// - linear_q_up_proj (q_lora_rank -> heads (qk_head_dim + qk_pos_emb_head_dim); linear_q_proj from
//   h when q_lora_rank is None) and linear_kv_up_proj (kv_lora_rank -> heads (qk_head_dim +
//   v_head_dim)) are column-parallel: heads / tp heads each, over the whole sequence.
// - qkv_up_proj_and_rope_apply rotates the queries' and the shared key's qk_pos_emb_head_dim
//   dimensions, then concatenates query = [q_nope, q_pe] and key = [k_nope, k_pe expanded to every
//   head] and makes the value contiguous for the core attention.
// All four projections are TransformerEngine modules, so under fp8 (or fp4) training they run as
// every other TE linear does inside te.fp8_autocast: inputs cast, fp8 GEMMs (add_linear);
// multi_latent_attention.py exempts none of them.
Kernels latent_qkv_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  const double local = s.sequence_parallel ? tokens / static_cast<double>(s.tp) : tokens;
  const double h = static_cast<double>(m.hidden);
  const double q_lora = static_cast<double>(m.q_lora_rank), kv_lora = static_cast<double>(m.kv_lora_rank);
  const double rope = static_cast<double>(m.qk_pos_emb_head_dim);
  Kernels k;
  if (q_lora > 0)
    add_linear(k, form, E, local, q_lora, h, 1, local, local);       // q down projection (duplicated)
  add_linear(k, form, E, local, kv_lora + rope, h, 1, local, local); // kv down projection (duplicated)
  const Kernels up = latent_up_forward(m, s, form);
  k.insert(k.end(), up.begin(), up.end());
  return k;
}

// From the latents on: their norms, the up projections, the rotation and the assembly (what
// Megatron-core's mla_up_proj recompute module reruns, multi_latent_attention.py:
// qkv_up_proj_and_rope_apply under CheckpointWithoutOutput).
// Under sequence parallelism the up projections gather the latents (TE casts them first, so this
// rank casts its own share) and their output gradients are the whole sequence's for its heads.
Kernels latent_up_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  const double tp = static_cast<double>(s.tp);
  const double local = s.sequence_parallel ? tokens / tp : tokens;
  const double h = static_cast<double>(m.hidden), heads = static_cast<double>(m.heads) / tp;
  const double q_lora = static_cast<double>(m.q_lora_rank), kv_lora = static_cast<double>(m.kv_lora_rank);
  const double rope = static_cast<double>(m.qk_pos_emb_head_dim), qk = static_cast<double>(m.qk_head_width());
  const double v = static_cast<double>(m.v_head_dim), nope = static_cast<double>(m.qk_head_dim);
  Kernels k;
  if (q_lora > 0)
    k.push_back(Kernel::memory(2 * local * q_lora * E));  // q latent RMSNorm
  k.push_back(Kernel::memory(2 * local * kv_lora * E));   // kv latent RMSNorm
  add_linear(k, form, E, tokens, heads * qk, q_lora > 0 ? q_lora : h, 1, local, tokens); // q up (column parallel)
  add_linear(k, form, E, tokens, heads * (nope + v), kv_lora, 1, local, tokens);       // kv up (column parallel)
  k.push_back(Kernel::memory(2 * tokens * (heads + 1) * rope * E));     // rotate q_pe and k_pe
  k.push_back(Kernel::memory(2 * tokens * heads * (2 * qk + v) * E));   // query, key, value assembled
  return k;
}

double latent_qkv_parameters(const ModelSpec& m, double tp) {
  const double h = static_cast<double>(m.hidden), heads = static_cast<double>(m.heads);
  const double q_lora = static_cast<double>(m.q_lora_rank), kv_lora = static_cast<double>(m.kv_lora_rank);
  const double rope = static_cast<double>(m.qk_pos_emb_head_dim), qk = static_cast<double>(m.qk_head_width());
  const double v = static_cast<double>(m.v_head_dim), nope = static_cast<double>(m.qk_head_dim);
  // The latents' norms are of the model's kind (MLASelfAttention builds them from
  // config.normalization): a scale, and a bias for LayerNorm. None of MLA's projections has a bias
  // (bias=False in MLASelfAttention.__init__).
  const double norm = m.norm == Norm::layernorm ? 2 : 1;
  double whole = h * (kv_lora + rope) + norm * kv_lora;
  if (q_lora > 0)
    whole += h * q_lora + norm * q_lora;
  const double split = (q_lora > 0 ? q_lora : h) * heads * qk + kv_lora * heads * (nope + v);
  return whole + split / tp;
}

double latent_gathered_width(const ModelSpec& m) {
  const int64_t q = m.q_lora_rank > 0 ? m.q_lora_rank : m.hidden;
  return static_cast<double>(q + m.kv_lora_rank + m.qk_pos_emb_head_dim);
}

} // namespace simgpt
