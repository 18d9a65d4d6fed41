// TransformerEngine's cached placeholder weight gradients (profile key memory.dummy_wgrads): under
// Megatron's fused gradient accumulation one weight-sized tensor per distinct linear weight shape on
// the GPU (the output layer's among them), whatever the number of layers sharing it; grouped
// experts' shapes from TE 2.10.
#include "support/peak_memory.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

namespace {

double peak(const char* workload, const char* dummy_wgrads, int layers, Overrides more) {
  Overrides sets = {{"framework", "megatron"},
                    {"framework_options.memory.dummy_wgrads", dummy_wgrads},
                    {"model.layers", std::to_string(layers)},
                    {"parallelism.pp", "1"},
                    {"training.micro_batch", "1"}};
  sets.insert(sets.end(), more.begin(), more.end());
  return peak_allocated_bytes("platforms/dgx_h200.xml", workload, sets);
}

} // namespace

TEST_CASE("one cached placeholder gradient per distinct linear weight shape, shared by the layers") {
  const Overrides tp2 = {
      {"parallelism.tp", "2"}, {"parallelism.dp", "4"}, {"parallelism.sequence_parallel", "true"},
      {"training.global_batch", "4"}};
  // Llama 3 8B at tp 2, bf16: QKV [(4096 + 2 x 1024) / 2, 4096], the projection [4096, 2048], FC1
  // [2 x 14336 / 2, 4096] and FC2 [4096, 7168], and the output layer's [128256 / 2, 4096]
  // (Megatron-Core's linear takes its placeholder from the same cache), two bytes each element.
  const double shapes = 3072.0 * 4096 + 4096.0 * 2048 + 14336.0 * 4096 + 4096.0 * 7168 + 64128.0 * 4096;
  for (int layers : {2, 4}) {
    const double none = peak("workloads/llama3_8b.yaml", "none", layers, tp2);
    CHECK(peak("workloads/llama3_8b.yaml", "dense", layers, tp2) - none ==
          Approx(2 * shapes).epsilon(1e-6));
  }
}

TEST_CASE("grouped experts' placeholder gradients only from TransformerEngine 2.10's grouped linear") {
  const Overrides ep = {
      {"parallelism.tp", "1"}, {"parallelism.dp", "8"}, {"parallelism.ep", "8"}, {"training.global_batch", "8"}};
  const double dense = peak("workloads/mixtral_8x7b.yaml", "dense", 2, ep);
  const double grouped = peak("workloads/mixtral_8x7b.yaml", "dense_and_grouped", 2, ep);
  // One expert of Mixtral 8x7B on each GPU: FC1 [2 x 14336, 4096] and FC2 [4096, 14336].
  CHECK(grouped - dense == Approx(2 * (28672.0 * 4096 + 4096.0 * 14336)).epsilon(1e-6));
}
