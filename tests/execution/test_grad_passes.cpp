// The framework's passes over the gradients outside the optimizer's update (optimizer.grad_passes,
// execution/plan.cpp): Megatron-LM's buffer zeroing, 1/dp scale and NaN check over the gradients a GPU holds,
// and the clip's norm over those it updates, on GPT-3 XL in bf16 with fp32 gradients on a B200.
#include "cost/compute_cost.hpp"
#include "execution/plan.hpp"
#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

namespace {

struct Plans {
  ExecutionPlan with, without;
  double bandwidth = 0; // the optimizer's memory bandwidth, bytes a second
};

Plans megatron_plans(const std::string& dp, const std::string& zero) {
  const DataPaths data = default_data_paths();
  const GpuCatalog catalog = load_catalog(data);
  const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"),
                                   {{"framework", "megatron"}, {"training.precision", "bf16"},
                                    {"training.global_batch", dp}, {"training.micro_batch", "1"},
                                    {"parallelism.dp", dp}, {"parallelism.tp", "1"}, {"parallelism.pp", "1"},
                                    {"parallelism.zero", zero}, {"placement.gpus", dp}});
  Profile profile = load_workload_profile(w, data);
  REQUIRE(profile.memory.fp32_grads_with_bf16); // 4-byte gradients
  const GpuSpec& gpu = catalog.at("B200-SXM-180GB", "test");
  Plans p;
  p.bandwidth = gpu.memory_bandwidth * gpu.memory_efficiency;
  profile.grad_passes = {.zero_buffer = true, .dp_scale = true, .nan_check = true, .clip_norm = true};
  p.with = make_plan(w, ComputeCostModel(gpu, profile, w.training, w.source), profile);
  profile.grad_passes = {};
  p.without = make_plan(w, ComputeCostModel(gpu, profile, w.training, w.source), profile);
  return p;
}

} // namespace

TEST_CASE("gradient passes: zeroing and the 1/dp scale over every gradient held, the norm over those updated") {
  const Plans p = megatron_plans("4", "1");
  const StageCost& with = p.with.stages[0];
  const StageCost& without = p.without.stages[0];
  const double params = with.parameters;
  REQUIRE(params > 1e9);
  // Zeroing writes the fp32 buffer once, the scale reads and writes it, the NaN check reads it: 16
  // bytes a parameter, none of it sharded by the distributed optimizer.
  CHECK(without.grad_pass_s == 0);
  CHECK(with.grad_pass_s == Approx(params * 16 / p.bandwidth));
  // The norm reads the fp32 main gradients once: inside the optimizer's step, which ZeRO-1 shards.
  CHECK(with.optimizer_s - without.optimizer_s == Approx(params * 4 / p.bandwidth));
  CHECK(optimizer_seconds(p.with, 0) - optimizer_seconds(p.without, 0) ==
        Approx(params * 16 / p.bandwidth + params * 4 / p.bandwidth / 4));
}

TEST_CASE("gradient passes: no scale at dp 1, and ZeRO-3 holds 1/dp of the gradients") {
  const Plans single = megatron_plans("1", "0");
  const double params = single.with.stages[0].parameters;
  CHECK(single.with.stages[0].grad_pass_s == Approx(params * 8 / single.bandwidth)); // zeroing and the check
  const Plans sharded = megatron_plans("4", "3");
  const double held = sharded.with.stages[0].parameters / 4;
  CHECK(sharded.with.stages[0].grad_pass_s == Approx(held * 16 / sharded.bandwidth));
}
