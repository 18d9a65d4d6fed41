// Loss parallelism (profile key memory.loss_parallel_logits_bytes): under tensor parallelism
// torchtitan runs the cross-entropy on the output's vocabulary shards with torch's loss_parallel,
// whose separate log_softmax kernels hold more per logit than the fused loss it runs otherwise.
#include "support/peak_memory.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

namespace {

double peak(int tp, const char* loss_parallel_bytes) {
  return peak_allocated_bytes("platforms/dgx_h200.xml", "workloads/llama3_8b.yaml",
                              {{"framework", "torchtitan"},
                               {"framework_options.memory.loss_parallel_logits_bytes", loss_parallel_bytes},
                               {"model.layers", "2"},
                               {"parallelism.tp", std::to_string(tp)},
                               {"parallelism.pp", "1"},
                               {"parallelism.dp", "1"},
                               {"parallelism.zero", "0"},
                               {"placement.gpus", std::to_string(tp)},
                               {"parallelism.sequence_parallel", tp > 1 ? "true" : "false"},
                               {"training.global_batch", "1"},
                               {"training.micro_batch", "1"},
                               {"training.recompute", "full"}});
}

} // namespace

TEST_CASE("loss parallelism holds its own bytes per logit of the vocabulary shard, only under tensor parallelism") {
  const Workload base = load_workload(default_data_paths().find("workloads/llama3_8b.yaml"));
  const double logits = static_cast<double>(base.model.seq_len) * static_cast<double>(base.model.vocab);
  // The torchtitan profile's 16 bytes a logit against 12: the loss is the peak, 4 bytes more on
  // each of tp 2's vocab / 2 shard elements.
  CHECK(peak(2, "16") - peak(2, "12") == Approx(4 * logits / 2).epsilon(1e-6));
  // Without tensor parallelism the fused loss runs: the key changes nothing.
  CHECK(peak(1, "16") == Approx(peak(1, "12")).epsilon(1e-12));
}
