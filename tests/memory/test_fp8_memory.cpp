// Under fp8 training the linear layers keep their inputs for the backward as one-byte fp8 copies,
// and TransformerEngine keeps fp8 copies of their weights (memory/memory.cpp, memory/footprint.cpp).
#include "cost/compute_cost.hpp"
#include "execution/plan.hpp"
#include "memory/static_peak.hpp"
#include "model/fp8.hpp"
#include "model/model.hpp"
#include "simgpt/memory/memory.hpp"
#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

ModelSpec fp8_gpt(int64_t hidden, int64_t heads, int64_t seq) {
  return {.layers = 1, .hidden = hidden, .heads = heads, .seq_len = seq, .vocab = 1000, .ffn_hidden = 4 * hidden};
}

double bytes(const ModelSpec& m, int64_t tp, bool sp, bool fp8, bool experts = false) {
  return layer_activation_bytes(m, 1, tp, sp, Recompute::none, Precision::bf16, true, 1, 4, false, experts, fp8);
}

} // namespace

TEST_CASE("fp8 keeps the linear layers' inputs in one byte instead of two") {
  const ModelSpec m = fp8_gpt(2048, 16, 2048);
  const double sbh = 2048.0 * 2048;
  // Standard core, tp 1: QKV's and FC1's inputs (sbh each), the projection's (sbh) and FC2's
  // (4 sbh) drop from 2 bytes to 1.
  CHECK(bytes(m, 1, false, false) - bytes(m, 1, false, true) == Approx(sbh * (2 + 1 + 4)));
  // Tensor parallelism splits the projection's and FC2's inputs; sequence parallelism QKV's and FC1's.
  CHECK(bytes(m, 4, false, false) - bytes(m, 4, false, true) == Approx(sbh * (2 + 5.0 / 4)));
  CHECK(bytes(m, 4, true, false) - bytes(m, 4, true, true) == Approx(sbh * (2 + 5.0) / 4));
  // FlashAttention keeps its output O in two bytes for its backward: the projection's fp8 copy
  // is one byte more, not one less.
  ModelSpec flash = m;
  flash.attention = Attention::flash;
  CHECK(bytes(flash, 1, false, false) - bytes(flash, 1, false, true) == Approx(sbh * (2 - 1 + 4)));
  // Full recompute keeps the layer's input only, in the model's precision.
  CHECK(layer_activation_bytes(m, 1, 1, false, Recompute::full, Precision::bf16, true, 1, 4, false, false, true) ==
        2 * sbh);
}

TEST_CASE("a MoE layer under fp8 keeps its experts' inputs and FC2 inputs in one byte") {
  ModelSpec m = fp8_gpt(1024, 8, 1024);
  m.experts = 8;
  m.top_k = 2;
  m.moe_ffn_hidden = 2048;
  const double tokens = 1024, sbh = tokens * 1024;
  // QKV's and FC1's inputs and the projection's (3 sbh), then per token top_k copies of the
  // experts' FC1 input (h) and FC2 input (moe_ffn), one byte less each.
  CHECK(bytes(m, 1, false, false, true) - bytes(m, 1, false, true, true) ==
        Approx(sbh * (2 + 1) + tokens * 2 * (1024 + 2048)));
}

TEST_CASE("the fp8 weight copies add 2 bytes a linear weight on Hopper, 1 on Blackwell, and activations shrink") {
  const DataPaths data = default_data_paths();
  const GpuCatalog catalog = load_catalog(data);
  Workload w = load_workload(data.find("workloads/llama3_70b.yaml"),
                             {{"parallelism.pp", "1"}, {"parallelism.dp", "1"}, {"parallelism.schedule", "1f1b"},
                              {"parallelism.chunks", "1"}, {"parallelism.zero", "0"}, {"model.layers", "4"},
                              {"training.global_batch", "4"}});
  const Profile profile = load_workload_profile(w, data);
  const auto memory = [&](Fp8Format fp8, const std::string& gpu_name) {
    w.training.fp8 = fp8;
    const GpuSpec& gpu = catalog.at(gpu_name, "test");
    const ComputeCostModel cost(gpu, profile, w.training, w.source);
    return static_peak(make_plan(w, cost, profile), w, profile, gpu).stage;
  };
  const double linear_weights = 4 * layer_fp8_weight_elements(w.model, 8, 1, 0);
  for (const auto& [gpu, copy_bytes] : {std::pair{"H100-SXM5-80GB", 2.0}, std::pair{"B200-SXM-180GB", 1.0}}) {
    const MemoryReport bf16 = memory(Fp8Format::none, gpu), fp8 = memory(Fp8Format::hybrid, gpu);
    CHECK(fp8.weights - bf16.weights == Approx(copy_bytes * linear_weights));
    CHECK(fp8.gradients == bf16.gradients);
    CHECK(fp8.optimizer_state == bf16.optimizer_state);
    CHECK(fp8.activations < bf16.activations);
  }
}

