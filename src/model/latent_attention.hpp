// Multi-head latent attention (MLA; DeepSeek-V2, arXiv 2405.04434, section 2.1) as Megatron-LM
// runs it: its projections and latent norms, up to the core attention; internal to the model domain.
#pragma once

#include "model/model.hpp"

namespace simgpt {

// The kernels between an MLA block's input norm and its core attention, on one GPU.
Kernels latent_qkv_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);
// Its kernels from the latents' norms on (the up projections, rotation and assembly of Q, K, V).
Kernels latent_up_forward(const ModelSpec& m, const Shard& s, const KernelForm& form);

// The weights of those projections and latent norms on one tensor-parallel rank (the output
// projection and the input norm are the attention block's, counted with it).
double latent_qkv_parameters(const ModelSpec& m, double tp);

// What the up projections gather over tp under sequence parallelism, per token: the query latent
// (or the hidden states without one), the key/value latent and the rotary keys; the duplicated
// down projections ran on the rank's own tokens (megatron/core/transformer/
// multi_latent_attention.py, _qkv_down_projection and its caller).
double latent_gathered_width(const ModelSpec& m);

} // namespace simgpt
