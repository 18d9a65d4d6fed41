// A GEMM with a dimension that is not a whole number of 16-byte vectors runs at the GPU's
// measured unaligned figure (cost/compute_cost.cpp), where the catalog has one.
#include "cost/compute_cost.hpp"

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
