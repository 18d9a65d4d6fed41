// A head width of its own (model.head_dim, Megatron-LM's --kv-channels) and a norm over each head's
// queries and keys (model.qk_layernorm): Qwen3's published parameter counts, and a head width equal
// to hidden / heads changing nothing.
#include "model/model.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

// A Qwen3 MoE model from its released config.json: every layer's MLP routed, no shared expert,
// RMSNorm (its queries' and keys' too), rotary positions, no linear biases, untied embeddings.
Workload qwen3_moe(int64_t layers, int64_t hidden, int64_t heads, int64_t moe_intermediate) {
  Workload w;
  w.model = {layers, hidden, heads, 4096, 151936, 4 * hidden, Head::lm};
  w.model.kv_heads = 4;
  w.model.head_width = 128;
  w.model.qk_layernorm = true;
  w.model.experts = 128;
  w.model.top_k = 8;
  w.model.moe_ffn_hidden = moe_intermediate;
  w.model.mlp = Mlp::swiglu;
  w.model.norm = Norm::rmsnorm;
  w.model.position = Position::rope;
  w.model.bias = false;
  w.model.tie_embeddings = false;
  w.training.global_batch = 8;
  return w;
}

} // namespace

TEST_CASE("Qwen3's MoE models count their published parameters with 128-wide heads") {
  // Qwen/Qwen3-30B-A3B config.json: 48 layers, hidden 2048, 32 heads of head_dim 128 (4,096 wide
  // queries on a 2,048 hidden), 4 key-value heads, 128 experts of 768, 8 per token: "30.5B in total".
  CHECK(total_parameters(qwen3_moe(48, 2048, 32, 768).model) == Approx(30.5e9).epsilon(5e-3));
  // Qwen/Qwen3-235B-A22B config.json: 94 layers, hidden 4096, 64 heads of 128, 4 key-value heads,
  // 128 experts of 1536: "235B in total".
  CHECK(total_parameters(qwen3_moe(94, 4096, 64, 1536).model) == Approx(235e9).epsilon(5e-3));
  // The attention block of Qwen3-235B-A22B's layer: q 4096 x 8192, k and v 4096 x 512 each, o
  // 8192 x 4096, the layer's norm (4096) and q_norm and k_norm (128 each).
  ModelSpec m = qwen3_moe(94, 4096, 64, 1536).model;
  m.experts = 0; // a dense layer of the same attention, its MLP 4 x hidden wide
  const double attention = 4096.0 * 8192 + 2 * 4096.0 * 512 + 8192.0 * 4096 + 4096 + 2 * 128;
  const double mlp = 3 * 4096.0 * (4 * 4096) + 4096;
  CHECK(layer_parameters(m, 1) == Approx(attention + mlp).epsilon(1e-12));
}

TEST_CASE("a head width of hidden / heads changes nothing, and another one moves the attention's kernels") {
  Workload w = qwen3_moe(4, 2048, 16, 768);
  w.model.qk_layernorm = false;
  w.model.head_width = 0;
  Workload same = w;
  same.model.head_width = 128; // 2048 / 16
  CHECK(total_parameters(same.model) == total_parameters(w.model));
  CHECK(model_flops_per_step(same) == model_flops_per_step(w));
  Workload wider = w;
  wider.model.head_width = 256; // queries 4096 wide: the QKV and output projections and the core grow
  CHECK(total_parameters(wider.model) > total_parameters(w.model));
  CHECK(model_flops_per_step(wider) > model_flops_per_step(w));
}

TEST_CASE("model.head_dim and model.qk_layernorm read from a workload and from Megatron-LM's arguments") {
  const char* yaml = "model: {layers: 2, hidden: 2880, heads: 64, kv_heads: 8, head_dim: 64, qk_layernorm: true, "
                     "seq_len: 128, vocab: 1000}\ntraining: {global_batch: 8, micro_batch: 1}\n"
                     "parallelism: {dp: 8}\n";
  // 64 heads do not divide 2,880 (GPT-OSS): a head width of its own says what each is.
  const Workload w = parse_workload(yaml, "w.yaml");
  CHECK(w.model.head_dim() == 64);
  CHECK(w.model.q_hidden() == 4096);
  CHECK(w.model.qk_layernorm);
  CHECK(workload_yaml(parse_workload(workload_yaml(w), "again.yaml")) == workload_yaml(w));
  CHECK_THROWS_WITH(parse_workload(yaml, "w.yaml", {{"model.head_dim", "0"}}), Catch::Contains("model.head_dim"));
  try {
    (void)parse_workload(yaml, "w.yaml", {{"model.latent_attention", "true"}});
    FAIL("a head width with latent attention was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("model.head_dim") && Catch::Contains("multi-head latent attention"));
  }
  const Workload megatron = parse_workload(
      "num_layers: 2\nhidden_size: 4096\nnum_attention_heads: 64\nkv_channels: 128\nqk_layernorm: true\n"
      "seq_length: 128\nvocab_size: 1000\nmicro_batch_size: 1\nglobal_batch_size: 8\nparallelism: {dp: 8}\n",
      "m.yaml");
  CHECK(megatron.model.head_dim() == 128);
  CHECK(megatron.model.qk_layernorm);
}
