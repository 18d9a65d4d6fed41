// TransformerEngine's fused cross-entropy (profile key compute.te_cross_entropy) writes the logits'
// gradient into their own 16-bit buffer: the loss holds 2 bytes a logit where Megatron's native loss
// holds an fp32 copy beside them (6). Context parallelism's all-to-all form (cp_comm_type a2a) keeps
// each attention layer's output twice: as the kernel wrote it and as the output projection's input.
#include "model/model.hpp"
#include "support/peak_memory.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

namespace {

constexpr int kLayers = 2;

double peak(const char* te_cross_entropy, int cp, const char* cp_comm_type, const char* recompute) {
  return peak_allocated_bytes("platforms/dgx_h200.xml", "workloads/llama3_8b.yaml",
                              {{"framework", "megatron"},
                               {"framework_options.compute.te_cross_entropy", te_cross_entropy},
                               {"model.layers", std::to_string(kLayers)},
                               {"parallelism.tp", "2"},
                               {"parallelism.pp", "1"},
                               {"parallelism.dp", "1"},
                               {"parallelism.cp", std::to_string(cp)},
                               {"parallelism.cp_comm_type", cp_comm_type},
                               {"parallelism.zero", "0"},
                               {"placement.gpus", std::to_string(2 * cp)},
                               {"parallelism.sequence_parallel", "true"},
                               {"training.global_batch", "1"},
                               {"training.micro_batch", "1"},
                               {"training.recompute", recompute}});
}

} // namespace

TEST_CASE("TransformerEngine's fused cross-entropy holds the 16-bit logits alone") {
  const Workload base = load_workload(default_data_paths().find("workloads/llama3_8b.yaml"));
  const double seq = static_cast<double>(base.model.seq_len), vocab = static_cast<double>(base.model.vocab);
  const double hidden = static_cast<double>(base.model.hidden);
  // The head is the peak's transient. The native loss's: 6 bytes a logit of tp 2's vocab / 2 shard,
  // beside the head's saved inputs. The fused one's, 2 bytes a logit, peaks after it, in the output
  // layer's backward: the logits' gradient, the saved inputs, the input's gradient whole and the
  // input gathered again over tp (2 bytes a value each).
  CHECK(peak("false", 1, "p2p", "none") - peak("true", 1, "p2p", "none") ==
        Approx(4 * seq * vocab / 2 - 2 * seq * hidden * 2).epsilon(1e-6));
  // Its kernels: the online softmax reads the logits, the loss reads them again and writes the
  // gradient in their place, all at 2 bytes (bf16), where the native loss makes fp32 passes.
  ModelSpec m = base.model;
  const Shard shard{.micro_batch = 1, .tp = 2, .precision = Precision::bf16};
  KernelForm te;
  te.te_cross_entropy = true;
  const Kernels fused = head_forward(m, shard, te), native = head_forward(m, shard);
  REQUIRE(fused.size() == native.size());
  CHECK(fused.back().bytes == Approx(3 * 2 * seq * vocab / 2).epsilon(1e-12));
  CHECK(native.back().bytes == Approx(4 * 4 * seq * vocab / 2).epsilon(1e-12));
}

TEST_CASE("context parallelism's all-to-all form keeps each attention layer's output twice") {
  const Workload base = load_workload(default_data_paths().find("workloads/llama3_8b.yaml"));
  const double seq = static_cast<double>(base.model.seq_len), hidden = static_cast<double>(base.model.hidden);
  // cp 2 over tp 2: each rank's seq / 2 tokens, the output's hidden / 2 columns, 2 bytes each.
  const double output = seq / 2 * hidden / 2 * 2;
  CHECK(peak("true", 2, "a2a", "none") - peak("true", 2, "p2p", "none") == Approx(kLayers * output).epsilon(1e-6));
  // Recomputed layers save no attention output: the form changes nothing.
  CHECK(peak("true", 2, "a2a", "full") == Approx(peak("true", 2, "p2p", "full")).epsilon(1e-12));
}
