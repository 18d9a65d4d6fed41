// Multi-token prediction (model.mtp_layers, Megatron's --mtp-num-layers): DeepSeek-V3's module
// holds what its released checkpoint does, the FLOPs Megatron-LM counts for it, and the key's reading.
#include "model/model.hpp"
#include "report/report_json.hpp"
#include "support/isolate.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

TEST_CASE("DeepSeek-V3's multi-token prediction module holds the checkpoint's 14B parameters") {
  const Workload v3 = load_workload(default_data_paths().find("workloads") + "/deepseek_v3.yaml");
  ModelSpec m = v3.model;
  m.mtp_layers = 1;
  const double h = 7168, vocab = 129280;
  // eh_proj (2h -> h) and three norms (enorm, hnorm, the final one) a module.
  CHECK(mtp_parameters(m, 1) == 2 * h * h + 3 * h);
  CHECK(mtp_parameters(m, 2) == h * h + 3 * h);
  // deepseek-ai/DeepSeek-V3's README: "685B ... 671B of the Main Model weights and 14B of the
  // Multi-Token Prediction (MTP) Module weights": one MoE layer as the model's last, eh_proj and
  // its norms, and the module's embedding and output head (the main model's in Megatron-Core, a
  // copy on a pipelined last stage).
  const double module = moe_layer_parameters(m, 1, 1) + mtp_parameters(m, 1) + 2 * vocab * h;
  CHECK(module == Approx(14e9).epsilon(0.04));
  // The main model's count leaves the module out, as the 671B does.
  CHECK(total_parameters(m) == total_parameters(v3.model));
}

TEST_CASE("multi-token prediction adds Megatron-LM's FLOPs: a layer, eh_proj and the logits again") {
  Workload w;
  w.model = {8, 1024, 16, 2048, 32000, 4096, Head::lm};
  w.model.mlp = Mlp::swiglu;
  w.model.norm = Norm::rmsnorm;
  w.model.position = Position::rope;
  w.model.bias = false;
  w.model.tie_embeddings = false;
  w.training.global_batch = 4;
  const double base = model_flops_per_step(w);
  const double T = 4.0 * 2048, h = 1024, V = 32000;
  const double head = 2 * T * h * V;      // the logits' GEMM
  const double layer = (base - 3 * head) / 8; // 3 x a layer's forward as counted
  for (const int64_t d : {1, 2}) {
    Workload mtp = w;
    mtp.model.mtp_layers = d;
    // megatron/training/training.py, num_floating_point_operations: the modules' layers, their
    // eh_proj (2h x h), the logits (mtp_num_layers + 1) times; forward and backward (x3).
    CHECK(model_flops_per_step(mtp) - base ==
          Approx(static_cast<double>(d) * (layer + 3 * 2 * T * 2 * h * h + 3 * head)).epsilon(1e-9));
  }
  const Shard s{1, 1, Precision::bf16};
  ModelSpec m = w.model;
  m.mtp_layers = 1;
  // The module's kernels carry eh_proj's GEMM and the LM head's.
  CHECK(sum_flops(mtp_forward(m, s, KernelForm{})) == Approx(2 * 2048 * (2 * h * h + h * V)).epsilon(1e-12));
}

TEST_CASE("model.mtp_layers reads from a workload and from --mtp-num-layers, for an LM head only") {
  const char* yaml = "model: {layers: 4, hidden: 1024, heads: 16, seq_len: 1024, vocab: 1000, mtp_layers: 1}\n"
                     "training: {global_batch: 8, micro_batch: 1}\nparallelism: {dp: 8}\n";
  const Workload w = parse_workload(yaml, "w.yaml");
  CHECK(w.model.mtp_layers == 1);
  CHECK(workload_yaml(parse_workload(workload_yaml(w), "again.yaml")) == workload_yaml(w));
  CHECK_THROWS_WITH(parse_workload(yaml, "w.yaml", {{"model.head", "classifier"}}), Catch::Contains("model.mtp_layers"));
  CHECK_THROWS_WITH(parse_workload(yaml, "w.yaml", {{"model.mtp_layers", "-1"}}), Catch::Contains("model.mtp_layers"));
  const Workload megatron = parse_workload("num_layers: 4\nhidden_size: 1024\nnum_attention_heads: 16\n"
                                           "seq_length: 1024\nvocab_size: 1000\nmicro_batch_size: 1\n"
                                           "global_batch_size: 8\nmtp_num_layers: 1\nparallelism: {dp: 8}\n",
                                           "m.yaml");
  CHECK(megatron.model.mtp_layers == 1);
}

TEST_CASE("modules that share one layer (model.mtp_shared_layer) hold one module's weights, run as many") {
  const DataPaths data = default_data_paths();
  const Overrides shared{{"placement.gpus", "64"}};
  Overrides one = shared;
  one.emplace_back("model.mtp_shared_layer", "true");
  const auto run = [&](const Overrides& o) {
    return run_isolated([&] {
      return report_json(simulate(data.find("platforms/gb300_nvl72_x1.yaml"),
                                  load_workload(data.find("workloads/nemotron_3_super.yaml"), o), data));
    });
  };
  const Workload w = load_workload(data.find("workloads/nemotron_3_super.yaml"), one);
  CHECK(w.model.has_own_weights(w.model.layers));
  CHECK_FALSE(w.model.has_own_weights(w.model.layers + 1));
  ModelSpec separate = w.model;
  separate.mtp_shared_layer = false;
  CHECK(mtp_parameters(w.model, 1) == Approx(mtp_parameters(separate, 1) / 2));
  const auto a = run(shared), b = run(one);
  // One gradient reduce-scatter and one gather fewer a step, the same computation.
  CHECK(b["collectives"]["reducescatter"]["count"].get<int>() == a["collectives"]["reducescatter"]["count"].get<int>() - 1);
  CHECK(b["peak_memory_gib"].get<double>() < a["peak_memory_gib"].get<double>());
  CHECK(b["step_time_s"].get<double>() == Approx(a["step_time_s"].get<double>()).epsilon(0.01));
  try {
    load_workload(data.find("workloads/llama3_8b.yaml"), {{"model.mtp_shared_layer", "true"}});
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("model.mtp_shared_layer"));
  }
}
