// workload_yaml: the workload as simulated, every key written, reads back as the same workload.
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace simgpt;

TEST_CASE("every shipped workload, written resolved, reads back to the same resolved text") {
  const DataPaths data = default_data_paths();
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data.find("workloads"))) {
    const Workload w = load_workload(entry.path().string());
    const std::string text = workload_yaml(w);
    const Workload again = parse_workload(text, "resolved");
    CHECK(workload_yaml(again) == text);
    CHECK(again.gpus() == w.gpus());
    ++files;
  }
  CHECK(files >= 8);
}

TEST_CASE("the resolved workload keeps overrides, a listed partition, the network what-if and options") {
  const std::string file = R"(model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}
training: {global_batch: 64}
parallelism: {pp: 2, partition: "13,11"}
framework: megatron
framework_options: {compute.fused_elementwise: "false"}
)";
  const Workload w = parse_workload(file, "w.yaml", {{"network.delay", "10ms"}, {"network.bandwidth", "1Gbps"}});
  REQUIRE(w.overrides.size() == 2);
  const std::string text = workload_yaml(w);
  CHECK_THAT(text, Catch::Contains("partition: \"13,11\""));
  CHECK_THAT(text, Catch::Contains("delay: \"0.01s\""));
  CHECK_THAT(text, Catch::Contains("bandwidth: \"125000000Bps\""));
  CHECK_THAT(text, Catch::Contains("compute.fused_elementwise: \"false\""));
  CHECK_THAT(text, Catch::Contains("ffn_hidden: 8192"));
  const Workload again = parse_workload(text, "resolved");
  CHECK(again.network.delay_s == w.network.delay_s);
  CHECK(again.network.bandwidth_Bps == w.network.bandwidth_Bps);
  CHECK(again.parallelism.stage_layers == std::vector<int64_t>{13, 11});
  CHECK(again.framework_options == w.framework_options);
  CHECK(workload_yaml(again) == text);
}
