// FSDP's root unit (profile key zero3.keep_root_gathered): the weights no wrapped block holds, the
// embedding and the output layer, stay gathered from the forward through the backward.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

double peak_allocated_bytes(const char* keep_root, const char* dp) {
  const DataPaths data = default_data_paths();
  const auto report = run_isolated([&] {
    const Workload w = load_workload(data.find("workloads/llama3_8b.yaml"),
                                     {{"framework", "torchtitan"},
                                      {"framework_options.zero3.keep_root_gathered", keep_root},
                                      {"model.layers", "2"},
                                      {"parallelism.tp", "1"},
                                      {"parallelism.pp", "1"},
                                      {"parallelism.dp", dp},
                                      {"parallelism.zero", "3"},
                                      {"parallelism.sequence_parallel", "false"},
                                      {"placement.gpus", dp},
                                      {"training.global_batch", dp},
                                      {"training.micro_batch", "1"}});
    return report_json(simulate(data.find("platforms/dgx_h200.xml"), w, data));
  });
  return report["peak_allocated_gib"].get<double>() * (1 << 30);
}

} // namespace

TEST_CASE("the FSDP root's embedding and output layer stay gathered, whole, beside the sharded state") {
  const DataPaths data = default_data_paths();
  const Workload base = load_workload(data.find("workloads/llama3_8b.yaml"));
  REQUIRE_FALSE(base.model.tie_embeddings);
  // Untied: two vocab x hidden matrices and the final norm's weight in bf16, whole on every rank.
  const double h = static_cast<double>(base.model.hidden);
  const double root = (2.0 * static_cast<double>(base.model.vocab) * h + h) * 2;
  CHECK(peak_allocated_bytes("true", "8") - peak_allocated_bytes("false", "8") == Approx(root).epsilon(1e-7));
  CHECK(peak_allocated_bytes("true", "2") - peak_allocated_bytes("false", "2") == Approx(root).epsilon(1e-7));
}