TEST_CASE("fp8 parameters replace the 16-bit weights of the linear layers and are gathered at one byte") {
  const DataPaths data = default_data_paths();
  const GpuCatalog catalog = load_catalog(data);
  Workload w = load_workload(data.find("workloads/llama3_70b.yaml"),
                             {{"parallelism.pp", "1"}, {"parallelism.dp", "8"}, {"parallelism.tp", "1"},
                              {"parallelism.schedule", "1f1b"}, {"parallelism.chunks", "1"}, {"parallelism.zero", "1"},
                              {"parallelism.sequence_parallel", "false"}, {"model.layers", "4"},
                              {"training.global_batch", "8"}, {"training.fp8", "hybrid"},
                              {"training.fp8_recipe", "tensorwise"}});
  const Profile profile = load_workload_profile(w, data);
  const double linear_weights = 4 * layer_fp8_weight_elements(w.model, 1, 1, 0);
  const auto run = [&](bool fp8_params, int zero, const std::string& gpu_name) {
    w.training.fp8_param_gather = fp8_params;
    w.parallelism.zero = zero;
    const GpuSpec& gpu = catalog.at(gpu_name, "test");
    const ComputeCostModel cost(gpu, profile, w.training, w.source);
    const ExecutionPlan plan = make_plan(w, cost, profile);
    return std::pair{plan.layer.param_bytes, static_peak(plan, w, profile, gpu).stage};
  };
  for (const auto& [gpu, copy_bytes] : {std::pair{"H100-SXM5-80GB", 2.0}, std::pair{"B200-SXM-180GB", 1.0}}) {
    const auto [cached_gather, cached] = run(false, 1, gpu);
    const auto [fp8_gather, fp8_params] = run(true, 1, gpu);
    // TransformerEngine's copies stay (one byte, and the transpose on a TN-only GPU); the 16-bit
    // weights they were cast from go.
    CHECK(cached.weights - fp8_params.weights == Approx(2 * linear_weights));
    CHECK(fp8_params.optimizer_state == cached.optimizer_state);
    CHECK(fp8_params.gradients == cached.gradients);
    // The distributed optimizer's all-gather moves one byte a linear weight, two the rest.
    CHECK(cached_gather - fp8_gather == Approx(linear_weights / 4));
    CHECK(cached.weights - copy_bytes * linear_weights == Approx(fp8_params.weights + 2 * linear_weights - copy_bytes * linear_weights));
    // Under ZeRO-3 each rank keeps its eighth of the fp8 data and nothing whole: a byte a linear
    // weight less than 16-bit training's eighth.
    const auto [zero3_gather, zero3] = run(true, 3, gpu);
    CHECK(zero3_gather == Approx(fp8_gather));
    w.training.fp8 = Fp8Format::none;
    w.training.fp8_recipe = Fp8Recipe::delayed;
    const auto [bf16_gather, bf16_zero3] = run(false, 3, gpu);
    w.training.fp8 = Fp8Format::hybrid;
    w.training.fp8_recipe = Fp8Recipe::tensorwise;
    CHECK(bf16_gather - zero3_gather == Approx(linear_weights / 4));
    CHECK(bf16_zero3.weights - zero3.weights == Approx(linear_weights / 8));
  }
}
