// ZeRO-3 (Megatron-FSDP, FSDP2) with expert parallelism: the dense weights gathered and their
// gradients reduce-scattered over the data-parallel group, the routed experts' over the
// expert-data-parallel groups that hold the same experts, none where every replica holds its own.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

namespace {

// Mixtral's layers, 4 of them, on `dp` H100s with ep 8: two micro-batches a replica.
nlohmann::ordered_json run_sharded_experts(int zero, int dp, bool estimate = false) {
  const DataPaths data = default_data_paths();
  const Overrides o{{"model.layers", "4"},
                    {"parallelism.zero", std::to_string(zero)},
                    {"parallelism.ep", "8"},
                    {"parallelism.tp", "1"},
                    {"parallelism.pp", "1"},
                    {"parallelism.dp", std::to_string(dp)},
                    {"parallelism.sequence_parallel", "false"},
                    {"placement.gpus", std::to_string(dp)},
                    {"training.global_batch", std::to_string(2 * dp)}};
  return run_isolated([&] {
    Workload w = load_workload(data.find("workloads/mixtral_8x7b.yaml"), o);
    SimulationOptions options;
    if (estimate)
      options.fidelity = SimulationOptions::Fidelity::estimate;
    return report_json(simulate(data.find(dp > 8 ? "platforms/dgx_h100_x2.yaml" : "platforms/dgx_h100_x1.yaml"), w,
                                data, options));
  });
}

int gathers_on_gpu0(const nlohmann::ordered_json& r) { return r["collectives"]["allgather"]["per_gpu"].get<int>(); }

} // namespace

TEST_CASE("ZeRO-3 with expert parallelism gathers the experts over their own data-parallel group") {
  // Each pass gathers the embedding, every layer's dense weights and its experts (dp 16 > ep 8:
  // two replicas hold each expert), and the head: (2 + 2 x 4) units, forward and backward, twice.
  const auto sixteen = run_sharded_experts(3, 16);
  CHECK(gathers_on_gpu0(sixteen) == 2 * 2 * (2 + 2 * 4));
  CHECK(sixteen["collectives"]["reducescatter"]["per_gpu"].get<int>() == 2 * (2 + 2 * 4));
  // dp = ep: every replica holds experts of its own, sharded with no one: only the dense weights move.
  const auto eight = run_sharded_experts(3, 8);
  CHECK(gathers_on_gpu0(eight) == 2 * 2 * (2 + 4));
  // The weights held: the dense ones over 16 replicas, the experts over 2 (a third of ZeRO-1's whole copy here).
  const auto distributed = run_sharded_experts(1, 16);
  CHECK(sixteen["stages"][0]["memory_gib"]["weights"].get<double>() <
        distributed["stages"][0]["memory_gib"]["weights"].get<double>() / 2.5);
  // The closed form prices the same gathers.
  CHECK(run_sharded_experts(3, 16, true)["step_time_s"].get<double>() ==
        Approx(sixteen["step_time_s"].get<double>()).epsilon(0.1));
}
