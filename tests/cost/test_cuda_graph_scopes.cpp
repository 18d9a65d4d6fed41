// CUDA graphs as Megatron-Core scopes them (compute.cuda_graphs): a captured block's kernels are
// issued with one host launch, an eager one's one every compute.op_overhead; a whole MoE block
// only with a fixed capacity.
#include "cost/compute_cost.hpp"
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

TEST_CASE("a CUDA graph scope spares only its own blocks the host's issue time") {
  GpuSpec gpu;
  gpu.name = "test";
  gpu.peak_flops = {{Precision::fp16, 100e12}};
  gpu.gemm_efficiency = {{Precision::fp16, 0.8}};
  gpu.memory_bandwidth = 1e12;
  gpu.memory_efficiency = 1;
  gpu.sms = 80;
  gpu.kernel_launch_s = 0;
  Profile profile;
  profile.op_overhead_s = 50e-6;
  profile.cuda_graphs.attention = true;
  profile.cuda_graphs.moe_router = true;
  const ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  const Kernels short_kernels(10, Kernel::memory(1e6)); // 1 us each: host-bound when eager
  CHECK(cost.seconds(short_kernels, GraphScope::attention) == Approx(10e-6));
  CHECK(cost.seconds(short_kernels, GraphScope::moe_router) == Approx(10e-6));
  for (GraphScope eager : {GraphScope::mlp, GraphScope::moe, GraphScope::mamba, GraphScope::outside_layers,
                           GraphScope::none})
    CHECK(cost.seconds(short_kernels, eager) == Approx(9 * 50e-6 + 1e-6));
}

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

double step(const nlohmann::ordered_json& r) { return r["step_time_s"].get<double>(); }

} // namespace

TEST_CASE("graphs over more of a MoE step leave less of the host's time on it") {
  const double eager = step(run_qwen3({}));
  const double router = step(run_qwen3({{"framework_options.compute.cuda_graphs", "[moe_router, moe_preprocess]"}}));
  const double scoped =
      step(run_qwen3({{"framework_options.compute.cuda_graphs", "[attn, moe_router, moe_preprocess]"}}));
  const double iteration = step(run_qwen3({{"framework_options.compute.cuda_graphs", "iteration"}}));
  CHECK(router < eager);
  CHECK(scoped < router);
  CHECK(iteration < scoped);
  // true is the whole iteration, false none.
  CHECK(step(run_qwen3({{"framework_options.compute.cuda_graphs", "true"}})) == iteration);
  CHECK(step(run_qwen3({{"framework_options.compute.cuda_graphs", "false"}})) == eager);
  // Without host time, graphs change nothing.
  const Overrides no_host = {{"framework_options.compute.op_overhead", "0us"}};
  Overrides graphed = no_host;
  graphed.emplace_back("framework_options.compute.cuda_graphs", "iteration");
  CHECK(step(run_qwen3(graphed)) == step(run_qwen3(no_host)));
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
