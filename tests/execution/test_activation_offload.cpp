// Activation offloading (training.cpu_offload_layers) as TransformerEngine's DefaultOffloadSynchronizer
// runs it for Megatron-Core: the first N layers' saved activations copied to the host after their
// forward and back N layers before their backward, on a copy stream at the GPU's host_bandwidth.
#include "support/isolate.hpp"
#include "support/scratch_file.hpp"
#include "memory/footprint.hpp"
#include "report/report_json.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

using namespace simgpt;

namespace {

// An 8-layer Llama-like model on 8 H100 (PCIe 5.0 to the host): a layer's copy takes longer than
// its forward, so the copies show.
nlohmann::ordered_json run_offloaded(int layers_offloaded, const std::string& platform = "platforms/dgx_h100_x1.yaml",
                                     bool estimate = false) {
  const DataPaths data = default_data_paths();
  const Overrides o{{"model.layers", "8"},          {"model.hidden", "4096"},        {"model.heads", "32"},
                    {"model.kv_heads", "8"},        {"model.ffn_hidden", "14336"},   {"model.seq_len", "4096"},
                    {"model.vocab", "32000"},       {"parallelism.dp", "8"},         {"parallelism.tp", "1"},
                    {"parallelism.pp", "1"},        {"parallelism.zero", "1"},       {"parallelism.sequence_parallel", "false"},       {"placement.gpus", "8"},
                    {"training.global_batch", "16"}, {"training.micro_batch", "1"}, {"training.recompute", "none"},
                    {"training.precision", "bf16"},
                    {"training.cpu_offload_layers", std::to_string(layers_offloaded)}};
  return run_isolated([&] {
    Workload w = load_workload(data.find("workloads/llama3_8b.yaml"), o);
    SimulationOptions options;
    if (estimate)
      options.fidelity = SimulationOptions::Fidelity::estimate;
    return report_json(simulate(data.find(platform), w, data, options));
  });
}

double offload_step_seconds(const nlohmann::ordered_json& r) { return r["step_time_s"].get<double>(); }
double offloaded_activations_gib(const nlohmann::ordered_json& r) { return r["stages"][0]["memory_gib"]["activations"].get<double>(); }

} // namespace

TEST_CASE("offloaded layers' activations leave the GPU, and their copies cost what the forward cannot hide") {
  const auto none = run_offloaded(0), half = run_offloaded(4), most = run_offloaded(7);
  // (L - N) layers' activations at most.
  CHECK(offloaded_activations_gib(half) == Approx(offloaded_activations_gib(none) / 2).epsilon(1e-6));
  CHECK(offloaded_activations_gib(most) == Approx(offloaded_activations_gib(none) / 8).epsilon(1e-6));
  // Each copy is one layer's activations at 63 GB/s, slower than its forward here: the step waits.
  CHECK(offload_step_seconds(half) > offload_step_seconds(none));
  CHECK(offload_step_seconds(most) > offload_step_seconds(half));
  const auto& host = half["communication"]["host"];
  // Two micro-batches, four layers, out and back, on each of the 8 GPUs.
  CHECK(host["count"].get<int>() == 2 * 4 * 2 * 8);
  CHECK(host["per_gpu"].get<int>() == 2 * 4 * 2);
  CHECK(half["critical_path"]["comm_s"]["offload"].get<double>() > 0);
  CHECK(none["communication"]["host"]["count"].get<int>() == 0);
  // The copies' bytes are the activations the GPU no longer keeps: 4 layers' of 8, twice a micro-batch.
  const double gib = 1024.0 * 1024 * 1024;
  CHECK(host["bytes"].get<double>() / gib == Approx(8 * 2 * 2 * (offloaded_activations_gib(none) - offloaded_activations_gib(half))));
}

TEST_CASE("on GB200's NVLink-C2C the same copies hide behind the layers after them") {
  const auto none = run_offloaded(0, "platforms/gb200_nvl72_x1.yaml");
  const auto half = run_offloaded(4, "platforms/gb200_nvl72_x1.yaml");
  CHECK(offload_step_seconds(half) == Approx(offload_step_seconds(none)).epsilon(1e-6));
  CHECK(half["communication"]["host"]["in_flight_s"].get<double>() > 0);
  CHECK(half["communication"]["host"]["exposed_s"].get<double>() == 0);
}

