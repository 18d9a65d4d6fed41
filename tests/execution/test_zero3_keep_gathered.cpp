// FSDP2's reshard_after_forward (profile key zero3.reshard_after_forward): torchtitan keeps each
// pipeline stage's weights gathered over the step's micro-batches, so a stage all-gathers each of
// its units once a step instead of before every forward and backward; the unsharded weights and
// the fp32 gradients accumulated until the last micro-batch are held in memory meanwhile.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

nlohmann::ordered_json run_zero3(const char* reshard) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"),
                                     {{"framework", "torchtitan"},
                                      {"framework_options.zero3.reshard_after_forward", reshard},
                                      {"model.attention", "flash"},
                                      {"parallelism.tp", "1"},
                                      {"parallelism.pp", "2"},
                                      {"parallelism.dp", "4"},
                                      {"parallelism.zero", "3"},
                                      {"parallelism.schedule", "1f1b"},
                                      {"training.precision", "fp16"},
                                      {"training.global_batch", "16"},
                                      {"training.micro_batch", "1"}});
    return report_json(simulate(data.find("platforms/p3_16xlarge.xml"), w, data));
  });
}

} // namespace

TEST_CASE("weights kept gathered under pipelining are gathered once a step and held in memory") {
  const auto kept = run_zero3("unless_pipelined");
  const auto resharded = run_zero3("always");
  // 4 micro-batches a replica: resharded, each unit is gathered before each of its 4 forwards and
  // 4 backwards; kept, once.
  const double kept_gathers = kept["communication"]["dp"]["per_gpu"].get<double>();
  const double resharded_gathers = resharded["communication"]["dp"]["per_gpu"].get<double>();
  CHECK(kept_gathers < resharded_gathers);
  CHECK(kept["communication"]["dp"]["bytes"].get<double>() < resharded["communication"]["dp"]["bytes"].get<double>());
  CHECK(kept["step_time_s"].get<double>() < resharded["step_time_s"].get<double>());
  // Held: the stage's unsharded weights and its accumulated gradients.
  CHECK(kept["peak_allocated_gib"].get<double>() > resharded["peak_allocated_gib"].get<double>());
  // The reserved peak counts the live tensors and the allocator's cache, never the CUDA context.
  CHECK(kept["peak_reserved_gib"].get<double>() >= kept["peak_allocated_gib"].get<double>());
  CHECK(kept["peak_reserved_gib"].get<double>() < kept["peak_memory_gib"].get<double>());
}

TEST_CASE("fp8 runs with ZeRO-3 where the profile casts at every use, and the casts cost time") {
  const DataPaths data = default_data_paths();
  const auto step = [&](const char* fp8) {
    return run_isolated([&] {
      const Workload w = load_workload(data.find("workloads/llama3_8b.yaml"),
                                       {{"framework", "torchtitan"}, {"model.layers", "2"},
                                        {"parallelism.tp", "1"}, {"parallelism.pp", "1"},
                                        {"parallelism.dp", "8"}, {"parallelism.zero", "3"},
                                        {"parallelism.sequence_parallel", "false"},
                                        {"training.global_batch", "8"}, {"training.fp8", fp8},
                                        {"training.fp8_recipe", std::string(fp8) == "none" ? "delayed" : "tensorwise"}});
      return report_json(simulate(data.find("platforms/dgx_h200.xml"), w, data));
    });
  };
  const auto bf16 = step("none");
  const auto fp8 = step("hybrid");
  CHECK(fp8["step_time_s"].get<double>() < bf16["step_time_s"].get<double>());
  // No fp8 weight copy is kept and the inputs stay in bf16: the same memory as bf16.
  CHECK(fp8["peak_allocated_gib"].get<double>() == Approx(bf16["peak_allocated_gib"].get<double>()).epsilon(0.01));
}

