// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, section 2.1) as Megatron-LM runs it:
// parameters and FLOPs of DeepSeek's published models, and its tensor-parallel split.
#include "model/fp8.hpp"
#include "model/latent_attention.hpp"
#include "model/model.hpp"
#include "simgpt/memory/memory.hpp"
#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace simgpt;

namespace {

// A DeepSeek MoE model with MLA, from its released config.json's fields.
struct DeepSeek {
  int64_t layers, first_k_dense, hidden, heads, intermediate, routed, shared_intermediate, per_token, moe_intermediate,
      vocab, q_lora_rank;
};

Workload deepseek(const DeepSeek& c, int64_t seq, int64_t batch) {
  Workload w;
  w.model = {c.layers, c.hidden, c.heads, seq, c.vocab, c.intermediate, Head::lm};
  w.model.dense_layers = c.first_k_dense;
  w.model.experts = c.routed;
  w.model.top_k = c.per_token;
  w.model.moe_ffn_hidden = c.moe_intermediate;
  w.model.shared_expert_ffn_hidden = c.shared_intermediate;
  w.model.latent_attention = true;
  w.model.q_lora_rank = c.q_lora_rank;
  w.model.kv_lora_rank = 512; // the same latent and head dimensions in all three configs
  w.model.qk_head_dim = 128;
  w.model.qk_pos_emb_head_dim = 64;
  w.model.v_head_dim = 128;
  w.model.mlp = Mlp::swiglu;
  w.model.norm = Norm::rmsnorm;
  w.model.position = Position::rope;
  w.model.bias = false;
  w.model.tie_embeddings = false;
  w.training.global_batch = batch;
  return w;
}

// deepseek-ai/DeepSeek-V3 config.json: 61 layers (first_k_dense_replace 3), hidden 7168, 128 heads,
// intermediate 18432, 256 routed experts and 1 shared of moe_intermediate_size 2048, 8 per token,
// vocabulary 129280, q_lora_rank 1536.
const DeepSeek kV3{61, 3, 7168, 128, 18432, 256, 2048, 8, 2048, 129280, 1536};
// deepseek-ai/DeepSeek-V2 config.json: 60 layers (first_k_dense_replace 1), hidden 5120, 128 heads,
// intermediate 12288, 160 routed experts and 2 shared of 1536, 6 per token, vocabulary 102400.
const DeepSeek kV2{60, 1, 5120, 128, 12288, 160, 3072, 6, 1536, 102400, 1536};
// deepseek-ai/DeepSeek-V2-Lite config.json: 27 layers (first_k_dense_replace 1), hidden 2048, 16
// heads, intermediate 10944, 64 routed experts and 2 shared of 1408, 6 per token, no query latent.
const DeepSeek kV2Lite{27, 1, 2048, 16, 10944, 64, 2816, 6, 1408, 102400, 0};

// megatron/training/training.py (NVIDIA/Megatron-LM d98e8a6, 2026-08), num_floating_point_operations,
// transformer_flops() with --multi-latent-attention and MoE (no MTP, no latent MoE), written out:
//   tokens * (3*2*h*(ffn*3*dense + moe_ffn*topk*3*moe + shared*3*moe)
//             + 3*2*(q_term + kv_lora*(h + n*(qk + v) + 1) + h*rope + n*v*h) * layers + 3*2*h*V)
//   + batch * s^2 * 3*2*(n*(qk + rope)/2 + n*v/2) * layers,
// q_term = q_lora*(h + n*(qk + rope) + 1), or h*n*(qk + rope) without a query latent.
double megatron_mla_flops(const Workload& w) {
  const ModelSpec& m = w.model;
  const double B = static_cast<double>(w.training.global_batch), s = static_cast<double>(m.seq_len);
  const double h = static_cast<double>(m.hidden), n = static_cast<double>(m.heads), L = static_cast<double>(m.layers);
  const double ql = static_cast<double>(m.q_lora_rank), kl = static_cast<double>(m.kv_lora_rank);
  const double qk = static_cast<double>(m.qk_head_dim), rope = static_cast<double>(m.qk_pos_emb_head_dim);
  const double v = static_cast<double>(m.v_head_dim);
  const double dense = static_cast<double>(m.dense_layers), moe = L - dense;
  const double q_term = ql > 0 ? ql * (h + n * (qk + rope) + 1) : h * n * (qk + rope);
  const double attention = 3 * 2 * (q_term + kl * (h + n * (qk + v) + 1) + h * rope + n * v * h);
  const double core = 3 * 2 * (n * (qk + rope) / 2 + n * v / 2);
  const double mlp = 3 * 2 * h *
                     (static_cast<double>(m.ffn_hidden) * 3 * dense +
                      static_cast<double>(m.moe_ffn_hidden * m.top_k) * 3 * moe +
                      static_cast<double>(m.shared_expert_ffn_hidden) * 3 * moe);
  const double logits = 3 * 2 * h * static_cast<double>(m.vocab);
  return B * s * (mlp + attention * L + logits) + B * s * s * core * L;
}

} // namespace