TEST_CASE("offloading is refused on a GPU whose host bandwidth the catalog does not give") {
  Workload w = parse_workload("model: {layers: 8, hidden: 1024, heads: 16, seq_len: 1024, vocab: 32000}\n"
                              "training: {global_batch: 8, cpu_offload_layers: 2}\n",
                              "w.yaml");
  ExecutionPlan plan;
  GpuSpec gpu;
  gpu.name = "X1";
  gpu.file = "gpus.yaml";
  CHECK_THROWS_WITH(with_offload(plan, w, Profile{}, gpu),
                    Catch::Contains("training.cpu_offload_layers") && Catch::Contains("X1 has no host_bandwidth in gpus.yaml"));
}

TEST_CASE("the closed-form estimate runs the same copies as the replay") {
  for (const int n : {0, 4, 7}) {
    const double replayed = offload_step_seconds(run_offloaded(n));
    const double estimated = offload_step_seconds(run_offloaded(n, "platforms/dgx_h100_x1.yaml", true));
    CHECK(estimated == Approx(replayed).epsilon(0.01));
  }
}

TEST_CASE("offloading with CUDA graphs over layers is refused, as Megatron-Core refuses it") {
  const DataPaths data = default_data_paths();
  const auto refusal = [&](const std::string& graphs) -> std::string {
    try {
      const Overrides o{{"model.layers", "4"}, {"parallelism.pp", "1"}, {"parallelism.tp", "1"},
                        {"parallelism.dp", "8"}, {"parallelism.sequence_parallel", "false"},
                        {"training.recompute", "none"}, {"training.cpu_offload_layers", "2"},
                        {"framework_options.compute.cuda_graphs", graphs}};
      run_isolated([&] {
        Workload w = load_workload(data.find("workloads/llama3_8b.yaml"), o);
        SimulationOptions options;
        options.fidelity = SimulationOptions::Fidelity::estimate;
        return report_json(simulate(data.find("platforms/dgx_h100_x1.yaml"), w, data, options));
      });
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(refusal("layers"), Catch::Contains("compute.cuda_graphs") && Catch::Contains("training.cpu_offload_layers"));
  CHECK_THAT(refusal("[attn]"), Catch::Contains("compute.cuda_graphs"));
  CHECK(refusal("iteration").empty());
  CHECK(refusal("none").empty());
}

TEST_CASE("every GPU's copies are counted where tensor ranks share a stream, at either fidelity") {
  const DataPaths data = default_data_paths();
  for (const auto fidelity : {SimulationOptions::Fidelity::full, SimulationOptions::Fidelity::symmetric}) {
    const auto r = run_isolated([&] {
      const Overrides o{{"model.layers", "8"}, {"parallelism.tp", "8"}, {"parallelism.dp", "2"},
                        {"parallelism.pp", "1"}, {"training.recompute", "none"}, {"training.global_batch", "4"},
                        {"training.cpu_offload_layers", "4"}};
      Workload w = load_workload(data.find("workloads/llama3_8b.yaml"), o);
      SimulationOptions options;
      options.fidelity = fidelity;
      return report_json(simulate(data.find("platforms/dgx_h100_x2.yaml"), w, data, options));
    });
    // Two micro-batches, four layers, out and back, on each of the 16 GPUs.
    CHECK(r["communication"]["host"]["per_gpu"].get<int>() == 2 * 4 * 2);
    CHECK(r["communication"]["host"]["count"].get<int>() == 16 * 2 * 4 * 2);
  }
}

TEST_CASE("a trace draws each offloaded layer's copies on a host track of its own") {
  const DataPaths data = default_data_paths();
  const std::string path = testing::scratch_path("trace_offload", ".json");
  run_isolated([&] {
    const Overrides o{{"model.layers", "8"},   {"parallelism.dp", "8"},        {"parallelism.tp", "1"},
                      {"parallelism.pp", "1"}, {"parallelism.sequence_parallel", "false"},
                      {"training.recompute", "none"}, {"training.global_batch", "16"},
                      {"training.cpu_offload_layers", "4"}};
    Workload w = load_workload(data.find("workloads/llama3_8b.yaml"), o);
    SimulationOptions options;
    options.trace_path = path;
    return report_json(simulate(data.find("platforms/dgx_h100_x1.yaml"), w, data, options));
  });
  std::ifstream in(path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::remove(path.c_str());
  int out = 0, back = 0;
  for (const auto& e : trace["traceEvents"])
    if (e.value("cat", "") == "offload") {
      out += e["name"] == "activations to host" ? 1 : 0;
      back += e["name"] == "activations from host" ? 1 : 0;
    }
  // Each of the 8 GPUs' two micro-batches, four layers each way.
  CHECK(out == 8 * 2 * 4);
  CHECK(back == 8 * 2 * 4);
}
