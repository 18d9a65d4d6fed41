// FSDP's root unit (profile key zero3.keep_root_gathered): the weights no wrapped block holds, the
// embedding and the output layer, stay gathered from the forward through the backward.
#include "support/peak_memory.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

double peak(const char* keep_root, const char* dp) {
  return peak_allocated_bytes("platforms/dgx_h200.xml", "workloads/llama3_8b.yaml",
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
}

} // namespace

TEST_CASE("the FSDP root's embedding and output layer stay gathered, whole, beside the sharded state") {
  const Workload base = load_workload(default_data_paths().find("workloads/llama3_8b.yaml"));
  REQUIRE_FALSE(base.model.tie_embeddings);
  // Untied: two vocab x hidden matrices and the final norm's weight in bf16, whole on every rank.
  const double h = static_cast<double>(base.model.hidden);
  const double root = (2.0 * static_cast<double>(base.model.vocab) * h + h) * 2;
  CHECK(peak("true", "8") - peak("false", "8") == Approx(root).epsilon(1e-7));
  CHECK(peak("true", "2") - peak("false", "2") == Approx(root).epsilon(1e-7));
}
