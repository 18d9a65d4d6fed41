// FSDP2's copies on the compute stream (profile key zero3.copies): each unit's gathered weights
// copied out of the all-gather's buffer before its forward and its backward, its gradients copied
// into the reduce-scatter's fp32 buffer after its backward; the root unit's once a step.
#include "support/isolate.hpp"
#include "model/model.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

nlohmann::ordered_json run_fsdp2(bool copies, const char* pp = "1",
                                 SimulationOptions::Fidelity fidelity = SimulationOptions::Fidelity::symmetric) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    const Workload w = load_workload(data.find("workloads/llama3_8b.yaml"),
                                     {{"framework", "torchtitan"},
                                      {"framework_options.zero3.copies", copies ? "true" : "false"},
                                      {"model.layers", "4"},
                                      {"parallelism.tp", "1"},
                                      {"parallelism.pp", pp},
                                      {"parallelism.dp", std::string(pp) == "1" ? "8" : "4"},
                                      {"parallelism.zero", "3"},
                                      {"parallelism.sequence_parallel", "false"},
                                      {"training.global_batch", "8"}});
    return report_json(simulate(data.find("platforms/dgx_h200.xml"), w, data, SimulationOptions{.fidelity = fidelity}));
  });
}

} // namespace

TEST_CASE("FSDP2 copies each unit's gathered weights and its gradients on the compute stream") {
  const auto with = run_fsdp2(true), without = run_fsdp2(false);
  // Llama 3 8B's layers, bf16 weights and fp32 reduced gradients: per layer, two copies out (read
  // and written, 2 + 2 bytes a weight: forward and, resharded, backward) and one in (2 bytes read,
  // 4 written); the root (embedding, final norm, output) once out and once in.
  const DataPaths data = default_data_paths();
  const Workload w = load_workload(data.find("workloads/llama3_8b.yaml"), {{"model.layers", "4"}});
  const GpuCatalog catalog = load_catalog(data);
  const GpuSpec& h200 = catalog.at("H200-SXM-141GB", "test");
  const double stream = h200.memory_bandwidth * h200.memory_efficiency;
  const double layer = layer_parameters(w.model, 1), root = embedding_parameters(w.model, 1) + head_parameters(w.model, 1);
  const double kernels = 4 * 3 + 2; // each copy one kernel, its launch gap with it
  const double copies = (4 * layer * (4 + 4 + 6) + root * (4 + 6)) / stream + kernels * h200.kernel_launch_s;
  const auto compute = [](const nlohmann::ordered_json& r) { return r["stages"][0]["compute_s"].get<double>(); };
  // On the compute stream: its time grows by them.
  CHECK(compute(with) - compute(without) == Approx(copies).epsilon(0.01));
  // The step by the layers' at least: the root's copy in runs beside the last layers'
  // reduce-scatters, which the optimizer waits for anyway.
  const double longer = with["step_time_s"].get<double>() - without["step_time_s"].get<double>();
  CHECK(longer >= 0.99 * 4 * layer * (4 + 4 + 6) / stream);
  CHECK(longer <= copies);
  // The closed-form estimate takes them too.
  const auto estimated = run_fsdp2(true, "1", SimulationOptions::Fidelity::estimate);
  CHECK(estimated["step_time_s"].get<double>() == Approx(with["step_time_s"].get<double>()).epsilon(0.01));
  // Weights kept gathered under pipelining are copied once a step: left out.
  CHECK(run_fsdp2(true, "2")["step_time_s"].get<double>() == run_fsdp2(false, "2")["step_time_s"].get<double>());
}
