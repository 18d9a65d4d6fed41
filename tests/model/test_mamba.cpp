// Hybrid Mamba-2 models (model.hybrid_pattern) as Megatron-Core builds them: the parameters of a
// released checkpoint, the layers' blocks, the scan's rerun in the backward, and what a workload
// may say of them.
#include "model/mamba.hpp"
#include "model/model.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/memory/memory.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace simgpt;

namespace {

// Nemotron 3 Super 120B-A12B (Megatron-LM examples/post_training/modelopt/conf/nvidia/
// NVIDIA-Nemotron-3-Super-120B-A12B-BF16.sh; Megatron-Bridge v0.6.0 tests/unit_tests/recipes/
// nemotronh/test_nemotron_3_super.py), with its one multi-token prediction block.
const char* const kSuperYaml = R"(
model:
  hidden: 4096
  heads: 32
  kv_heads: 2
  head_dim: 128
  ffn_hidden: 2688
  mlp: squared_relu
  norm: rmsnorm
  position: none
  bias: false
  tie_embeddings: false
  seq_len: 8192
  vocab: 131072
  attention: flash
  hybrid_pattern: "MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME"
  mamba_heads: 128
  experts: 512
  top_k: 22
  moe_ffn_hidden: 2688
  shared_expert_ffn_hidden: 5376
  moe_latent: 1024
  mtp_layers: 1
training: {global_batch: 64, micro_batch: 1, precision: bf16}
parallelism: {dp: 64, ep: 64}
framework: megatron
)";

Workload super_model(const Overrides& overrides = {}) { return parse_workload(kSuperYaml, "super.yaml", overrides); }

} // namespace

