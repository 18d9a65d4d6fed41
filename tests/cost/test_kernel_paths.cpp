// A GEMM with a dimension that is not a whole number of 16-byte vectors runs at the GPU's
// measured unaligned figure, and an elementwise kernel with a broadcast input at its strided one
// (cost/compute_cost.cpp), where the catalog has them.
#include "cost/compute_cost.hpp"
#include "model/model.hpp"

#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

TEST_CASE("an LM head over an odd vocabulary runs at the GPU's unaligned GEMM figure, aligned GEMMs as before") {
  const GpuCatalog catalog = load_catalog(default_data_paths());
  const GpuSpec& h200 = catalog.at("H200-SXM-141GB", "test");
  REQUIRE(h200.unaligned_gemm_efficiency.contains(Precision::bf16));
  const Profile profile;
  const ComputeCostModel bf16(h200, profile, Precision::bf16, "test");
  // GPT-2's 50,257 words: not a multiple of 8 bf16 elements; 50,304 (nanoGPT's padding) is.
  const Kernel odd = Kernel::gemm(16384, 50257, 768), padded = Kernel::gemm(16384, 50304, 768);
  CHECK(bf16.unaligned(odd));
  CHECK_FALSE(bf16.unaligned(padded));
  CHECK(bf16.gemm_efficiency(odd) == h200.unaligned_gemm_efficiency.at(Precision::bf16));
  CHECK(bf16.gemm_efficiency(padded) > 4 * bf16.gemm_efficiency(odd));
  // Any of m, n and k leads an operand in some layout: an odd reduction breaks it as well.
  CHECK(bf16.unaligned(Kernel::gemm(16384, 768, 50257)));
  // fp32 needs multiples of 4 elements: 50,256 is one, and so is 768.
  const ComputeCostModel fp32(h200, profile, Precision::fp32, "test");
  CHECK_FALSE(fp32.unaligned(Kernel::gemm(16384, 50256, 768)));
  // No measured figure for fp32 on the H200: an unaligned fp32 GEMM keeps the aligned model.
  CHECK(fp32.gemm_efficiency(Kernel::gemm(16384, 50257, 768)) ==
        Approx(fp32.gemm_efficiency(Kernel::gemm(16384, 50256, 768))).epsilon(0.01));
  // A GPU the catalog has no such figure for is not penalised.
  const ComputeCostModel a100(catalog.at("A100-SXM4-80GB", "test"), profile, Precision::bf16, "test");
  CHECK(a100.gemm_efficiency(odd) == Approx(a100.gemm_efficiency(padded)).epsilon(0.01));
}

TEST_CASE("a masked fill with a broadcast mask runs at the GPU's strided figure, in the forward and the backward") {
  const GpuCatalog catalog = load_catalog(default_data_paths());
  const GpuSpec& h200 = catalog.at("H200-SXM-141GB", "test");
  REQUIRE(h200.strided_memory_efficiency > 0);
  const Profile profile;
  const ComputeCostModel cost(h200, profile, Precision::bf16, "test");
  Kernel fill = Kernel::memory(1e9), copy = Kernel::memory(1e9);
  fill.strided = true;
  CHECK(cost.kernel_seconds(fill) - h200.kernel_launch_s == Approx(1e9 / (h200.memory_bandwidth * h200.strided_memory_efficiency)));
  CHECK(cost.kernel_seconds(copy) - h200.kernel_launch_s == Approx(1e9 / (h200.memory_bandwidth * h200.memory_efficiency)));
  // Eager attention's three score kernels: scale, mask, softmax; only the mask is broadcast, and
  // its backward keeps it.
  ModelSpec m;
  m.layers = 1, m.hidden = 768, m.heads = 12, m.seq_len = 1024, m.vocab = 50257, m.ffn_hidden = 3072;
  Shard s;
  s.micro_batch = 1, s.precision = Precision::bf16;
  KernelForm eager;
  eager.softmax_passes = 3;
  const auto count = [](const Kernels& ks) { return std::count_if(ks.begin(), ks.end(), [](const Kernel& k) { return k.strided; }); };
  CHECK(count(attention_core_forward(m, s, eager)) == 1);
  CHECK(count(backward_of(attention_core_forward(m, s, eager))) == 1);
  KernelForm fused;
  fused.softmax_passes = 1;
  CHECK(count(attention_core_forward(m, s, fused)) == 0);
  // A GPU without the figure prices it as any stream kernel.
  const ComputeCostModel a100(catalog.at("A100-SXM4-80GB", "test"), profile, Precision::bf16, "test");
  CHECK(a100.kernel_seconds(fill) == a100.kernel_seconds(copy));
}

