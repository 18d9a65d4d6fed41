// CUDA graphs as Megatron-Core scopes them (compute.cuda_graphs) on a replayed MoE step: a captured
// block's kernels are issued with one host launch, an eager one's one every compute.op_overhead
// (tests/cost/test_host_dispatch.cpp); a whole MoE block only with a fixed capacity.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

namespace {

nlohmann::ordered_json run_qwen3(const Overrides& extra) {
  const DataPaths data = default_data_paths();
  // Qwen3-30B-A3B's MoE on 8 GPUs at 4 layers, its host time made visible: short kernels, slow issue.
  Overrides o{{"model.layers", "4"},           {"model.hidden", "2048"},       {"model.heads", "32"},
              {"model.kv_heads", "4"},         {"model.head_dim", "128"},      {"model.ffn_hidden", "6144"},
              {"model.experts", "128"},        {"model.top_k", "8"},           {"model.moe_ffn_hidden", "768"},
              {"model.seq_len", "1024"},       {"model.vocab", "151936"},      {"parallelism.pp", "1"},
              {"parallelism.dp", "8"},         {"parallelism.ep", "8"},        {"placement.gpus", "8"},
              {"training.global_batch", "16"}, {"training.micro_batch", "1"}, {"model.dense_layers", "0"},
              {"framework_options.compute.op_overhead", "100us"}};
  o.insert(o.end(), extra.begin(), extra.end());
  return run_isolated([&] {
    Workload w = load_workload(data.find("workloads/mixtral_8x7b.yaml"), o);
    return report_json(simulate(data.find("platforms/dgx_h100_x1.yaml"), w, data));
  });
}

double step_seconds(const nlohmann::ordered_json& r) { return r["step_time_s"].get<double>(); }

} // namespace

TEST_CASE("graphs over more of a MoE step leave less of the host's time on it") {
  const double eager = step_seconds(run_qwen3({}));
  const double router = step_seconds(run_qwen3({{"framework_options.compute.cuda_graphs", "[moe_router, moe_preprocess]"}}));
  const double scoped =
      step_seconds(run_qwen3({{"framework_options.compute.cuda_graphs", "[attn, moe_router, moe_preprocess]"}}));
  const double iteration = step_seconds(run_qwen3({{"framework_options.compute.cuda_graphs", "iteration"}}));
  CHECK(router < eager);
  CHECK(scoped < router);
  CHECK(iteration < scoped);
  // true is the whole iteration, false none.
  CHECK(step_seconds(run_qwen3({{"framework_options.compute.cuda_graphs", "true"}})) == iteration);
  CHECK(step_seconds(run_qwen3({{"framework_options.compute.cuda_graphs", "false"}})) == eager);
  // Without host time, graphs change nothing.
  const Overrides no_host = {{"framework_options.compute.op_overhead", "0us"}};
  Overrides graphed = no_host;
  graphed.emplace_back("framework_options.compute.cuda_graphs", "iteration");
  CHECK(step_seconds(run_qwen3(graphed)) == step_seconds(run_qwen3(no_host)));
}

TEST_CASE("a whole MoE block is captured only with a fixed capacity, as Megatron-Core allows") {
  const auto refusal = [](const Overrides& o) -> std::string {
    try {
      run_qwen3(o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  for (const char* whole : {"layers", "[moe]", "[attn, moe]"})
    CHECK_THAT(refusal({{"framework_options.compute.cuda_graphs", whole}}),
               Catch::Contains("compute.cuda_graphs") && Catch::Contains("fixed expert capacity"));
  CHECK(refusal({{"framework_options.compute.cuda_graphs", "layers"}, {"model.capacity_factor", "1"}}).empty());
  CHECK_THAT(refusal({{"framework_options.compute.cuda_graphs", "[attn, router]"}}),
             Catch::Contains("'router' is not a CUDA graph scope"));
  CHECK_THAT(refusal({{"framework_options.compute.cuda_graphs", "sometimes"}}),
             Catch::Contains("'sometimes' is not valid") && Catch::Contains("iteration, layers"));
}
