#include "simgpt/cost/compute_cost.hpp"
#include "simgpt/model/model.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {
Workload gpt(int64_t layers, int64_t hidden, int64_t heads, int64_t seq, int64_t vocab, int64_t batch) {
  Workload w;
  w.model = {layers, hidden, heads, seq, vocab, 4 * hidden, Head::lm};
  w.training.global_batch = batch;
  return w;
}

GpuSpec test_gpu(Precision p, double peak) {
  GpuSpec gpu;
  gpu.name = "test";
  gpu.peak_flops = {{p, peak}};
  gpu.gemm_efficiency = {{p, 0.8}};
  gpu.memory_bandwidth = 1e12;
  gpu.sms = 80;
  return gpu;
}
} // namespace

TEST_CASE("model FLOPs per step match Narayanan et al. 2021 without recompute") {
  // 72 B s l h^2 (1 + s/(6h) + V/(12 l h))
  for (auto w : {gpt(24, 2048, 16, 2048, 50257, 64), gpt(32, 4096, 32, 1024, 51200, 1024), gpt(4, 512, 8, 128, 1000, 3)}) {
    const double B = w.training.global_batch, s = w.model.seq_len, l = w.model.layers, h = w.model.hidden,
                 V = w.model.vocab;
    const double formula = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    CHECK(model_flops_per_step(w) == Approx(formula).epsilon(1e-9));
  }
}

TEST_CASE("backward GEMMs cost twice the forward FLOPs; tensor parallelism divides them") {
  Workload w = gpt(1, 1024, 16, 512, 1000, 1);
  Kernels f1 = transformer_forward(w.model, {1, 1, Precision::fp16}, {});
  Kernels f4 = transformer_forward(w.model, {1, 4, Precision::fp16}, {});
  CHECK(sum_flops(backward_of(f1)) == Approx(2 * sum_flops(f1)));
  CHECK(sum_flops(f4) == Approx(sum_flops(f1) / 4));
  CHECK(layer_parameters(w.model, 1) == Approx(12 * 1024.0 * 1024 + 13 * 1024));
}

TEST_CASE("GEMM efficiency falls with wave quantisation and short reductions") {
  const GpuSpec gpu = test_gpu(Precision::fp16, 100e12);
  Profile profile;
  ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  const double big = cost.gemm_efficiency(Kernel::gemm(128 * 80, 128 * 8, 8192));
  CHECK(big == Approx(0.8 * 8192 / (8192 + 32)));
  // 81 tiles need two waves on 80 SMs.
  CHECK(cost.gemm_efficiency(Kernel::gemm(128 * 81, 128, 8192)) == Approx(big * 81 / 160));
  CHECK(cost.gemm_efficiency(Kernel::gemm(128 * 80, 128 * 8, 64)) == Approx(0.8 * 64.0 / 96));
  // A memory-bound kernel runs at the stream bandwidth plus the launch gap.
  CHECK(cost.kernel_seconds(Kernel::memory(0.8e9)) == Approx(1e-3 + gpu.kernel_launch_s));
}

TEST_CASE("an untied LM head holds its own vocabulary-parallel projection") {
  Workload w = gpt(24, 1024, 16, 1024, 51200, 8);
  const double tied = head_parameters(w.model, 1);
  CHECK(tied == 2 * 1024); // the final layernorm only
  w.model.tie_embeddings = false;
  CHECK(head_parameters(w.model, 1) == tied + 51200.0 * (1024 + 1));
  CHECK(head_parameters(w.model, 4) == tied + 51200.0 * (1024 + 1) / 4);
}

TEST_CASE("the fused softmax runs only for the shapes and precisions its kernel takes") {
  const GpuSpec gpu = test_gpu(Precision::fp16, 100e12);
  Profile profile;
  profile.softmax_passes = 1;
  profile.fused_softmax = {true, 2048, 4, 3, true};
  ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  const ModelSpec m = gpt(1, 2048, 16, 2048, 1000, 1).model;
  // 16 heads over tp 8: two per GPU, so micro-batch 2 (four attention batches) fuses, 1 and 3 do not.
  CHECK(cost.form(m, {2, 8, Precision::fp16}).softmax_passes == 1);
  const KernelForm fallback = cost.form(m, {1, 8, Precision::fp16});
  CHECK(fallback.softmax_passes == 3);
  CHECK(fallback.softmax_fp32);
  CHECK(cost.form(m, {3, 8, Precision::fp16}).softmax_passes == 3);
  CHECK(cost.form(m, {1, 4, Precision::fp16}).softmax_passes == 1);
  CHECK(cost.form(m, {1, 4, Precision::fp32}).softmax_passes == 3); // fp32 scores: never the kernel
  ModelSpec longer = m;
  longer.seq_len = 4096;
  CHECK(cost.form(longer, {1, 4, Precision::fp16}).softmax_passes == 3);
  // The fallback reads and writes fp32 scores three times, plus the casts up and back.
  const double scores = 2.0 * 2048 * 2048; // micro-batch 1, two heads
  const Shard shard{1, 8, Precision::fp16};
  double fused_bytes = 0, fallback_bytes = 0;
  for (const Kernel& k : attention_core_forward(m, shard, cost.form(m, {2, 8, Precision::fp16})))
    fused_bytes += k.bytes;
  for (const Kernel& k : attention_core_forward(m, shard, fallback))
    fallback_bytes += k.bytes;
  CHECK(fallback_bytes - fused_bytes == Approx(scores * (3 * 8 + 6 + 6 - 4)));
  profile.fused_softmax = {}; // unset: the same kernels whatever the shape
  CHECK(ComputeCostModel(gpu, profile, Precision::fp16, "test").form(m, {1, 8, Precision::fp16}).softmax_passes == 1);
}
