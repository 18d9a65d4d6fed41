// fp8 training as TransformerEngine runs it under Megatron-LM (training.fp8): which GEMMs take
// fp8 inputs, the casts before them, and the fp8 weight copies TE keeps. Part of the model
// domain: nothing here knows about GPUs or time (the form says what the GPU's GEMMs need).
#pragma once

#include "model/model.hpp"

#include <set>
#include <utility>

namespace simgpt {

// The kernels of one cast (Fp8Cast), all Kernel::Kind::quantize.
Kernels fp8_cast_kernels(const Fp8Cast& cast);

// Appends a linear layer's GEMM, [rows x n] = [rows x k] x [k x n] (`batch` grouped problems, as
// TE's GroupedLinear runs a MoE layer's experts), to `kernels`: in fp8 after the cast of its
// input when form.fp8, as `E`-byte GEMM otherwise. `input_rows` and `grad_rows` are the rows of
// the input and of the output gradient this rank casts: TE casts a sequence-parallel tensor
// before the all-gather (transformer_engine/pytorch/module/linear.py and layernorm_linear.py,
// gather_along_first_dim with the quantizer; the backward's grad_output likewise), so rows / tp.
void add_linear(Kernels& kernels, const KernelForm& form, double E, double rows, double n, double k, double batch,
                double input_rows, double grad_rows);

// Elements of the weights of `forward`'s fp8 GEMMs ([k x n] each, `batch` of them): what TE
// keeps an fp8 copy of.
double fp8_weight_elements(const Kernels& forward);
// The same for the model's layer i (from 0) on one GPU (layer_linear_marked_forward's shard).
double layer_fp8_weight_elements(const ModelSpec& m, int64_t tp, int64_t ep, int64_t i, int64_t etp = 0);

// Layer i's forward on one GPU (its tensor-parallel shard, experts / ep, each split over `etp`
// tensor ranks: 0, tp) with every linear layer's GEMM marked fp8: what the two readers below take.
Kernels layer_linear_marked_forward(const ModelSpec& m, int64_t tp, int64_t ep, int64_t i, int64_t etp = 0);
// The [n x k] shapes of `forward`'s linear weights (layer_linear_marked_forward's), the grouped
// experts' among them only when `grouped`.
std::set<std::pair<double, double>> linear_weight_shapes(const Kernels& forward, bool grouped);

} // namespace simgpt