TEST_CASE("Nemotron 3 Super's parameters are its released checkpoint's") {
  const Workload w = super_model();
  const ModelSpec& m = w.model;
  CHECK(m.layers == 88);
  // Megatron-Core's defaults fill in what the configuration leaves: head_dim 64, state 128, groups 8.
  CHECK(m.mamba_head_dim == 64);
  CHECK(m.mamba_state == 128);
  CHECK(m.mamba_groups == 8);
  CHECK(mamba_projection_width(m) == 2 * 8192 + 2 * 8 * 128 + 128);
  // The Hugging Face checkpoint holds the model and one multi-token prediction block (its enorm,
  // hnorm, eh_proj and final norm beside an attention and a MoE layer, "*E"): 123,611,033,088
  // tensors' elements, reproduced tensor by tensor by Megatron-Bridge's conversion (v0.6.0
  // examples/model_verification_cards/nemotron-3-super-120b-a12b/card.yaml). Among them is each
  // MoE router's expert bias, one an expert: a buffer Megatron-Core updates outside the optimizer
  // (megatron/core/transformer/moe/router.py, expert_bias), not a parameter simgpt counts.
  const ModelSpec block = mtp_layer_model(m);
  const double mtp = mtp_parameters(m, 1) + layer_parameters_at(block, 1, 1, block.layers - 1);
  const double expert_bias = static_cast<double>((m.moe_layers() + 1) * m.experts);
  CHECK(total_parameters(m) + mtp + expert_bias == Approx(123'611'033'088.0).epsilon(1e-12));
}

TEST_CASE("A hybrid layer has one block, and a Mamba layer's backward reruns its scan's states") {
  const Workload w = super_model();
  const ModelSpec& m = w.model;
  const Shard shard{.micro_batch = 1, .tp = 1, .precision = Precision::bf16};
  const KernelForm form;
  // Layer 0 is Mamba, 1 MoE, 7 attention: no layer holds two blocks.
  CHECK(m.has_mixer(0));
  CHECK_FALSE(m.has_mlp(0));
  CHECK(m.is_moe_layer(1));
  CHECK_FALSE(m.has_mixer(1));
  CHECK(m.symbol(7) == '*');
  CHECK_FALSE(m.has_mlp(7));
  // A multi-token prediction layer (indexed after the model's) is attention and MoE.
  CHECK(m.symbol(m.layers) == 'T');
  CHECK(m.is_moe_layer(m.layers));
  CHECK(sum_flops(layer_forward(m, shard, form, 0)) == sum_flops(mixer_block_forward(m, shard, form, 0)));
  CHECK(mixer_block_forward(m, shard, form, 1).empty());

  // The combined kernel saves only its input and output: the backward runs the convolution and the
  // chunk states again before the gradients (Kernel::rerun_in_backward), so it holds more than
  // twice the forward's FLOPs of the scan.
  const Kernels mamba = mamba_block_forward(m, shard, form);
  const auto reruns = std::count_if(mamba.begin(), mamba.end(), [](const Kernel& k) { return k.rerun_in_backward; });
  CHECK(reruns == 5);
  Kernels scan;
  std::copy_if(mamba.begin(), mamba.end(), std::back_inserter(scan),
               [](const Kernel& k) { return k.kind == Kernel::Kind::gemm && k.layout == Kernel::Layout::none; });
  Kernels rerun_scan;
  std::copy_if(scan.begin(), scan.end(), std::back_inserter(rerun_scan), [](const Kernel& k) { return k.rerun_in_backward; });
  CHECK(sum_flops(backward_of(scan)) == Approx(2 * sum_flops(scan) + sum_flops(rerun_scan)));
  // Its projections are the layer's GEMM FLOPs almost whole: d_inner 8192 by hidden 4096 and back.
  const double tokens = 8192;
  const double projections = 2 * tokens * 4096 * (mamba_projection_width(m) + 8192);
  CHECK(sum_flops(mamba) > projections);
  CHECK(sum_flops(mamba) < 1.2 * projections);
}

TEST_CASE("A latent MoE layer exchanges and computes its tokens at the latent width") {
  const Workload latent = super_model();
  const Workload full = super_model({{"model.moe_latent", "0"}});
  const Shard shard{.micro_batch = 1, .tp = 1, .precision = Precision::bf16, .ep = 64, .dispatcher = MoeDispatcher::alltoall};
  CHECK(all_to_all_bytes(latent.model, shard) == Approx(all_to_all_bytes(full.model, shard) * 1024 / 4096));
  // The routed experts' weights are latent-wide; the layer adds the two latent projections.
  CHECK(expert_parameters(latent.model, 1, 1) == Approx(expert_parameters(full.model, 1, 1) / 4));
}

TEST_CASE("A Mamba layer keeps its projection's and its scan's outputs for the backward") {
  const Workload w = super_model();
  const ModelSpec& m = w.model;
  const double tokens = 8192, h = 4096;
  // No recompute, bf16, tp 1: the norm's and the projection's inputs (2 h), the projection's
  // output and d_inner twice (the scan's output and the gated norm's), two bytes each, and the
  // dropout mask the profile asks for.
  const double kept = layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::bf16, false, 1, 4, false,
                                             false, false, 1, 'M');
  CHECK(kept == Approx(tokens * 2 * (2 * h + mamba_projection_width(m) + 2 * 8192)));
  // An MLP layer keeps half a transformer layer's replicated tensors and none of attention's.
  const double mlp_only = layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::bf16, false, 1, 4,
                                                 false, false, false, 1, '-');
  CHECK(mlp_only == Approx(tokens * 2 * (2 * h + 2 * 2688)));
}

TEST_CASE("A hybrid workload is refused where Megatron-Core refuses it or simgpt does not model it") {
  const auto refused = [](const Overrides& o, const std::string& key) {
    try {
      super_model(o);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(key));
    }
  };
  refused({{"model.hybrid_pattern", "MEM|EM"}}, "parallelism.partition");
  refused({{"model.hybrid_pattern", "MGM"}}, "GatedDeltaNet");
  refused({{"model.hybrid_pattern", "MxM"}}, "model.hybrid_pattern");
  refused({{"model.layers", "87"}}, "model.hybrid_pattern");
  refused({{"model.mamba_groups", "3"}}, "model.mamba_groups");
  refused({{"parallelism.tp", "16"}, {"parallelism.dp", "4"}}, "parallelism.tp");
  refused({{"parallelism.cp", "2"}, {"parallelism.dp", "32"}}, "parallelism.cp");
  try {
    parse_workload("model: {layers: 2, hidden: 64, heads: 4, seq_len: 16, vocab: 100, mamba_heads: 2}\n"
                   "training: {global_batch: 1}\n",
                   "w.yaml");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("model.mamba_heads"));
  }
}
