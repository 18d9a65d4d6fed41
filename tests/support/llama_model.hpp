// A Llama-3 shape for model tests: grouped-query attention with 8 key-value heads, SwiGLU,
// RMSNorm, rotary positions, no biases, untied embeddings, FlashAttention, 8192 tokens.
#pragma once

#include "simgpt/workload/workload.hpp"

#include <cstdint>

namespace simgpt::testing {

// Llama 3 8B: llama_model(32, 4096, 32, 14336); 70B: llama_model(80, 8192, 64, 28672).
inline ModelSpec llama_model(int64_t layers, int64_t hidden, int64_t heads, int64_t ffn_hidden) {
  ModelSpec m{.layers = layers, .hidden = hidden, .heads = heads, .seq_len = 8192, .vocab = 128256,
              .ffn_hidden = ffn_hidden};
  m.kv_heads = 8;
  m.mlp = Mlp::swiglu;
  m.norm = Norm::rmsnorm;
  m.position = Position::rope;
  m.bias = false;
  m.tie_embeddings = false;
  m.attention = Attention::flash;
  return m;
}

} // namespace simgpt::testing
