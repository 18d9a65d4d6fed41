// NVFP4 (training.fp8_recipe nvfp4) as TransformerEngine's NVFP4BlockScaling runs it: the linear
// GEMMs at the GPU's fp4 peak on half-byte operands, each cast an amax pass and one kernel writing
// both copies with an E4M3 scale per 16 values; the weights' two fp4 copies and the saved inputs'
// column-wise one; a GPU without fp4 tensor cores refused.
#include "cost/compute_cost.hpp"
#include "execution/plan.hpp"
#include "memory/footprint.hpp"
#include "model/fp8.hpp"
#include "model/model.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/memory/memory.hpp"
#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

GpuSpec blackwell(double fp4_peak = 10000e12) {
  GpuSpec gpu;
  gpu.name = "test";
  gpu.peak_flops = {{Precision::bf16, 2500e12}};
  gpu.gemm_efficiency = {{Precision::bf16, 0.7}};
  gpu.fp8_peak_flops = 5000e12;
  gpu.fp8_gemm_efficiency = 0.7;
  gpu.fp4_peak_flops = fp4_peak;
  gpu.fp4_gemm_efficiency = fp4_peak > 0 ? 0.6 : 0;
  gpu.memory_bandwidth = 8e12;
  gpu.memory_efficiency = 1;
  gpu.sms = 148;
  gpu.kernel_launch_s = 0;
  gpu.compute_capability = 10.0;
  return gpu;
}

TrainingSpec nvfp4() {
  TrainingSpec t;
  t.precision = Precision::bf16;
  t.fp8 = Fp8Format::e4m3;
  t.fp8_recipe = Fp8Recipe::nvfp4;
  return t;
}

} // namespace

TEST_CASE("an nvfp4 GEMM runs at the fp4 peak and efficiency and moves half-byte operands with their scales") {
  const GpuSpec gpu = blackwell();
  const Profile profile;
  const ComputeCostModel cost(gpu, profile, nvfp4(), "w.yaml");
  Kernel fp8 = Kernel::gemm(8192, 8192, 8192);
  fp8.fp8 = true;
  Kernel fp4 = fp8;
  fp4.fp4 = true;
  CHECK(cost.gemm_efficiency(fp4) == Approx(cost.gemm_efficiency(fp8) * 0.6 / 0.7));
  CHECK(cost.kernel_seconds(fp4) == Approx(fp4.flops() / (10000e12 * cost.gemm_efficiency(fp4))));
  // Too small to be compute-bound: A and B at 0.5 + 1/16 bytes a value, C in bf16.
  Kernel small = Kernel::gemm(128, 128 * 148, 16);
  small.fp8 = small.fp4 = true;
  const double bytes = (128.0 * 16 + 16.0 * 128 * 148) * (0.5 + 1.0 / 16) + 128.0 * 128 * 148 * 2;
  CHECK(cost.kernel_seconds(small) == Approx(bytes / 8e12));
}

TEST_CASE("under nvfp4 each linear layer's cast is an amax pass and one kernel writing both half-byte copies") {
  const GpuSpec gpu = blackwell();
  const Profile profile;
  const ComputeCostModel cost(gpu, profile, nvfp4(), "w.yaml");
  ModelSpec m{2, 1024, 16, 1024, 32000, 4096, Head::lm};
  const Shard shard{1, 1, Precision::bf16};
  const KernelForm form = cost.form(m, shard);
  CHECK(form.fp4);
  CHECK(form.fp8_current_scaling);
  CHECK(form.fp8_transpose);
  CHECK(form.fp8_block == 16);
  const Kernels cast = fp8_cast_kernels({.elements = 1600, .source_bytes = 2, .transpose = true,
                                         .current_scaling = true, .block = 16, .element_bytes = 0.5});
  REQUIRE(cast.size() == 3);
  CHECK(cast[0].bytes == 1600 * 2);                      // amax
  CHECK(cast[2].bytes == 1600 * (2 + 2 * 0.5) + 2 * 100); // both copies, a scale per 16 each
  // Every linear GEMM of the layer is fp4, its backward's too.
  const Kernels layer = transformer_forward(m, shard, form);
  int fp4 = 0;
  for (const Kernel& k : layer)
    if (k.kind == Kernel::Kind::gemm && k.layout != Kernel::Layout::none) {
      CHECK(k.fp4);
      ++fp4;
    }
  CHECK(fp4 == 4);
  for (const Kernel& k : backward_of(layer))
    if (k.kind == Kernel::Kind::gemm && k.layout != Kernel::Layout::none)
      CHECK(k.fp4);
}

TEST_CASE("nvfp4 keeps two weight copies of 0.5625 bytes and saves inputs in 0.5625") {
  CHECK(quantized_input_bytes(Fp8Recipe::nvfp4) == 0.5625);
  CHECK(quantized_input_bytes(Fp8Recipe::mxfp8) == 1);
  const ModelSpec m{2, 1024, 16, 1024, 32000, 4096, Head::lm};
  const double fp8 = layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::bf16, false, 1, 4, false,
                                            false, true, 1);
  const double fp4 = layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::bf16, false, 1, 4, false,
                                            false, true, 0.5625);
  CHECK(fp4 < fp8);
  ExecutionPlan plan;
  Workload w;
  w.training = nvfp4();
  StageFootprint f;
  f.params = 100;
  f.fp8_weights = 64;
  const Profile profile;
  const GpuSpec gpu = blackwell();
  Workload bf16 = w;
  bf16.training.fp8 = Fp8Format::none;
  bf16.training.fp8_recipe = Fp8Recipe::delayed;
  StageFootprint none = f;
  none.fp8_weights = 0; // no low-precision GEMMs: no copies
  CHECK(resident_state(f, plan, w, profile, gpu).weights - resident_state(none, plan, bf16, profile, gpu).weights ==
        Approx(64 * 2 * 0.5625));
}

TEST_CASE("nvfp4 on a GPU without fp4 tensor cores is refused, naming the recipe") {
  const Profile profile;
  CHECK_THROWS_WITH(ComputeCostModel(blackwell(0), profile, nvfp4(), "w.yaml"),
                    Catch::Contains("training.fp8_recipe") && Catch::Contains("nvfp4 needs fp4 tensor cores"));
}
