// The Mamba-2 mixer of a hybrid model (Dao and Gu 2024, arXiv 2405.21060) as Megatron-Core runs
// it: its projections, convolution and chunked state-space scan; internal to the model domain.
#pragma once

#include "model/model.hpp"

namespace simgpt {

// The forward kernels of one Mamba layer ('M' of model.hybrid_pattern) on one GPU: its norm, the
// input projection, the combined convolution and scan, the gated norm, the output projection and
// the residual. Tensor parallelism splits it as an attention block: the input all-gathered (or the
// output all-reduced) around column- and row-parallel projections.
Kernels mamba_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);

// The input projection's output width: z and x (d_inner each), B and C (groups x state each) and
// dt (a value a head), over all tensor ranks.
double mamba_projection_width(const ModelSpec& m);

// The layer's weights on one tensor-parallel rank: both projections, the depthwise convolution's
// weights and biases, dt's bias, A and D a head, the gated norm and the layer's norm.
double mamba_layer_parameters(const ModelSpec& m, int64_t tp);

// What one Mamba layer keeps for its backward, per token on one tensor rank, in bytes a value of
// the model's precision, beside its norm's input and the input projection's (which the caller
// counts with the other layers' replicated inputs): the input projection's output (the combined
// kernel saves it whole, and reruns the convolution from it) and the scan's output, which the gated
// norm and the output projection read.
double mamba_saved_width(const ModelSpec& m, int64_t tp);

} // namespace simgpt
