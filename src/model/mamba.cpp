#include "model/mamba.hpp"

#include "model/fp8.hpp"

namespace simgpt {
namespace {

// The scan's chunk length: Megatron-Core's MambaMixer default chunk_size (megatron/core/ssm/
// mamba_mixer.py), which Megatron-Bridge's mamba_chunk_size keeps (models/hybrid/hybrid_provider.py).
constexpr double kChunk = 128;
// The depthwise causal convolution's width (MambaMixer's d_conv).
constexpr double kConvWidth = 4;

struct MambaShape {
  double tokens, rows, h, inner, heads, groups, state, head_dim, projection;
  // The channels the depthwise convolution runs over: x, B and C.
  double conv_channels() const { return inner + 2 * groups * state; }
};

MambaShape shape_of(const ModelSpec& m, const Shard& s) {
  const double tp = static_cast<double>(s.tp);
  const double tokens = static_cast<double>(s.micro_batch * m.seq_len);
  return {tokens,
          s.sequence_parallel ? tokens / tp : tokens,
          static_cast<double>(m.hidden),
          static_cast<double>(m.mamba_inner()) / tp,
          static_cast<double>(m.mamba_heads) / tp,
          static_cast<double>(m.mamba_groups) / tp,
          static_cast<double>(m.mamba_state),
          static_cast<double>(m.mamba_head_dim),
          mamba_projection_width(m) / tp};
}

} // namespace

double mamba_projection_width(const ModelSpec& m) {
  return static_cast<double>(2 * m.mamba_inner() + 2 * m.mamba_groups * m.mamba_state + m.mamba_heads);
}

Kernels mamba_block_forward(const ModelSpec& m, const Shard& s, const KernelForm& form) {
  const double E = element_bytes(s.precision);
  const MambaShape x = shape_of(m, s);
  const double local = x.rows * x.h; // the residual stream this rank holds
  // The layer's norm, fused into the input projection (TELayerNormColumnParallelLinear: MambaLayer's
  // own norm is an identity, megatron/core/models/hybrid/hybrid_layer_specs.py).
  Kernels k = layer_norm_forward(m, s, form);
  // in_proj: hidden -> [z, x, B, C, dt], column parallel, no bias.
  add_linear(k, form, E, x.tokens, x.projection, x.h, 1, x.rows, x.tokens);
  // MambaMixer's training path calls mamba_ssm's mamba_split_conv1d_scan_combined (Triton; state-
  // spaces/mamba, mamba_ssm/ops/triton/ssd_combined.py), which saves only its input and output: its
  // backward first reruns the convolution and the scan's chunk states from them (rerun_in_backward).
  const double conv = x.conv_channels();
  const double chunks = x.tokens / kChunk;
  const auto rerun = [&k](Kernel kernel) {
    kernel.rerun_in_backward = true;
    kernel.layout = Kernel::Layout::none;
    k.push_back(kernel);
  };
  // causal_conv1d_fwd: a width-4 depthwise convolution and SiLU over x, B and C.
  rerun(Kernel::memory(2 * x.tokens * conv * E));
  // The SSD algorithm (Dao and Gu 2024, section 7; _mamba_chunk_scan_combined_fwd), chunk by chunk:
  // dt's softplus and the cumulative decay (fp32), each chunk's final state B^T x (a [head_dim x
  // state] product over the chunk's tokens for every head), the states passed chunk to chunk (fp32,
  // read and written), C B^T within each chunk for every group, and the outputs: the masked C B^T
  // times x within the chunk plus C times the state entering it, gated by SiLU(z).
  rerun(Kernel::memory(x.tokens * x.heads * (E + 8)));
  rerun(Kernel::gemm(x.head_dim, x.state, kChunk, chunks * x.heads));
  rerun(Kernel::memory(2 * 4 * chunks * x.heads * x.head_dim * x.state));
  rerun(Kernel::gemm(kChunk, kChunk, x.state, chunks * x.groups));
  for (const double reduction : {kChunk, x.state}) {
    k.push_back(Kernel::gemm(kChunk, x.head_dim, reduction, chunks * x.heads));
    k.back().layout = Kernel::Layout::none;
  }
  // The gated RMSNorm over d_inner (ExtendedRMSNorm, a norm per group of d_inner / groups channels,
  // on the scan's already gated output: norm_before_gate false).
  k.push_back(Kernel::memory(2 * x.tokens * x.inner * E));
  // out_proj: d_inner -> hidden, row parallel, no bias; then the residual add.
  add_linear(k, form, E, x.tokens, x.h, x.inner, 1, x.tokens, x.rows);
  k.push_back(Kernel::memory(3 * local * E));
  return k;
}

double mamba_layer_parameters(const ModelSpec& m, int64_t tp) {
  const Shard whole{.micro_batch = 1, .tp = tp};
  const MambaShape x = shape_of(m, whole);
  const double conv = x.conv_channels();
  const double norm = x.h * (m.norm == Norm::layernorm ? 2 : 1);
  // in_proj and out_proj; the convolution's [conv, 1, 4] weight and its bias; dt_bias, A_log and D
  // (one a head); the gated norm's d_inner weights; the layer's norm.
  return x.projection * x.h + x.inner * x.h + conv * (kConvWidth + 1) + 3 * x.heads + x.inner + norm;
}

double mamba_saved_width(const ModelSpec& m, int64_t tp) {
  const double t = static_cast<double>(tp);
  return mamba_projection_width(m) / t + 2 * static_cast<double>(m.mamba_inner()) / t;
}

} // namespace simgpt
