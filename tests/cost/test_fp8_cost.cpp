// fp8 training's GEMMs run at the GPU's fp8 tensor-core peak and efficiency, their casts at the
// stream bandwidth (cost/compute_cost.cpp); a GPU without fp8 tensor cores is refused.
#include "cost/compute_cost.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

GpuSpec fp8_gpu(double compute_capability = 9.0) {
  GpuSpec gpu;
  gpu.name = "test";
  gpu.peak_flops = {{Precision::bf16, 1000e12}};
  gpu.gemm_efficiency = {{Precision::bf16, 0.7}};
  gpu.fp8_peak_flops = 2000e12;
  gpu.fp8_gemm_efficiency = 0.6;
  gpu.memory_bandwidth = 1e12;
  gpu.memory_efficiency = 1;
  gpu.sms = 132;
  gpu.kernel_launch_s = 0;
  gpu.compute_capability = compute_capability;
  return gpu;
}

TrainingSpec fp8_training(Fp8Recipe recipe = Fp8Recipe::delayed) {
  TrainingSpec t;
  t.precision = Precision::bf16;
  t.fp8 = Fp8Format::hybrid;
  t.fp8_recipe = recipe;
  return t;
}

} // namespace

TEST_CASE("an fp8 GEMM runs at the fp8 peak and efficiency, a bf16 one at bf16's") {
  const GpuSpec gpu = fp8_gpu();
  const Profile profile;
  const ComputeCostModel cost(gpu, profile, fp8_training(), "w.yaml");
  const Kernel bf16 = Kernel::gemm(8192, 8192, 8192);
  Kernel fp8 = bf16;
  fp8.fp8 = true;
  CHECK(cost.gemm_efficiency(fp8) == Approx(cost.gemm_efficiency(bf16) * 0.6 / 0.7));
  CHECK(cost.kernel_seconds(fp8) == Approx(fp8.flops() / (2000e12 * cost.gemm_efficiency(fp8))));
  CHECK(cost.kernel_seconds(bf16) == Approx(bf16.flops() / (1000e12 * cost.gemm_efficiency(bf16))));
  // A cast is memory-bound: its bytes at the stream bandwidth.
  Kernel cast = Kernel::memory(1e9);
  cast.kind = Kernel::Kind::quantize;
  CHECK(cost.kernel_seconds(cast) == Approx(1e-3));
}

TEST_CASE("an fp8 GEMM too small to be compute-bound moves one-byte operands") {
  const GpuSpec gpu = fp8_gpu();
  const Profile profile;
  const ComputeCostModel cost(gpu, profile, fp8_training(), "w.yaml");
  // One wave of 128 x 128 tiles over a reduction of 128: bound by its operands, A and B one byte
  // an element in fp8 (two in bf16), C two.
  const double m = 128 * 132, n = 128, k = 128;
  Kernel fp8 = Kernel::gemm(m, n, k);
  fp8.fp8 = true;
  CHECK(cost.kernel_seconds(fp8) == Approx((m * k + k * n + 2 * m * n) / 1e12));
  CHECK(cost.kernel_seconds(Kernel::gemm(m, n, k)) == Approx(2 * (m * k + k * n + m * n) / 1e12));
}

TEST_CASE("the cost model forms fp8 kernels as TransformerEngine runs them on the GPU") {
  const Profile profile;
  const ModelSpec m{.layers = 1, .hidden = 1024, .heads = 8, .seq_len = 1024, .vocab = 1000, .ffn_hidden = 4096};
  const Shard shard{.micro_batch = 1, .tp = 1, .precision = Precision::bf16};
  const GpuSpec hopper = fp8_gpu(9.0), ada = fp8_gpu(8.9), blackwell = fp8_gpu(10.0), rtx_blackwell = fp8_gpu(12.0);
  // Hopper's and Ada's fp8 GEMMs are TN only, data-center Blackwell's are not (TE's
  // is_non_tn_fp8_gemm_supported).
  CHECK(ComputeCostModel(hopper, profile, fp8_training(), "w").form(m, shard).fp8_transpose);
  CHECK(ComputeCostModel(ada, profile, fp8_training(), "w").form(m, shard).fp8_transpose);
  CHECK_FALSE(ComputeCostModel(blackwell, profile, fp8_training(), "w").form(m, shard).fp8_transpose);
  CHECK(ComputeCostModel(rtx_blackwell, profile, fp8_training(), "w").form(m, shard).fp8_transpose);
  const KernelForm delayed = ComputeCostModel(hopper, profile, fp8_training(), "w").form(m, shard);
  CHECK((delayed.fp8 && !delayed.fp8_current_scaling));
  CHECK(ComputeCostModel(hopper, profile, fp8_training(Fp8Recipe::tensorwise), "w").form(m, shard).fp8_current_scaling);
  TrainingSpec bf16 = fp8_training();
  bf16.fp8 = Fp8Format::none;
  CHECK_FALSE(ComputeCostModel(hopper, profile, bf16, "w").form(m, shard).fp8);
}

TEST_CASE("an fp8 layer runs faster than its bf16 self, by less than the peaks' ratio") {
  const GpuSpec gpu = fp8_gpu();
  const Profile profile;
  const ComputeCostModel fp8(gpu, profile, fp8_training(), "w");
  TrainingSpec t = fp8_training();
  t.fp8 = Fp8Format::none;
  const ComputeCostModel bf16(gpu, profile, t, "w");
  const ModelSpec m{.layers = 1, .hidden = 8192, .heads = 64, .seq_len = 4096, .vocab = 1000, .ffn_hidden = 32768};
  const Shard shard{.micro_batch = 1, .tp = 1, .precision = Precision::bf16};
  const Kernels fp8_layer = transformer_forward(m, shard, fp8.form(m, shard));
  const Kernels bf16_layer = transformer_forward(m, shard, bf16.form(m, shard));
  for (const auto& [fast, slow] : {std::pair{fp8.seconds(fp8_layer), bf16.seconds(bf16_layer)},
                                   std::pair{fp8.seconds(backward_of(fp8_layer)), bf16.seconds(backward_of(bf16_layer))}}) {
    CHECK(fast < slow);
    CHECK(slow / fast < 2);
  }
}

TEST_CASE("fp8 training on a GPU without fp8 tensor cores is refused, naming training.fp8") {
  const GpuCatalog catalog = load_catalog(default_data_paths());
  const Profile profile;
  for (const char* name : {"A100-SXM4-80GB", "V100-SXM2-32GB"}) {
    TrainingSpec t = fp8_training();
    t.precision = Precision::fp16;
    CHECK_THROWS_WITH(ComputeCostModel(catalog.at(name, "test"), profile, t, "w.yaml"),
                      Catch::StartsWith("w.yaml: training.fp8: hybrid needs fp8 tensor cores and GPU " +
                                        std::string(name) + " has none") &&
                          Catch::Contains("compute capability 8.9"));
  }
  CHECK_NOTHROW(ComputeCostModel(catalog.at("H100-SXM5-80GB", "test"), profile, fp8_training(), "w.yaml"));
  // The precision is checked as before, under its own key.
  TrainingSpec t = fp8_training();
  CHECK_THROWS_WITH(ComputeCostModel(catalog.at("V100-SXM2-32GB", "test"), profile, t, "w.yaml"),
                    Catch::StartsWith("w.yaml: training.precision"));
}
