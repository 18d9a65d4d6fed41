// The host issues a block's kernels one every compute.op_overhead, ahead of the GPU
// (cost/compute_cost.cpp): the block costs its GPU time when kernels are long, the host's when
// they are short, and in between when they are mixed.
#include "cost/compute_cost.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {
GpuSpec host_test_gpu() {
  GpuSpec gpu;
  gpu.name = "test";
  gpu.peak_flops = {{Precision::fp16, 100e12}};
  gpu.gemm_efficiency = {{Precision::fp16, 0.8}};
  gpu.memory_bandwidth = 1e12;
  gpu.memory_efficiency = 1;
  gpu.sms = 80;
  gpu.kernel_launch_s = 0;
  return gpu;
}
} // namespace

TEST_CASE("a block of kernels longer than their dispatch costs its GPU time") {
  const GpuSpec gpu = host_test_gpu();
  Profile profile;
  profile.op_overhead_s = 10e-6;
  const ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  const Kernels long_kernels(5, Kernel::memory(1e8)); // 100 us each at 1 TB/s
  CHECK(cost.seconds(long_kernels) == Approx(5 * 100e-6));
}

TEST_CASE("a block of kernels shorter than their dispatch costs the host's time") {
  const GpuSpec gpu = host_test_gpu();
  Profile profile;
  profile.op_overhead_s = 50e-6;
  const ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  const Kernels short_kernels(10, Kernel::memory(1e6)); // 1 us each
  // The first is issued as the block begins, each next one 50 us later; the last runs 1 us.
  CHECK(cost.seconds(short_kernels) == Approx(9 * 50e-6 + 1e-6));
}

TEST_CASE("the host issues short kernels while a long one runs") {
  const GpuSpec gpu = host_test_gpu();
  Profile profile;
  profile.op_overhead_s = 20e-6;
  const ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  // A 100 us kernel, then three of 1 us: issued at 20, 40 and 60 us, all before the long one ends.
  const Kernels mixed{Kernel::memory(1e8), Kernel::memory(1e6), Kernel::memory(1e6), Kernel::memory(1e6)};
  CHECK(cost.seconds(mixed) == Approx(103e-6));
  // Three 1 us kernels first: the host bounds them, then the long one starts when issued at 60 us.
  const Kernels short_first{Kernel::memory(1e6), Kernel::memory(1e6), Kernel::memory(1e6), Kernel::memory(1e8)};
  CHECK(cost.seconds(short_first) == Approx(60e-6 + 100e-6));
}

TEST_CASE("CUDA graphs issue a block's kernels with one host launch") {
  const GpuSpec gpu = host_test_gpu();
  Profile eager_profile;
  eager_profile.op_overhead_s = 50e-6;
  Profile graphed_profile = eager_profile;
  graphed_profile.cuda_graphs = CudaGraphs::iteration();
  const Kernels short_kernels(10, Kernel::memory(1e6)); // 1 us each
  const ComputeCostModel eager(gpu, eager_profile, Precision::fp16, "test");
  const ComputeCostModel graphed(gpu, graphed_profile, Precision::fp16, "test");
  CHECK(eager.seconds(short_kernels, GraphScope::attention) == Approx(9 * 50e-6 + 1e-6));
  // All ten issued at once: the GPU runs them back to back.
  CHECK(graphed.seconds(short_kernels, GraphScope::attention) == Approx(10 * 1e-6));
  // Long kernels were GPU-bound already: graphs change nothing.
  const Kernels long_kernels(5, Kernel::memory(1e8));
  CHECK(graphed.seconds(long_kernels, GraphScope::attention) == Approx(eager.seconds(long_kernels)));
}

TEST_CASE("a CUDA graph scope spares only its own blocks the host's issue time") {
  const GpuSpec gpu = host_test_gpu();
  Profile profile;
  profile.op_overhead_s = 50e-6;
  profile.cuda_graphs.attention = true;
  profile.cuda_graphs.moe_router = true;
  const ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  const Kernels short_kernels(10, Kernel::memory(1e6)); // 1 us each: host-bound when eager
  CHECK(cost.seconds(short_kernels, GraphScope::attention) == Approx(10e-6));
  CHECK(cost.seconds(short_kernels, GraphScope::moe_router) == Approx(10e-6));
  for (GraphScope eager : {GraphScope::mlp, GraphScope::moe, GraphScope::mamba, GraphScope::outside_layers,
                           GraphScope::none})
    CHECK(cost.seconds(short_kernels, eager) == Approx(9 * 50e-6 + 1e-6));
}

TEST_CASE("TransformerEngine's grouped GEMM takes the GPU's loop time a group, unless captured in a CUDA graph") {
  GpuSpec gpu = host_test_gpu();
  gpu.grouped_gemm_launch_s = 8e-6;
  Profile profile;
  profile.op_overhead_s = 10e-6;
  profile.grouped_gemm_per_group = true;
  // 16 experts of 64 x 64 x 64: each GEMM a fraction of a microsecond on the GPU.
  Kernel experts = Kernel::gemm(64, 64, 64, 16);
  experts.grouped = true;
  const ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  CHECK(cost.seconds({experts}) == Approx(16 * 8e-6));
  // The loop holds the host: a short kernel after it is issued 10 us after the loop's end.
  CHECK(cost.seconds({experts, Kernel::memory(1e6)}) == Approx(16 * 8e-6 + 10e-6 + 1e-6));
  // Where the GEMMs take longer than the loop, their GPU time.
  Kernel large = Kernel::gemm(8192, 8192, 8192, 16);
  large.grouped = true;
  CHECK(cost.seconds({large}) == Approx(cost.kernel_seconds(large)));
  // A framework with one kernel for all groups (compute.grouped_gemm one_kernel), or the experts
  // captured in a CUDA graph, has no loop.
  Profile one_kernel = profile;
  one_kernel.grouped_gemm_per_group = false;
  CHECK(ComputeCostModel(gpu, one_kernel, Precision::fp16, "test").seconds({experts}) ==
        Approx(cost.kernel_seconds(experts)));
  Profile graphed = profile;
  graphed.cuda_graphs.moe = true;
  CHECK(ComputeCostModel(gpu, graphed, Precision::fp16, "test").seconds({experts}, GraphScope::moe) ==
        Approx(cost.kernel_seconds(experts)));
}

TEST_CASE("a kernel another op launches from its C++ takes no host time of its own") {
  const GpuSpec gpu = host_test_gpu();
  Profile profile;
  profile.op_overhead_s = 50e-6;
  const ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  Kernels ks(4, Kernel::memory(1e6)); // 1 us each: host-bound
  CHECK(cost.seconds(ks) == Approx(3 * 50e-6 + 1e-6));
  ks[1].host_call = false; // launched with the one before it
  CHECK(cost.seconds(ks) == Approx(2 * 50e-6 + 1e-6));
}
