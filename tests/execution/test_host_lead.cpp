// The host's lead over the GPU across a layer's blocks (execution/plan.cpp, layer_cost), and the
// optimizer's casts of a loop that keeps its own fp32 masters (optimizer.master_casts), on the
// plan of GPT-2 small in eager PyTorch (profiles/pytorch.yaml) on one H200.
#include "cost/compute_cost.hpp"
#include "execution/plan.hpp"
#include "model/model.hpp"
#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace simgpt;

namespace {

struct GptPlan {
  Workload w;
  Profile profile;
  ExecutionPlan plan;
  double attention_block = 0, mlp_block = 0; // each forward block costed alone
  double gpu = 0, host = 0;                  // a layer's forward kernels: their GPU time, the host's issue time
};

GptPlan gpt2_plan(const std::string& micro_batch, double op_overhead_s, bool master_casts = true) {
  const DataPaths data = default_data_paths();
  const GpuCatalog catalog = load_catalog(data);
  GptPlan g;
  g.w = load_workload(data.find("workloads/gpt3xl.yaml"),
                      {{"framework", "pytorch"}, {"model.layers", "12"}, {"model.hidden", "768"},
                       {"model.heads", "12"}, {"model.seq_len", "1024"}, {"model.vocab", "50257"},
                       {"training.precision", "bf16"}, {"training.micro_batch", micro_batch},
                       {"training.global_batch", micro_batch}, {"training.recompute", "none"},
                       {"parallelism.dp", "1"}, {"parallelism.tp", "1"}, {"parallelism.pp", "1"},
                       {"placement.gpus", "1"}});
  g.profile = load_workload_profile(g.w, data);
  g.profile.op_overhead_s = op_overhead_s;
  g.profile.optimizer_master_casts = master_casts;
  const GpuSpec& gpu = catalog.at("H200-SXM-141GB", "test");
  const ComputeCostModel cost(gpu, g.profile, g.w.training, g.w.source);
  g.plan = make_plan(g.w, cost, g.profile);
  const Shard shard{std::stoll(micro_batch), 1, Precision::bf16};
  const KernelForm form = cost.form(g.w.model, shard);
  const Kernels attention = attention_block_forward(g.w.model, shard, form);
  const Kernels mlp = mlp_block_forward(g.w.model, shard, form);
  g.attention_block = cost.seconds(attention);
  g.mlp_block = cost.seconds(mlp);
  for (const Kernels* ks : {&attention, &mlp})
    for (const Kernel& k : *ks) {
      g.gpu += cost.kernel_seconds(k);
      g.host += k.host_call ? op_overhead_s : 0.0;
    }
  return g;
}

} // namespace

TEST_CASE("the host's lead carries from a layer's attention block into its MLP and on to the next layer") {
  // Eager GPT-2 small at micro-batch 4 with a slow host: the attention block's many small kernels
  // wait for the host, the MLP's GEMMs keep the GPU busy while it runs ahead.
  const GptPlan g = gpt2_plan("4", 20e-6);
  const double layer = g.plan.layer.attention_forward + g.plan.layer.mlp_forward;
  CHECK(layer < g.attention_block + g.mlp_block);   // less than each block's larger time added up
  CHECK(layer >= std::max(g.gpu, g.host) * (1 - 1e-9)); // never less than either stream's own
  // The blocks keep their shares of it.
  CHECK(g.plan.layer.attention_forward / layer == Approx(g.attention_block / (g.attention_block + g.mlp_block)));
  // Without host time there is no lead to carry: each block its kernels' GPU time, bit for bit.
  const GptPlan no_host = gpt2_plan("4", 0);
  CHECK(no_host.plan.layer.attention_forward == no_host.attention_block);
  CHECK(no_host.plan.layer.mlp_forward == no_host.mlp_block);
}

TEST_CASE("a loop keeping its own fp32 masters casts every gradient and copies the masters back") {
  const GptPlan with = gpt2_plan("1", 40e-6, true);
  const GptPlan without = gpt2_plan("1", 40e-6, false);
  const double params = with.plan.stages[0].parameters;
  REQUIRE(params > 1e8);
  const DataPaths data = default_data_paths();
  const GpuCatalog catalog = load_catalog(data);
  const GpuSpec& gpu = catalog.at("H200-SXM-141GB", "test");
  // 4 + 4 bytes a parameter more at the optimizer's bandwidth, and a launch gap a parameter tensor
  // (GPT-2's 12 layers of 12 tensors, the two embeddings and the final norm's two).
  const double tensors = 12.0 * static_cast<double>(layer_parameter_tensors(with.w.model, 1).size()) +
                         static_cast<double>(embedding_parameter_tensors(with.w.model, 1).size()) +
                         static_cast<double>(head_parameter_tensors(with.w.model, 1).size());
  CHECK(tensors >= 146);
  CHECK(with.plan.stages[0].optimizer_s - without.plan.stages[0].optimizer_s ==
        Approx(params * 8 / (gpu.memory_bandwidth * gpu.memory_efficiency) + tensors * gpu.kernel_launch_s));
}