TEST_CASE("DeepSeek-V3 has 671B parameters and DeepSeek-V2 236B, MLA's latents and norms included") {
  // DeepSeek-V3 Technical Report (arXiv 2412.19437), abstract: 671B total, the multi-token
  // prediction module (14B more in the released checkpoint) left out; DeepSeek-V2 (arXiv
  // 2405.04434), abstract: 236B; DeepSeek-V2-Lite's model card: 15.7B (q_lora_rank 0: the queries
  // projected from the hidden state).
  CHECK(total_parameters(deepseek(kV3, 4096, 1).model) == Approx(671e9).epsilon(5e-3));
  CHECK(total_parameters(deepseek(kV2, 4096, 1).model) == Approx(236e9).epsilon(5e-3));
  CHECK(total_parameters(deepseek(kV2Lite, 4096, 1).model) == Approx(15.7e9).epsilon(5e-3));
  // The activated parameters, "37B" and "21B" (the same abstracts), are rounded to the billion and
  // leave the word embedding out (a lookup, no FLOPs): 36.63B and 20.85B; with it 37.55B and 21.38B,
  // which would round to 38B for V3.
  for (const auto& [config, published] : {std::pair{kV3, 37e9}, std::pair{kV2, 21e9}}) {
    const ModelSpec m = deepseek(config, 4096, 1).model;
    CHECK(std::abs(active_parameters(m) - embedding_parameters(m, 1) - published) < 0.5e9);
  }
  // One V3 MLA block, from the checkpoint's tensors: q_a_proj 7168 x 1536, q_a_layernorm 1536,
  // q_b_proj 1536 x 128*192, kv_a_proj_with_mqa 7168 x 576, kv_a_layernorm 512, kv_b_proj 512 x
  // 128*256, o_proj 128*128 x 7168, and the input layernorm 7168: 187,114,496.
  ModelSpec v3 = deepseek(kV3, 4096, 1).model;
  v3.experts = 0;
  v3.dense_layers = 0;
  CHECK(layer_parameters(v3, 1) - 3.0 * 7168 * 18432 - 7168 == 187114496.0);
}

TEST_CASE("the shipped DeepSeek workloads are the published models") {
  const DataPaths data = default_data_paths();
  const Workload v3 = load_workload(data.find("workloads") + "/deepseek_v3.yaml");
  const Workload v2 = load_workload(data.find("workloads") + "/deepseek_v2.yaml");
  CHECK(total_parameters(v3.model) == total_parameters(deepseek(kV3, 4096, 1).model));
  CHECK(active_parameters(v3.model) == active_parameters(deepseek(kV3, 4096, 1).model));
  CHECK(total_parameters(v2.model) == total_parameters(deepseek(kV2, 4096, 1).model));
  CHECK(active_parameters(v2.model) == active_parameters(deepseek(kV2, 4096, 1).model));
}

