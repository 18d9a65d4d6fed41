#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {
const char* kBase = R"(
model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}
training: {global_batch: 64, micro_batch: 1, precision: fp32, recompute: full}
parallelism: {pp: 8, schedule: gpipe}
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
  CHECK_THAT(error_of(std::string(kBase) + "extra: 1\n"), Catch::Contains("w.yaml: extra") && Catch::Contains("framework, framework_options, model"));
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
  CHECK_THAT(error_of(kBase, {{"parallelism.partition", "0,24"}}), Catch::Contains("positive integers"));
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