TEST_CASE("a grouped GEMM runs at the GPU's grouped figure where the catalog measures one, as a GEMM elsewhere") {
  const GpuCatalog catalog = load_catalog(default_data_paths());
  const Profile profile;
  const GpuSpec& b200 = catalog.at("B200-SXM-180GB", "test");
  REQUIRE(b200.grouped_gemm_efficiency.contains(Precision::bf16));
  const ComputeCostModel blackwell(b200, profile, Precision::bf16, "test");
  // 32 experts of Qwen3-30B-A3B's FC1 (2 x 768 wide, hidden 2048), 1,024 tokens each: no table row.
  Kernel experts = Kernel::gemm(1024, 1536, 2048, 32), dense = experts;
  experts.grouped = true;
  const double grouped = b200.grouped_gemm_efficiency.at(Precision::bf16);
  const double ratio = grouped / b200.gemm_efficiency.at(Precision::bf16);
  CHECK(blackwell.peak_fraction(experts) == grouped);
  CHECK(blackwell.gemm_efficiency(experts) == Approx(ratio * blackwell.gemm_efficiency(dense)));
  // Its HBM traffic adds to its math: longer than the math alone at the grouped figure.
  CHECK(blackwell.kernel_seconds(experts) > 1.2 * blackwell.kernel_seconds(dense) / ratio);
  // fp8 GEMMs take the fp8 figure beside it.
  Kernel fp8 = experts;
  fp8.fp8 = true;
  CHECK(blackwell.peak_fraction(fp8) == b200.fp8_grouped_gemm_efficiency);
  // H100 has no grouped figure: a grouped GEMM is priced as the same problems run one by one.
  const GpuSpec& h100 = catalog.at("H100-SXM5-80GB", "test");
  REQUIRE_FALSE(h100.grouped_gemm_efficiency.contains(Precision::bf16));
  const ComputeCostModel hopper(h100, profile, Precision::bf16, "test");
  CHECK(hopper.gemm_efficiency(experts) == hopper.gemm_efficiency(dense));
}

TEST_CASE("a grouped GEMM's HBM traffic adds to its math, its weight gradient reading and writing the main gradient") {
  const GpuCatalog catalog = load_catalog(default_data_paths());
  // B200 without its kernel table: the fallback's own price.
  GpuSpec b200 = catalog.at("B200-SXM-180GB", "test");
  REQUIRE(b200.kernel_table);
  b200.kernel_table.reset();
  Profile fp32_grads, bf16_grads;
  fp32_grads.memory.fp32_grads_with_bf16 = true;
  const ComputeCostModel fp32(b200, fp32_grads, Precision::bf16, "test");
  const ComputeCostModel bf16(b200, bf16_grads, Precision::bf16, "test");
  // DeepSeek-V3's 256 experts' FC1 weight gradients (7,168 x 4,096 each) over 128 tokens apiece.
  Kernel wgrad = Kernel::gemm(4096, 7168, 128, 256);
  wgrad.layout = Kernel::Layout::NT;
  wgrad.grouped = true;
  const double stream = b200.memory_bandwidth * b200.memory_efficiency;
  const double outputs = 4096.0 * 7168 * 256;
  // Read and written: 4 + 4 bytes a value of an fp32 main gradient, 2 + 2 of a bf16 one.
  CHECK(fp32.kernel_seconds(wgrad) - bf16.kernel_seconds(wgrad) == Approx(outputs * 4 / stream));
  // As measured (platforms/kernels/B200-SXM-180GB.yaml, this shape's rows): 11,035.5 us into fp32
  // main gradients, 6,040.7 us into bf16 ones; the larger of math and traffic would give 8.9 and 4.5 ms.
  CHECK(fp32.kernel_seconds(wgrad) == Approx(11035.5e-6).epsilon(0.1));
  CHECK(bf16.kernel_seconds(wgrad) == Approx(6040.7e-6).epsilon(0.1));
  // Forward and input-gradient GEMMs overwrite their output: the gradients' type does not touch them.
  Kernel forward = wgrad;
  forward.layout = Kernel::Layout::TN;
  CHECK(fp32.kernel_seconds(forward) == bf16.kernel_seconds(forward));
  // A dense GEMM keeps the larger of the two.
  Kernel dense = Kernel::gemm(16384, 8192, 8192);
  dense.layout = Kernel::Layout::NT;
  CHECK(fp32.kernel_seconds(dense) == bf16.kernel_seconds(dense));
}

