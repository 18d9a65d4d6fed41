// Sliding-window attention (model.window, model.full_attention_every), attention sinks, a clamped
// quick-GELU gated unit and YaRN's unfused rotary embedding: GPT-OSS 120B's published parameter
// count, the FlashAttention blocks a window runs, and which layers are windowed.
#include "execution/plan.hpp"
#include "cost/compute_cost.hpp"
#include "model/model.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

// GPT-OSS 120B from openai/gpt-oss-120b's config.json: 36 layers of hidden 2880, 64 query heads of
// 64 (4,096 wide queries) and 8 key-value heads, 128 experts of 2,880 with 4 per token, biases on
// the linear layers, RMSNorm, YaRN rotary positions, a 128-key window on every second layer
// (layer_types: sliding, full, ...), attention sinks, vocabulary 201,088, untied embeddings.
Workload gpt_oss() {
  Workload w;
  w.model = {36, 2880, 64, 4096, 201088, 2880, Head::lm};
  w.model.kv_heads = 8;
  w.model.head_width = 64;
  w.model.experts = 128;
  w.model.top_k = 4;
  w.model.moe_ffn_hidden = 2880;
  w.model.mlp = Mlp::quick_geglu;
  w.model.activation_clamp = 7;
  w.model.norm = Norm::rmsnorm;
  w.model.position = Position::yarn;
  w.model.bias = true;
  w.model.tie_embeddings = false;
  w.model.attention = Attention::flash;
  w.model.window = 128;
  w.model.full_attention_every = 2;
  w.model.attention_sinks = true;
  w.training.global_batch = 8;
  w.training.precision = Precision::bf16;
  return w;
}

double core_products(const ModelSpec& m) {
  const Shard s{1, 1, Precision::bf16};
  const Kernels core = attention_core_forward(m, s, KernelForm{});
  REQUIRE(core.size() == 1);
  return core[0].flops();
}

} // namespace

TEST_CASE("GPT-OSS 120B counts its published parameters") {
  // OpenAI's gpt-oss model card (arXiv 2508.10925, Table 1): 116.83B parameters in total.
  CHECK(total_parameters(gpt_oss().model) == Approx(116.83e9).epsilon(2e-3));
  // The sinks are a logit per head and layer.
  ModelSpec without = gpt_oss().model;
  without.attention_sinks = false;
  CHECK(total_parameters(gpt_oss().model) - total_parameters(without) == Approx(36.0 * 64));
}

TEST_CASE("a window of 128 keys runs the two key blocks of each query block FlashAttention needs") {
  ModelSpec m = gpt_oss().model;
  const double windowed = core_products(m);
  m.window = 0;
  const double full = core_products(m);
  // 4,096 tokens in 32 blocks of 128: causal, 32 x 33 / 2 = 528 of the 1,024 block pairs; a window
  // of 128 keys, the diagonal block and the one before it (the first block only itself): 63.
  CHECK(windowed / full == Approx(63.0 / 528.0).epsilon(1e-12));
  // A window as long as the sequence is no window.
  m.window = 4096;
  CHECK(core_products(m) == Approx(full).epsilon(1e-12));
  // A block's first query reaches back window - 1 keys: 129 keys stay within the block before,
  // 130 reach a third block for every query block past the second.
  m.window = 129;
  CHECK(core_products(m) / full == Approx(63.0 / 528.0).epsilon(1e-12));
  m.window = 130;
  CHECK(core_products(m) / full == Approx((1.0 + 2.0 + 3.0 * 30) / 528.0).epsilon(1e-12));
}

TEST_CASE("layers 1, 3, 5 ... are windowed and the even ones attend to every key") {
  const Workload w = gpt_oss();
  CHECK(w.model.is_windowed_layer(0));
  CHECK_FALSE(w.model.is_windowed_layer(1));
  CHECK(w.model.is_windowed_layer(34));
  CHECK_FALSE(w.model.is_windowed_layer(35));
  ModelSpec every = w.model;
  every.full_attention_every = 0;
  CHECK(every.is_windowed_layer(35));
  // The layers' kernels: the windowed layer's attention core is the smaller.
  const Shard s{1, 1, Precision::bf16, false, 8};
  const KernelForm form;
  CHECK(sum_flops(layer_forward(w.model, s, form, 0)) < sum_flops(layer_forward(w.model, s, form, 1)));
  CHECK(sum_flops(layer_forward(w.model, s, form, 2)) == sum_flops(layer_forward(w.model, s, form, 0)));
}

