// Ring attention's costs in the plan (execution/plan.cpp, split_attention): the keys and values
// the ring passes on, and PyTorch's fp32 merges of each step (compute.ring_attention_fp32_merge).
#include "cost/compute_cost.hpp"
#include "execution/plan.hpp"
#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

struct RingPlan {
  LayerCost layer;
  double memory_bandwidth = 0; // the GPU's HBM bytes a second as the cost model prices them
  double launch = 0;           // and the gap each kernel pays
};

RingPlan ring_plan(const std::string& framework, int cp, bool fp32_merge) {
  const DataPaths data = default_data_paths();
  const GpuCatalog catalog = load_catalog(data);
  const Workload w = load_workload(data.find("workloads/llama3_8b.yaml"),
                                   {{"framework", framework}, {"model.layers", "2"}, {"model.seq_len", "32768"},
                                    {"parallelism.dp", "1"}, {"parallelism.cp", std::to_string(cp)},
                                    {"parallelism.cp_comm_type", "p2p"}, {"parallelism.tp", "1"},
                                    {"parallelism.pp", "1"}, {"parallelism.zero", "0"},
                                    {"parallelism.schedule", "1f1b"}, {"parallelism.chunks", "1"},
                                    {"parallelism.sequence_parallel", "false"}, {"training.global_batch", "1"}});
  Profile profile = load_workload_profile(w, data);
  profile.ring_attention_fp32_merge = fp32_merge;
  const GpuSpec& gpu = catalog.at("H100-SXM5-80GB", "test");
  const ComputeCostModel cost(gpu, profile, w.training, w.source);
  RingPlan r{make_plan(w, cost, profile).layer, 0};
  const double one = cost.seconds({Kernel::memory(1e9)}), two = cost.seconds({Kernel::memory(2e9)});
  r.memory_bandwidth = 1e9 / (two - one);
  r.launch = 2 * one - two;
  return r;
}

} // namespace

TEST_CASE("the ring passes the keys and values the attention kernel reads, repeated where the framework repeats them") {
  // Llama 3 8B: 32 query heads, 8 key-value heads of 128; 32768 / cp tokens a rank, bf16.
  const double tokens = 32768.0 / 4;
  const RingPlan megatron = ring_plan("megatron", 4, false), torchtitan = ring_plan("torchtitan", 4, false);
  CHECK(megatron.layer.context_kv_bytes == Approx(tokens * 8 * 256 * 2));
  // torchtitan's repeat_kv copies them to every query head before F.scaled_dot_product_attention.
  CHECK(torchtitan.layer.context_kv_bytes == Approx(tokens * 32 * 256 * 2));
  // The backward passes the keys and values with their gradients, in bf16.
  CHECK(megatron.layer.context_kv_backward_bytes == Approx(2 * megatron.layer.context_kv_bytes));
}

TEST_CASE("PyTorch's ring merges each step in fp32 and passes its key and value gradients in fp32") {
  for (int cp : {2, 4}) {
    const RingPlan plain = ring_plan("torchtitan", cp, false), merged = ring_plan("torchtitan", cp, true);
    const double tokens = 32768.0 / cp, q = tokens * 32 * 128, kv = tokens * 32 * 256;
    // fp32 key and value gradients beside the bf16 keys and values: 6 bytes an element.
    CHECK(merged.layer.context_kv_backward_bytes == Approx(6 * kv));
    // Forward: a cast a step (6 bytes an output element), a merge a later step (32), the cast back
    // (6), a concatenation of keys and values before each send but the last (4 a key or value).
    const double forward = 6 * q * cp + 32 * q * (cp - 1) + 6 * q + 4 * kv * (cp - 1);
    // Four kernels, each with its launch gap.
    const double forward_s = forward / merged.memory_bandwidth + 4 * merged.launch;
    CHECK(merged.layer.attention_parts_forward[1] - plain.layer.attention_parts_forward[1] == Approx(forward_s));
    CHECK(merged.layer.attention_forward - plain.layer.attention_forward == Approx(forward_s));
    // Backward: zeroed accumulators, a bf16 gradient added to each a step, the key and value ones
    // concatenated in fp32 a step, the keys and values concatenated as in the forward, cast back.
    const double backward = 4 * (q + kv) + 10 * (q + kv) * cp + 8 * kv * cp + 4 * kv * (cp - 1) + 6 * (q + kv);
    CHECK(merged.layer.attention_parts_backward[1] - plain.layer.attention_parts_backward[1] ==
          Approx(backward / merged.memory_bandwidth + 5 * merged.launch));
    // Nothing else in the layer changes.
    CHECK(merged.layer.attention_parts_forward[0] == plain.layer.attention_parts_forward[0]);
    CHECK(merged.layer.mlp_forward == plain.layer.mlp_forward);
  }
}