TEST_CASE("MLA FLOPs per step equal Megatron-LM's count with its MLA and MoE terms, plus the router") {
  for (const DeepSeek& c : {kV3, kV2, kV2Lite}) {
    for (const int64_t seq : {4096, 32768}) {
      const Workload w = deepseek(c, seq, 16);
      const ModelSpec& m = w.model;
      // simgpt counts the router's h x experts GEMM, which Megatron-LM's formula leaves out: 0.26% of
      // DeepSeek-V3's step at 4096 tokens (256 experts), so it is added back to compare the rest.
      const double router = 3 * 2 * static_cast<double>(w.training.global_batch * m.seq_len) *
                            static_cast<double>(m.hidden * m.experts * m.moe_layers());
      // What remains apart is Megatron's one FLOP per latent element for the latent norms.
      CHECK(model_flops_per_step(w) == Approx(megatron_mla_flops(w) + router).epsilon(1e-4));
    }
  }
  // FlashAttention runs the same model FLOPs.
  Workload w = deepseek(kV3, 4096, 16);
  const double standard = model_flops_per_step(w);
  w.model.attention = Attention::flash;
  CHECK(model_flops_per_step(w) == standard);
}

TEST_CASE("MLA's down projections and latent norms are duplicated over tensor ranks, its up projections split") {
  const ModelSpec m = deepseek(kV3, 4096, 1).model;
  const double h = 7168, tokens = 4096;
  // megatron/core/transformer/multi_latent_attention.py under the Transformer Engine spec:
  // linear_q_down_proj and linear_kv_down_proj are TELinear with parallel_mode "duplicated".
  const double down = h * 1536 + 1536 + h * (512 + 64) + 512;
  const double split = 1536.0 * 128 * 192 + 512.0 * 128 * 256 + 128.0 * 128 * h;
  const double norms = 2 * h, mlp = 3 * h * 18432; // the layer's two RMSNorms, its dense SwiGLU MLP
  CHECK(layer_parameters(m, 1) == Approx(down + split + norms + mlp));
  CHECK(layer_parameters(m, 8) == Approx(down + split / 8 + norms + mlp / 8));
  // Without sequence parallelism every rank runs the down projections on all its tokens; with it, on
  // its s / tp share: the whole block then divides by tp.
  const double down_flops = 2 * tokens * h * (1536 + 512 + 64);
  const Shard one{1, 1, Precision::bf16}, tp8{1, 8, Precision::bf16}, sp8{1, 8, Precision::bf16, true};
  const double whole = sum_flops(attention_block_forward(m, one, {}));
  CHECK(sum_flops(attention_block_forward(m, tp8, {})) == Approx((whole - down_flops) / 8 + down_flops));
  CHECK(sum_flops(attention_block_forward(m, sp8, {})) == Approx(whole / 8));
  // The core: Q K^T over 128 + 64 dimensions, P V over 128, for each of 128 heads.
  CHECK(sum_flops(attention_core_forward(m, one, {})) == Approx(2 * tokens * tokens * 128 * (192 + 128)));
  // The projections: q down, q up, kv down, kv up, and the output projection from 128 x 128.
  CHECK(whole - sum_flops(attention_core_forward(m, one, {})) ==
        Approx(2 * tokens * (h * 1536 + 1536 * 128 * 192 + h * 576 + 512 * 128 * 256 + 128 * 128 * h)));
  // Without a query latent (DeepSeek-V2-Lite) the queries are projected from the hidden state.
  const ModelSpec lite = deepseek(kV2Lite, 4096, 1).model;
  CHECK(sum_flops(attention_block_forward(lite, one, {})) - sum_flops(attention_core_forward(lite, one, {})) ==
        Approx(2 * tokens * (2048.0 * 16 * 192 + 2048 * 576 + 512 * 16 * 256 + 16 * 128 * 2048)));
}

