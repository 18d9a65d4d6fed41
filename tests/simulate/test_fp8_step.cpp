// A whole fp8 step (training.fp8) against its bf16 twin: Llama-3 70B as workloads/llama3_70b.yaml
// trains it on eight DGX H100.
#include "model/fp8.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/system/platform_generator.hpp"
#include "support/isolate.hpp"
#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <cstdio>

using namespace simgpt;

namespace {

nlohmann::ordered_json llama3_70b(const std::string& platform, const Overrides& overrides) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    const Workload w = load_workload(data.find("workloads/llama3_70b.yaml"), overrides);
    return report_json(simulate(platform, w, data));
  });
}

double stage_gib(const nlohmann::ordered_json& r, size_t stage, const char* part) {
  return r["stages"][stage]["memory_gib"][part].get<double>();
}

} // namespace

TEST_CASE("Llama-3 70B in fp8 on DGX H100 steps faster than in bf16, by less than 2x, holding the fp8 weight copies") {
  const DataPaths data = default_data_paths();
  PlatformSpec spec = load_platform_preset(data.presets(), "dgx-h100");
  spec.nodes = 8;
  const std::string platform = testing::scratch_path("fp8_dgx_h100_x8", ".xml");
  write_platform(spec, GpuCatalog::load(data.catalog()), platform);
  const nlohmann::ordered_json bf16 = llama3_70b(platform, {});
  const nlohmann::ordered_json fp8 = llama3_70b(platform, {{"training.fp8", "hybrid"}});
  const double t_bf16 = bf16["step_time_s"].get<double>(), t_fp8 = fp8["step_time_s"].get<double>();
  // The linear GEMMs run at twice the rate; the attention core, the casts, the norms and
  // elementwise kernels, the LM head and the communication do not.
  CHECK(t_fp8 < t_bf16);
  CHECK(t_bf16 / t_fp8 < 2);
  // Model FLOPs are the same work either way.
  CHECK(fp8["model_flops"].get<double>() == bf16["model_flops"].get<double>());
  // Each stage holds 20 layers (4 pipeline stages x 5 chunks of 4): their linear weights' fp8
  // copies and transposes, 2 bytes a weight on H100, on top of the bf16 weights. Gradients and
  // optimizer state are the bf16 run's.
  const Workload w = load_workload(data.find("workloads/llama3_70b.yaml"));
  const double copies_gib = 20 * layer_fp8_weight_elements(w.model, 8, 1, 0) * 2 / (1 << 30);
  for (size_t s = 0; s < 4; ++s) {
    CHECK(stage_gib(fp8, s, "weights") - stage_gib(bf16, s, "weights") == Approx(copies_gib).epsilon(1e-6));
    CHECK(stage_gib(fp8, s, "gradients") == stage_gib(bf16, s, "gradients"));
    CHECK(stage_gib(fp8, s, "optimizer_state") == stage_gib(bf16, s, "optimizer_state"));
    // The linear layers' inputs kept in fp8: fewer activation bytes.
    CHECK(stage_gib(fp8, s, "activations") < stage_gib(bf16, s, "activations"));
  }
  std::remove(platform.c_str());
}
