#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {
const char* kBase = R"(
model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}
training: {global_batch: 64, micro_batch: 1, precision: fp32, recompute: full}
parallelism: {dp: 1, pp: 8, schedule: gpipe}
framework: torch-pipe
)";

std::string error_of(const std::string& text, const Overrides& o = {}) {
  try {
    parse_workload(text, "w.yaml", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("a workload reads every section and fills defaults") {
  Workload w = parse_workload(kBase, "w.yaml");
  CHECK(w.model.ffn_hidden == 4 * 2048);
  CHECK(w.parallelism.pp == 8);
  CHECK(w.parallelism.schedule == Schedule::gpipe);
  CHECK(w.training.precision == Precision::fp32);
  CHECK(w.micro_batches() == 64);
  CHECK(w.framework == "torch-pipe");
}

TEST_CASE("overrides from --set go through the same checks as the file") {
  Workload w = parse_workload(kBase, "w.yaml", {{"parallelism.pp", "4"}, {"network.delay", "10ms"}});
  CHECK(w.parallelism.pp == 4);
  CHECK(*w.network.delay_s == Approx(0.010));
  CHECK_THAT(error_of(kBase, {{"parallelism.pp", "5"}, {"parallelism.partition", "uniform"}}),
             Catch::Contains("parallelism.pp") && Catch::Contains("multiple of pp"));
  CHECK_THAT(error_of(kBase, {{"parallelism.pp", "32"}}), Catch::Contains("cannot fill 32 pipeline stages"));
  CHECK_THAT(error_of(kBase, {{"network.bandwidth", "fast"}}), Catch::Contains("network.bandwidth"));
  CHECK_THAT(error_of(kBase, {{"parallelism.ppp", "2"}}), Catch::Contains("valid keys of parallelism"));
}

TEST_CASE("bad workloads name the file, the key and what is valid") {
  CHECK_THAT(error_of(std::string(kBase) + "extra: 1\n"), Catch::Contains("w.yaml: extra") && Catch::Contains("framework, framework_options, conditions, model"));
  CHECK_THAT(error_of("model: {layers: x}"), Catch::Contains("model.layers") && Catch::Contains("not an integer"));
  CHECK_THAT(error_of("model: [1, 2"), Catch::Contains("w.yaml:") && Catch::Contains("malformed YAML"));
  CHECK_THAT(error_of(kBase, {{"training.precision", "fp8"}}), Catch::Contains("fp16, fp32"));
  CHECK_THAT(error_of(kBase, {{"training.micro_batch", "3"}}), Catch::Contains("not divisible"));
  CHECK_THAT(error_of(kBase, {{"parallelism.tp", "3"}}), Catch::Contains("does not divide heads"));
  CHECK_THAT(error_of(kBase, {{"parallelism.zero", "1"}}), Catch::Contains("dp > 1"));
  CHECK_THAT(error_of("model: {hidden: 8}"), Catch::Contains("is required"));
}

TEST_CASE("a pipeline partition is uniform, balanced or a list that covers the model") {
  Workload w = parse_workload(kBase, "w.yaml");
  CHECK(w.parallelism.partition == Partition::framework);
  w = parse_workload(kBase, "w.yaml", {{"parallelism.pp", "5"}, {"parallelism.partition", "balanced"}});
  CHECK(w.parallelism.partition == Partition::balanced);
  w = parse_workload(kBase, "w.yaml", {{"parallelism.pp", "2"}, {"parallelism.partition", "13, 11"}});
  CHECK(w.parallelism.partition == Partition::listed);
  CHECK(w.parallelism.stage_layers == std::vector<int64_t>{13, 11});
  CHECK_THAT(error_of(kBase, {{"parallelism.pp", "2"}, {"parallelism.partition", "13,10"}}),
             Catch::Contains("hold 23 layers but the model has 24"));
  CHECK_THAT(error_of(kBase, {{"parallelism.pp", "3"}, {"parallelism.partition", "12,12"}}),
             Catch::Contains("lists 2 stages but the plan has 3"));
  CHECK_THAT(error_of(kBase, {{"parallelism.partition", "12,x"}}),
             Catch::Contains("parallelism.partition") && Catch::Contains("uniform, balanced"));
  CHECK_THAT(error_of(kBase, {{"parallelism.partition", "-1,25"}}), Catch::Contains("whole numbers"));
  // Megatron-Core's layouts may leave the first stage the embedding alone and the last the loss.
  w = parse_workload(kBase, "w.yaml", {{"parallelism.pp", "4"}, {"parallelism.partition", "0,12,12,0"}});
  CHECK(w.parallelism.stage_layers == std::vector<int64_t>{0, 12, 12, 0});
  CHECK_THAT(error_of(kBase, {{"parallelism.pp", "3"}, {"parallelism.partition", "12,0,12"}}),
             Catch::Contains("stage 1 holds 0 layers: only the first stage (the embedding's) and the last"));
}

TEST_CASE("an LM head is tied to the word embedding unless the model says otherwise") {
  CHECK(parse_workload(kBase, "w.yaml").model.tie_embeddings);
  CHECK_FALSE(parse_workload(kBase, "w.yaml", {{"model.tie_embeddings", "false"}}).model.tie_embeddings);
  CHECK_THAT(error_of(kBase, {{"model.tie_embeddings", "maybe"}}), Catch::Contains("not a boolean"));
}

TEST_CASE("framework options are a run's own flags over its profile's defaults") {
  Workload w = parse_workload(std::string(kBase) + "framework_options: {compute.fused_elementwise: false}\n", "w.yaml",
                              {{"framework_options.memory.context", "2GiB"}});
  CHECK(w.framework_options.at("compute.fused_elementwise") == "false");
  CHECK(w.framework_options.at("memory.context") == "2GiB");
  CHECK_THAT(error_of(std::string(kBase) + "framework_options: [1]\n"), Catch::Contains("w.yaml: framework_options"));
}

TEST_CASE("attention is standard unless the model asks for FlashAttention, which needs fp16 or bf16") {
  CHECK(parse_workload(kBase, "w.yaml").model.attention == Attention::standard);
  const Overrides half{{"training.precision", "fp16"}, {"model.attention", "flash"}};
  CHECK(parse_workload(kBase, "w.yaml", half).model.attention == Attention::flash);
  // kBase is fp32: FlashAttention has no fp32 kernels.
  CHECK_THAT(error_of(kBase, {{"model.attention", "flash"}}),
             Catch::Contains("w.yaml: model.attention") && Catch::Contains("fp16 or bf16"));
  CHECK_THAT(error_of(kBase, {{"model.attention", "fast"}}), Catch::Contains("flash, standard"));
}

namespace {
// 0 when parse_workload accepts, 2 for an InputError, 3 for a LimitError (the exit statuses).
int status_of(const std::string& text, const Overrides& o = {}) {
  try {
    parse_workload(text, "w.yaml", o);
  } catch (const LimitError&) {
    return 3;
  } catch (const InputError&) {
    return 2;
  }
  return 0;
}
} // namespace

TEST_CASE("products of workload integers are checked, never wrapped") {
  // dp*tp*pp = 2^64 would wrap to 0 and crash a later division.
  CHECK(status_of(kBase, {{"parallelism.dp", "65536"}, {"parallelism.tp", "65536"}, {"parallelism.pp", "4096"}}) == 3);
  CHECK_THAT(error_of(kBase, {{"parallelism.dp", "65536"}, {"parallelism.tp", "4"}}),
             Catch::Contains("w.yaml: parallelism") && Catch::Contains("131072"));
  // micro_batch * dp past 2^63.
  CHECK_THAT(error_of(kBase, {{"training.micro_batch", "4611686018427387904"}, {"parallelism.dp", "4"},
                              {"parallelism.pp", "2"}}),
             Catch::Contains("training.micro_batch") && Catch::Contains("64 bits"));
  // micro_batch * seq_len * hidden, counted in int64_t by the model.
  CHECK_THAT(error_of(kBase, {{"training.micro_batch", "4294967296"}, {"training.global_batch", "4294967296"},
                              {"model.seq_len", "1048576"}, {"model.hidden", "131072"}}),
             Catch::Contains("micro_batch * seq_len * ffn_hidden"));
  // pp * chunks and a listed partition's sum.
  CHECK_THAT(error_of(kBase, {{"parallelism.schedule", "interleaved"}, {"parallelism.chunks", "9223372036854775807"}}),
             Catch::Contains("parallelism.chunks"));
  CHECK_THAT(error_of(kBase, {{"parallelism.pp", "2"},
                              {"parallelism.partition", "9223372036854775807,9223372036854775807"}}),
             Catch::Contains("parallelism.partition"));
  CHECK_THAT(error_of(kBase, {{"model.heads", "18446744073709551616"}}), Catch::Contains("64-bit"));
  // hidden 2^62 would make 4 * hidden wrap to 0: refused at its limit first.
  CHECK(status_of(kBase, {{"model.hidden", "4611686018427387904"}}) == 3);
}

TEST_CASE("the documented limits are refused as limits, the values at them accepted") {
  CHECK(status_of(kBase, {{"model.layers", "1025"}}) == 3);
  CHECK(status_of(kBase, {{"model.layers", "99999999999999999999"}}) == 3);
  CHECK(status_of(kBase, {{"model.seq_len", "1048577"}}) == 3);
  CHECK(status_of(kBase, {{"model.vocab", "4194305"}}) == 3);
  CHECK(status_of(kBase, {{"model.hidden", "131073"}}) == 3);
  CHECK(status_of(kBase, {{"training.global_batch", "131072"}}) == 3); // 131072 micro-batches
  CHECK(status_of(kBase, {{"training.global_batch", "65536"}}) == 0);
  CHECK(status_of(kBase, {{"model.layers", "1024"}, {"model.seq_len", "1048576"}, {"model.vocab", "4194304"},
                          {"model.hidden", "131072"}, {"model.heads", "64"}}) == 0);
  const Workload w = parse_workload(kBase, "w.yaml", {{"training.global_batch", "65536"}});
  CHECK(w.micro_batches() == 65536);
}

TEST_CASE("a duplicated or complex key and an override into a non-mapping are input errors") {
  CHECK_THAT(error_of(std::string(kBase) + "model: {layers: 3}\n"),
             Catch::Contains("w.yaml: model: duplicated key"));
  CHECK_THAT(error_of("model: {layers: 24, layers: 12}\n"), Catch::Contains("w.yaml: model.layers: duplicated key"));
  CHECK_THAT(error_of(std::string(kBase) + "? [a, b]\n: 1\n"), Catch::Contains("plain names"));
  CHECK_THAT(error_of("model: 5\n", {{"model.layers", "3"}}), Catch::Contains("w.yaml: model: is not a mapping"));
  CHECK_THAT(error_of("framework_options: [1]\n", {{"framework_options.compute.x", "1"}}),
             Catch::Contains("w.yaml: framework_options: is not a mapping"));
}

TEST_CASE("messages echo a value cut to 80 characters, control characters escaped") {
  const std::string message = error_of(kBase, {{"training.precision", std::string(5000000, 'x')}});
  CHECK_THAT(message, Catch::Contains("'" + std::string(80, 'x') + "...'"));
  CHECK(message.size() < 300);
  CHECK_THAT(error_of(std::string(kBase) + "training: {head: \"a\\nb\\0c\"}\n"), Catch::Contains("duplicated key"));
  CHECK_THAT(error_of("model: {head: \"a\\nb\\0c\"}\n"), Catch::Contains("'a\\nb\\x00c'"));
  CHECK(echo(std::string("\xc3\xa9", 2) + std::string(79, 'y') + "\xc3\xa9") ==
        std::string("\xc3\xa9", 2) + std::string(78, 'y') + "...");
}

TEST_CASE("a Llama layer is written with kv_heads, mlp, norm, position and bias, GPT layers by default") {
  const Workload gpt = parse_workload(kBase, "w.yaml");
  CHECK(gpt.model.query_groups() == 16);
  CHECK(gpt.model.mlp == Mlp::gelu);
  CHECK(gpt.model.norm == Norm::layernorm);
  CHECK(gpt.model.position == Position::learned);
  CHECK(gpt.model.bias);
  const Workload llama = parse_workload(kBase, "w.yaml",
                                        {{"model.kv_heads", "4"}, {"model.mlp", "swiglu"}, {"model.norm", "rmsnorm"},
                                         {"model.position", "rope"}, {"model.bias", "false"}});
  CHECK(llama.model.query_groups() == 4);
  CHECK(llama.model.kv_hidden() == 4 * 128);
  CHECK(llama.model.mlp == Mlp::swiglu);
  CHECK(llama.model.norm == Norm::rmsnorm);
  CHECK(llama.model.position == Position::rope);
  CHECK_FALSE(llama.model.bias);
  CHECK(llama.model.causal);
  CHECK_FALSE(parse_workload(kBase, "w.yaml", {{"model.causal", "false"}}).model.causal);
  CHECK_THAT(error_of(kBase, {{"model.kv_heads", "5"}}),
             Catch::Contains("w.yaml: model.kv_heads") && Catch::Contains("do not divide the 16 heads"));
  CHECK_THAT(error_of(kBase, {{"model.kv_heads", "2"}, {"parallelism.tp", "4"}, {"parallelism.pp", "2"}}),
             Catch::Contains("w.yaml: parallelism.tp") && Catch::Contains("does not divide kv_heads 2"));
  CHECK_THAT(error_of(kBase, {{"model.mlp", "relu"}}), Catch::Contains("model.mlp") && Catch::Contains("gelu"));
  CHECK_THAT(error_of(kBase, {{"model.kv_heads", "0"}}), Catch::Contains("model.kv_heads"));
}

TEST_CASE("multi-head latent attention takes Megatron-LM's dimensions unless the workload gives its own") {
  const Workload plain = parse_workload(kBase, "w.yaml");
  CHECK_FALSE(plain.model.latent_attention);
  CHECK(plain.model.kv_lora_rank == 0);
  CHECK(plain.model.qk_head_width() == 128);
  // megatron/training/arguments.py, _add_mla_args: --q-lora-rank None, --kv-lora-rank 32,
  // --qk-head-dim 128, --qk-pos-emb-head-dim 64, --v-head-dim 128.
  const Workload mla = parse_workload(kBase, "w.yaml", {{"model.latent_attention", "true"}});
  CHECK(mla.model.q_lora_rank == 0);
  CHECK(mla.model.kv_lora_rank == 32);
  CHECK(mla.model.qk_head_dim == 128);
  CHECK(mla.model.qk_pos_emb_head_dim == 64);
  CHECK(mla.model.v_head_dim == 128);
  CHECK(mla.model.qk_head_width() == 192);
  const Workload given = parse_workload(kBase, "w.yaml",
                                        {{"model.latent_attention", "true"}, {"model.q_lora_rank", "1536"},
                                         {"model.kv_lora_rank", "512"}, {"model.v_head_dim", "64"}});
  CHECK(given.model.q_lora_rank == 1536);
  CHECK(given.model.kv_lora_rank == 512);
  CHECK(given.model.v_head_width() == 64);
  CHECK_THAT(error_of(kBase, {{"model.kv_lora_rank", "512"}}),
             Catch::Contains("w.yaml: model.kv_lora_rank: applies to multi-head latent attention only"));
  CHECK_THAT(error_of(kBase, {{"model.latent_attention", "true"}, {"model.kv_lora_rank", "0"}}),
             Catch::Contains("w.yaml: model.kv_lora_rank: 0 is out of range"));
  CHECK_THAT(error_of(kBase, {{"model.latent_attention", "true"}, {"model.kv_heads", "4"}}),
             Catch::Contains("w.yaml: model.kv_heads: does not apply to multi-head latent attention"));
  CHECK_THAT(error_of(kBase, {{"model.multi_latent_attention", "true"}}),
             Catch::Contains("did you mean model.latent_attention?"));
}

TEST_CASE("unknown keys are named all at once, each with the key it most likely means") {
  const std::string megatron_names = R"(
model: {num_layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}
training: {global_batch: 64, micro_batch_size: 1, precision: fp32, recompute: full}
parallelism: {pp: 8, schedule: gpipe, tensor-model-parallel-size: 1}
framework: torch-pipe
)";
  const std::string e = error_of(megatron_names);
  CHECK_THAT(e, Catch::Contains("w.yaml: 3 unknown keys"));
  CHECK_THAT(e, Catch::Contains("model.num_layers (did you mean model.layers?)"));
  CHECK_THAT(e, Catch::Contains("training.micro_batch_size (did you mean training.micro_batch?)"));
  CHECK_THAT(e, Catch::Contains("parallelism.tensor-model-parallel-size (did you mean parallelism.tp?)"));
  // One alone: its section's keys listed, the right key in the wrong section, a misspelling.
  const std::string one = R"(
model: {layers: 24, hidden: 2048, heads: 16, seqlen: 2048, vocab: 50257}
training: {global_batch: 64, precision: fp32, recompute: full}
parallelism: {dp: 1, pp: 8, schedule: gpipe}
framework: torch-pipe
)";
  CHECK_THAT(error_of(one), Catch::Contains("w.yaml: model.seqlen: unknown key (did you mean model.seq_len?)") &&
                                Catch::Contains("valid keys of model"));
  CHECK_THAT(error_of(kBase, {{"model.micro_batch", "2"}}), Catch::Contains("did you mean training.micro_batch?"));
  CHECK_THAT(error_of(kBase, {{"model.layrs", "2"}}), Catch::Contains("did you mean model.layers?"));
  CHECK_THAT(error_of(kBase, {{"model.zzzzzz", "2"}}), !Catch::Contains("did you mean"));
}