TEST_CASE("Under fp8 MLA's four projections are fp8 GEMMs after their inputs' casts, as every TE linear") {
  const ModelSpec m = deepseek(kV3, 4096, 1).model;
  const Shard sp8{1, 8, Precision::bf16, true};
  KernelForm fp8;
  fp8.fp8 = true;
  const auto gemms = [](const Kernels& ks, bool fp8_only) {
    int n = 0;
    for (const Kernel& k : ks)
      n += k.kind == Kernel::Kind::gemm && (!fp8_only || k.fp8);
    return n;
  };
  const auto casts = [](const Kernels& ks) {
    int n = 0;
    for (const Kernel& k : ks)
      n += k.kind == Kernel::Kind::quantize;
    return n;
  };
  // multi_latent_attention.py: linear_q_down_proj, linear_kv_down_proj (TELinear), linear_q_up_proj
  // and linear_kv_up_proj (TELayerNormColumnParallelLinear) inside te.fp8_autocast.
  const Kernels qkv = latent_qkv_forward(m, sp8, fp8);
  CHECK(gemms(qkv, false) == 4);
  CHECK(gemms(qkv, true) == 4);
  CHECK(casts(qkv) == 4); // delayed scaling: one cast kernel per input
  CHECK(sum_flops(qkv) == Approx(sum_flops(latent_qkv_forward(m, sp8, {}))));
  // In 16-bit training none is fp8 and nothing is cast.
  CHECK(gemms(latent_qkv_forward(m, sp8, {}), true) == 0);
  CHECK(casts(latent_qkv_forward(m, sp8, {})) == 0);
  // The up projections cast this rank's share of the latents before the sequence-parallel gather:
  // the q latent's cast reads tokens / 8 x 1536 16-bit values.
  const Kernels up = latent_up_forward(m, sp8, fp8);
  REQUIRE(casts(up) == 2);
  for (const Kernel& k : up)
    if (k.kind == Kernel::Kind::quantize) {
      CHECK(k.bytes == Approx(4096.0 / 8 * 1536 * (2 + 1))); // read 2 bytes, write 1 (no transpose in this form)
      break;
    }
  // TE keeps an fp8 copy of their weights too.
  const double mla_weights = 7168.0 * 1536 + 7168.0 * 576 + (1536.0 * 128 * 192 + 512.0 * 128 * 256) / 8;
  const double without = 128.0 * 128 * 7168 / 8 + 3 * 7168.0 * 18432 / 8; // output projection, dense MLP
  CHECK(layer_fp8_weight_elements(m, 8, 1, 0) == Approx(mla_weights + without));
}

TEST_CASE("FlashAttention under MLA reads queries and keys of 192 dimensions and values of 128") {
  ModelSpec m = deepseek(kV3, 4096, 1).model;
  m.attention = Attention::flash;
  const Shard shard{1, 8, Precision::bf16};
  const Kernels core = attention_core_forward(m, shard, {});
  REQUIRE(core.size() == 1);
  const double s = 4096, heads = 16, blocks = 32;
  // Q and K of 192, V and O of 128 per head, and the fp32 logsumexp of each query row and head.
  CHECK(core[0].bytes == Approx(s * heads * (2 * 192 + 2 * 128) * 2 + 4 * heads * s));
  CHECK(sum_flops(core) == Approx(2 * s * s * heads * (192 + 128) * (blocks + 1) / (2 * blocks)));
}

TEST_CASE("mla_up_proj reruns the latents' norms, up projections and rotation and frees Q, K, V and the normed latents") {
  Workload w = deepseek(kV3, 4096, 1);
  w.training.recompute = Recompute::selective;
  w.training.recompute_modules = static_cast<unsigned>(RecomputeModule::mla_up_proj);
  const ModelSpec& m = w.model;
  // megatron/core/transformer/multi_latent_attention.py: the checkpoint keeps q_compressed and
  // kv_compressed; Q [t, n, 192], K [t, n, 192], V [t, n, 128] and the normed latents (1536 + 512)
  // are freed, 2 bytes each in bf16, on 4096 tokens over tp 8 without sequence parallelism.
  const double tokens = 4096, n = 128;
  CHECK(recompute_modules_freed_bytes(m, 1, 8, false, Precision::bf16, true, false, w.training.recompute_modules) ==
        Approx(tokens * 2 * (n * (192 + 192 + 128) / 8 + (1536 + 512))));
  // Its rerun is the up part of the latent block: the two up GEMMs' FLOPs.
  const Shard s{1, 8, Precision::bf16};
  const double up = sum_flops(latent_up_forward(m, s, {}));
  CHECK(up == Approx(2 * tokens * (n / 8) * (192 * 1536 + 256 * 512)));
  // Named in a workload; refused without latent attention.
  const char* yaml = "model: {layers: 4, hidden: 1024, heads: 16, seq_len: 1024, vocab: 1000}\n"
                     "training: {global_batch: 8, micro_batch: 1, recompute: selective, recompute_modules: mla_up_proj}\n"
                     "parallelism: {dp: 8}\n";
  CHECK_THROWS_WITH(parse_workload(yaml, "w.yaml"), Catch::Contains("mla_up_proj needs multi-head latent attention"));
}