TEST_CASE("overlap_param_gather moves the sharded optimizer's weight gather into the forward, layer by layer") {
  const DataPaths data = default_data_paths();
  const auto run = [&](const char* overlap) {
    return run_isolated([&] {
      const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"),
                                       {{"framework", "megatron"},
                                        {"parallelism.tp", "1"},
                                        {"parallelism.pp", "1"},
                                        {"parallelism.dp", "8"},
                                        {"parallelism.zero", "1"},
                                        {"parallelism.overlap_param_gather", overlap},
                                        {"training.global_batch", "16"},
                                        {"training.micro_batch", "1"}});
      return report_json(simulate(data.find("platforms/p3_16xlarge.xml"), w, data));
    });
  };
  const auto after = run("false"), overlapped = run("true");
  // One gather after the update, or one a unit (embedding, 24 layers, the head's final norm) in the
  // forward, beside the one reduce-scatter; the same bytes.
  CHECK(after["communication"]["dp"]["per_gpu"].get<double>() == 2);
  CHECK(overlapped["communication"]["dp"]["per_gpu"].get<double>() == 1 + 26);
  CHECK(overlapped["communication"]["dp"]["bytes"].get<double>() ==
        Approx(after["communication"]["dp"]["bytes"].get<double>()).epsilon(0.02));
  CHECK(overlapped["step_time_s"].get<double>() < after["step_time_s"].get<double>());
  CHECK(overlapped["communication"]["dp"]["hidden_s"].get<double>() > 0);
}

TEST_CASE("align_param_gather issues each model chunk's weight gathers ahead of its first forward") {
  const DataPaths data = default_data_paths();
  const auto run = [&](const char* schedule, const char* align, bool estimate = false,
                       const char* platform = "platforms/p3_16xlarge.xml") {
    return run_isolated([&] {
      const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"),
                                       {{"framework", "megatron"},
                                        {"parallelism.tp", "1"},
                                        {"parallelism.pp", "2"},
                                        {"parallelism.dp", "4"},
                                        {"parallelism.zero", "1"},
                                        {"parallelism.schedule", schedule},
                                        {"parallelism.chunks", std::string(schedule) == "interleaved" ? "4" : "1"},
                                        {"parallelism.overlap_param_gather", "true"},
                                        {"parallelism.align_param_gather", align},
                                        {"training.global_batch", "32"},
                                        {"training.micro_batch", "1"},
                                        {"placement.gpus", "8"}});
      SimulationOptions options;
      if (estimate)
        options.fidelity = SimulationOptions::Fidelity::estimate;
      return report_json(simulate(data.find(platform), w, data, options));
    });
  };
  // Interleaved: each chunk's first forward waits for its first unit's gather without it; with it,
  // the gathers run ahead while earlier chunks compute.
  const auto on_use = run("interleaved", "false"), aligned = run("interleaved", "true");
  CHECK(aligned["communication"]["dp"]["exposed_s"].get<double>() <
        0.8 * on_use["communication"]["dp"]["exposed_s"].get<double>());
  CHECK(aligned["step_time_s"].get<double>() < on_use["step_time_s"].get<double>());
  // The same gathers and bytes.
  CHECK(aligned["communication"]["dp"]["count"] == on_use["communication"]["dp"]["count"]);
  CHECK(aligned["communication"]["dp"]["bytes"].get<double>() == on_use["communication"]["dp"]["bytes"].get<double>());
  // The closed-form estimate prices the passes with the weights gathered (each chunk's first
  // forward gathers them, not every forward), so it stays near the replay, also where the gathers
  // are slow (8 single-GPU hosts at 10 Gbps: every forward gathering would double the step).
  const char* slow = "platforms/p3_2xlarge_x12.xml";
  CHECK(run("interleaved", "true", true, slow)["step_time_s"].get<double>() ==
        Approx(run("interleaved", "true", false, slow)["step_time_s"].get<double>()).epsilon(0.15));
  // Megatron uses it only in the interleaved schedule: 1F1B is unchanged.
  CHECK(run("1f1b", "true")["step_time_s"].get<double>() == run("1f1b", "false")["step_time_s"].get<double>());
}
