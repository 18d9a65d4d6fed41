#include "model/fp8.hpp"

namespace simgpt {

// TransformerEngine 2.x quantizes a GEMM input with one kernel that writes the fp8 data and, where
// the GPU's fp8 GEMMs are TN only, its transpose (transformer_engine/pytorch/csrc/quantizer.cpp,
// Float8Quantizer: with_transpose = columnwise_usage && !nvte_is_non_tn_fp8_gemm_supported()),
// recording the tensor's amax for delayed scaling's history as it goes. Current scaling
// (Float8CurrentScalingQuantizer, the tensorwise recipe) first computes the amax (nvte_compute_amax,
// a read of the tensor) and the scale from it (nvte_compute_scale_from_amax), then casts.
Kernels fp8_cast_kernels(const Fp8Cast& c) {
  const auto quantize = [](double bytes) {
    Kernel k = Kernel::memory(bytes);
    k.kind = Kernel::Kind::quantize;
    return k;
  };
  Kernels k;
  if (c.current_scaling) {
    k.push_back(quantize(c.elements * c.source_bytes)); // amax
    k.push_back(quantize(0));                           // scale from the amax: one value
  }
  const double copies = c.transpose ? 2 : 1;
  const double scales = c.block > 0 ? copies * c.elements / c.block : 0;
  k.push_back(quantize(c.elements * (c.source_bytes + copies * c.element_bytes) + scales));
  return k;
}

void add_linear(Kernels& kernels, const KernelForm& form, double E, double rows, double n, double k, double batch,
                double input_rows, double grad_rows) {
  Kernel gemm = Kernel::gemm(rows, n, k, batch);
  if (form.fp8) {
    const double q = form.fp4 ? 0.5 : 1; // bytes a quantized value
    const Kernels cast =
        fp8_cast_kernels({input_rows * k * batch, E, form.fp8_transpose, form.fp8_current_scaling, form.fp8_block, q});
    kernels.insert(kernels.end(), cast.begin(), cast.end());
    gemm.fp8 = true;
    gemm.fp4 = form.fp4;
    gemm.grad_cast = {grad_rows * n * batch, E, form.fp8_transpose, form.fp8_current_scaling, form.fp8_block, q};
    if (form.fp8_recast_per_use) {
      // torchao's Float8Linear (torchao/float8/float8_linear.py, matmul_with_hp_or_float8_args)
      // casts the high-precision weight in the forward, and in the backward casts the weight and
      // the saved high-precision input again, each into the layout its GEMM takes (torch._scaled_mm
      // wants its first operand row-major, its second column-major): no fp8 copy outlives a GEMM.
      const Kernels weight = fp8_cast_kernels({k * n * batch, E, false, form.fp8_current_scaling});
      kernels.insert(kernels.end(), weight.begin(), weight.end());
      gemm.backward_recast = {(k * n + input_rows * k) * batch, E, false, form.fp8_current_scaling};
    }
  }
  kernels.push_back(gemm);
}

double fp8_weight_elements(const Kernels& forward) {
  double elements = 0;
  for (const Kernel& k : forward)
    if (k.kind == Kernel::Kind::gemm && k.fp8)
      elements += k.k * k.n * k.batch;
  return elements;
}

Kernels layer_linear_marked_forward(const ModelSpec& m, int64_t tp, int64_t ep, int64_t i, int64_t etp) {
  // The weights' shapes do not depend on the tokens, the precision or the cast's form.
  const Shard shard{.micro_batch = 1, .tp = tp, .precision = Precision::bf16, .sequence_parallel = false, .ep = ep,
                    .etp = etp};
  KernelForm form;
  form.fp8 = true;
  return layer_forward(m, shard, form, i);
}

double layer_fp8_weight_elements(const ModelSpec& m, int64_t tp, int64_t ep, int64_t i, int64_t etp) {
  return fp8_weight_elements(layer_linear_marked_forward(m, tp, ep, i, etp));
}

std::set<std::pair<double, double>> linear_weight_shapes(const Kernels& forward, bool grouped) {
  std::set<std::pair<double, double>> shapes;
  for (const Kernel& k : forward)
    if (k.kind == Kernel::Kind::gemm && k.fp8 && (grouped || !k.grouped))
      shapes.emplace(k.n, k.k);
  return shapes;
}

} // namespace simgpt