TEST_CASE("TransformerEngine's fused cross-entropy and MoE permutation run at the GPU's measured memory-op figures") {
  const GpuCatalog catalog = load_catalog(default_data_paths());
  const GpuSpec& b200 = catalog.at("B200-SXM-180GB", "test");
  REQUIRE(b200.te_cross_entropy_efficiency > 0);
  REQUIRE(b200.moe_permute_efficiency > 0);
  const Profile profile;
  const ComputeCostModel cost(b200, profile, Precision::bf16, "test");
  const auto at = [&](Kernel::Op op) {
    Kernel k = Kernel::memory(1e9);
    k.op = op;
    return cost.kernel_seconds(k) - b200.kernel_launch_s;
  };
  CHECK(at(Kernel::Op::te_cross_entropy) == Approx(1e9 / (b200.memory_bandwidth * b200.te_cross_entropy_efficiency)));
  CHECK(at(Kernel::Op::moe_permute) == Approx(1e9 / (b200.memory_bandwidth * b200.moe_permute_efficiency)));
  CHECK(at(Kernel::Op::other) == Approx(1e9 / (b200.memory_bandwidth * b200.memory_efficiency)));
  // A GPU without the figures prices them as any stream.
  const GpuSpec& h200 = catalog.at("H200-SXM-141GB", "test");
  const ComputeCostModel h200_cost(h200, profile, Precision::bf16, "test");
  Kernel permute = Kernel::memory(1e9);
  permute.op = Kernel::Op::moe_permute;
  CHECK(h200_cost.kernel_seconds(permute) - h200.kernel_launch_s ==
        Approx(1e9 / (h200.memory_bandwidth * h200.memory_efficiency)));
  // Their backward: the inverse permutation, the same bytes; the loss's gradient scaled in place,
  // two of the forward's three passes. Any other elementwise kernel's: twice its bytes.
  Kernel loss = Kernel::memory(3e9), other = Kernel::memory(1e9);
  loss.op = Kernel::Op::te_cross_entropy;
  CHECK(backward_of({permute}).front().bytes == Approx(1e9));
  CHECK(backward_of({loss}).front().bytes == Approx(2e9));
  CHECK(backward_of({other}).front().bytes == Approx(2e9));
  // A MoE block's permutation and unpermutation are marked so (not under Hybrid-EP, whose dispatch
  // and combine kernels permute).
  ModelSpec m;
  m.layers = 1, m.hidden = 2048, m.heads = 16, m.seq_len = 4096, m.vocab = 32000, m.ffn_hidden = 8192;
  m.experts = 64, m.top_k = 4, m.moe_ffn_hidden = 1024;
  Shard s;
  s.precision = Precision::bf16;
  const auto marked = [](const Kernels& ks) {
    return std::count_if(ks.begin(), ks.end(), [](const Kernel& k) { return k.op == Kernel::Op::moe_permute; });
  };
  const MoeBlock block = moe_block_forward(m, s, KernelForm{});
  CHECK(marked(block.before_dispatch) == 1);
  CHECK(marked(block.after_combine) == 1);
  s.dispatcher = MoeDispatcher::hybridep;
  const MoeBlock hybrid = moe_block_forward(m, s, KernelForm{});
  CHECK(marked(hybrid.before_dispatch) + marked(hybrid.after_combine) == 0);
}