TEST_CASE("the clamped unit and YaRN's unfused rotation add their passes, and the clamp keeps a copy") {
  const Shard s{1, 1, Precision::bf16, false, 8};
  ModelSpec m = gpt_oss().model;
  ModelSpec plain = m;
  plain.activation_clamp = 0;
  plain.position = Position::rope;
  const MoeBlock clamped = moe_block_forward(m, s, KernelForm{});
  const MoeBlock unclamped = moe_block_forward(plain, s, KernelForm{});
  CHECK(clamped.experts.size() == unclamped.experts.size() + 3); // two clamps and the concatenation
  CHECK(moe_activation_forward(m, s).size() == 4);
  CHECK(attention_block_forward(m, s, KernelForm{}).size() > attention_block_forward(plain, s, KernelForm{}).size());
}

TEST_CASE("window keys are checked") {
  Workload w = gpt_oss();
  w.parallelism.dp = 8;
  w.parallelism.ep = 8;
  w.source = "w.yaml";
  Workload no_window = w;
  no_window.model.window = 0;
  CHECK_THROWS_WITH(check_workload(no_window), Catch::Contains("model.full_attention_every"));
  Workload cp = w;
  cp.parallelism.cp = 2;
  cp.parallelism.dp = 4;
  cp.parallelism.ep = 4;
  CHECK_THROWS_WITH(check_workload(cp), Catch::Contains("context parallelism is not modelled"));
  Workload gelu = w;
  gelu.model.mlp = Mlp::gelu;
  CHECK_THROWS_WITH(check_workload(gelu), Catch::Contains("model.activation_clamp"));
  CHECK_NOTHROW(check_workload(w));
}

TEST_CASE("the window keys read from a workload, round-trip, and come from Megatron-LM's arguments") {
  const char* yaml = "model: {layers: 4, hidden: 2880, heads: 64, kv_heads: 8, head_dim: 64, seq_len: 4096, "
                     "vocab: 1000, mlp: quick_geglu, activation_clamp: 7, position: yarn, window: 128, "
                     "full_attention_every: 2, attention_sinks: true, attention: flash}\n"
                     "training: {global_batch: 8, micro_batch: 1}\nparallelism: {dp: 8}\n";
  const Workload w = parse_workload(yaml, "w.yaml");
  CHECK(w.model.window == 128);
  CHECK(w.model.full_attention_every == 2);
  CHECK(w.model.attention_sinks);
  CHECK(w.model.activation_clamp == 7);
  CHECK(w.model.mlp == Mlp::quick_geglu);
  CHECK(w.model.position == Position::yarn);
  CHECK(workload_yaml(parse_workload(workload_yaml(w), "again.yaml")) == workload_yaml(w));
  CHECK_THROWS_WITH(parse_workload(yaml, "w.yaml", {{"model.window", "-1"}}), Catch::Contains("model.window"));
  // megatron/training/arguments.py: --window-size "(127,0)" (tuple_type), --window-attn-skip-freq 2,
  // --quick-geglu, --position-embedding-type yarn.
  std::string args = "num_layers: 4\nhidden_size: 2880\nnum_attention_heads: 64\nkv_channels: 64\n"
                     "seq_length: 4096\nvocab_size: 1000\nmicro_batch_size: 1\nglobal_batch_size: 8\n"
                     "quick_geglu: true\nposition_embedding_type: yarn\nwindow_size: \"(127, 0)\"\n"
                     "window_attn_skip_freq: 2\nparallelism: {dp: 8}\n";
  const Workload megatron = parse_workload(args, "m.yaml");
  CHECK(megatron.model.window == 128);
  CHECK(megatron.model.full_attention_every == 2);
  CHECK(megatron.model.mlp == Mlp::quick_geglu);
  CHECK(megatron.model.position == Position::yarn);
  try {
    args.replace(args.find("(127, 0)"), 8, "64,64");
    (void)parse_workload(args, "m.yaml");
    FAIL("a two-sided window was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("window_size") && Catch::Contains("(127,0)"));
  }
}

TEST_CASE("the shipped GPT-OSS workload is the published model") {
  const Workload shipped = load_workload(default_data_paths().find("workloads") + "/gpt_oss_120b.yaml");
  CHECK(total_parameters(shipped.model) == total_parameters(gpt_oss().model));
  CHECK(active_parameters(shipped.model) == active_parameters(gpt_oss().model));
  // The model card: 5.13B active parameters a token (arXiv 2508.10925, Table 1), counting the
  // unembedding and not the embedding, whose lookup is no matmul: simgpt's active count less it.
  CHECK(active_parameters(shipped.model) - 201088.0 * 2880 == Approx(5.13e9).epsilon(0.005));
}
