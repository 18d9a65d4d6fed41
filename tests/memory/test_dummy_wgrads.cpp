// TransformerEngine's cached placeholder weight gradients (profile key memory.dummy_wgrads): under
// Megatron's fused gradient accumulation one weight-sized tensor per distinct linear weight shape on
// the GPU, whatever the number of layers sharing it; grouped experts' shapes from TE 2.10.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

using namespace simgpt;

namespace {

double peak_allocated_bytes(const char* workload, const char* dummy_wgrads, int layers,
                            std::vector<std::pair<std::string, std::string>> more = {}) {
  const DataPaths data = default_data_paths();
  std::vector<std::pair<std::string, std::string>> sets = {{"framework", "megatron"},
                                                           {"framework_options.memory.dummy_wgrads", dummy_wgrads},
                                                           {"model.layers", std::to_string(layers)},
                                                           {"parallelism.pp", "1"},
                                                           {"training.micro_batch", "1"}};
  sets.insert(sets.end(), more.begin(), more.end());
  const auto report = run_isolated([&] {
    const Workload w = load_workload(data.find(workload), sets);
    return report_json(simulate(data.find("platforms/dgx_h200.xml"), w, data));
  });
  return report["peak_allocated_gib"].get<double>() * (1 << 30);
}

} // namespace

TEST_CASE("one cached placeholder gradient per distinct linear weight shape, shared by the layers") {
  const std::vector<std::pair<std::string, std::string>> tp2 = {
      {"parallelism.tp", "2"}, {"parallelism.dp", "4"}, {"parallelism.sequence_parallel", "true"},
      {"training.global_batch", "4"}};
  // Llama 3 8B at tp 2, bf16: QKV [(4096 + 2 x 1024) / 2, 4096], the projection [4096, 2048], FC1
  // [2 x 14336 / 2, 4096] and FC2 [4096, 7168], two bytes each element.
  const double shapes = 3072.0 * 4096 + 4096.0 * 2048 + 14336.0 * 4096 + 4096.0 * 7168;
  for (int layers : {2, 4}) {
    const double none = peak_allocated_bytes("workloads/llama3_8b.yaml", "none", layers, tp2);
    CHECK(peak_allocated_bytes("workloads/llama3_8b.yaml", "dense", layers, tp2) - none ==
          Approx(2 * shapes).epsilon(1e-6));
  }
}

TEST_CASE("grouped experts' placeholder gradients only from TransformerEngine 2.10's grouped linear") {
  const std::vector<std::pair<std::string, std::string>> ep = {
      {"parallelism.tp", "1"}, {"parallelism.dp", "8"}, {"parallelism.ep", "8"}, {"training.global_batch", "8"}};
  const double dense = peak_allocated_bytes("workloads/mixtral_8x7b.yaml", "dense", 2, ep);
  const double grouped = peak_allocated_bytes("workloads/mixtral_8x7b.yaml", "dense_and_grouped", 2, ep);
  // One expert of Mixtral 8x7B on each GPU: FC1 [2 x 14336, 4096] and FC2 [4096, 14336].
  CHECK(grouped - dense == Approx(2 * (28672.0 * 4096 + 4096.0 * 14336)).epsilon(1e-6));
}
