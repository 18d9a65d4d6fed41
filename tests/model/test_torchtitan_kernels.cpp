// torchtitan's layer as its model writes it (model/model.cpp): eager fp32 chains for RMSNorm and
// the rotary embedding, repeat_kv's copy, the op policy's rerun matmuls and what it keeps, and
// torchao's per-use fp8 casts.
#include "model/fp8.hpp"
#include "model/model.hpp"
#include "simgpt/memory/memory.hpp"
#include "support/llama_model.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

// Llama 3.1 8B's layer (torchtitan's llama3_configs "8B").
ModelSpec llama8b() { return simgpt::testing::llama_model(32, 4096, 32, 14336); }

double bytes(const Kernels& ks) {
  double b = 0;
  for (const Kernel& k : ks)
    b += k.kind == Kernel::Kind::memory ? k.bytes : 0;
  return b;
}

double gemm_flops(const Kernels& ks) {
  double f = 0;
  for (const Kernel& k : ks)
    f += k.kind == Kernel::Kind::gemm ? k.flops() : 0;
  return f;
}

const Shard kShard{.micro_batch = 2, .tp = 1, .precision = Precision::bf16};

} // namespace

TEST_CASE("eager fp32 chains cost more kernels and bytes than the fused forms, the GEMMs unchanged") {
  const ModelSpec m = llama8b();
  KernelForm fused, eager;
  eager.eager_chains = true;
  const Kernels f = transformer_forward(m, kShard, fused), e = transformer_forward(m, kShard, eager);
  CHECK(e.size() > f.size() + 10); // two norms of 8 kernels, the rotary embedding's 3, SwiGLU's 2
  CHECK(bytes(e) > 2 * bytes(f) - bytes(f)); // more bytes
  CHECK(gemm_flops(e) == Approx(gemm_flops(f)));
  // An RMSNorm over n bf16 values: 2 + 4 cast up, 8 pow, 4 mean, 8 product, 4 + 2 cast down, 4 weight.
  const double n = 2.0 * 8192 * 4096;
  KernelForm repeat;
  repeat.repeat_kv = true;
  const double repeated = bytes(transformer_forward(m, kShard, repeat)) - bytes(f);
  // Keys and values, each read at 1024 and written at 4096 wide.
  CHECK(repeated == Approx(2 * 2.0 * 8192 * (1024 + 4096) * 2));
  CHECK(n > 0);
}

TEST_CASE("the op policy reruns wk, wo and w3 and every elementwise kernel, never the attention kernel") {
  const ModelSpec m = llama8b();
  const KernelForm form;
  const Kernels attention = attention_block_forward(m, kShard, form), mlp = mlp_block_forward(m, kShard, form);
  const Kernels rerun = every_second_matmul_rerun(m, attention, mlp);
  for (const Kernel& k : rerun)
    CHECK(k.kind != Kernel::Kind::attention);
  const double t = 2.0 * 8192, h = 4096, kv = 1024, f = 14336;
  CHECK(gemm_flops(rerun) == Approx(2 * t * (h * kv + h * h + h * f)));
  CHECK(bytes(rerun) == Approx(bytes(attention) + bytes(mlp)));
}

TEST_CASE("the op policy keeps less than no recompute and more than full recompute") {
  const ModelSpec m = llama8b();
  const double op = every_second_matmul_kept_bytes(m, 2, 1, false, Precision::bf16);
  const auto kept = [&](Recompute r) {
    return layer_activation_bytes(m, 2, 1, false, r, Precision::bf16, false, 1, 4, false, false, false);
  };
  CHECK(op < kept(Recompute::none));
  CHECK(op > kept(Recompute::full));
  // The block's input, wq, wv, w1, w2 and the attention output in bf16, and the fp32 logsumexp.
  const double t = 2.0 * 8192;
  CHECK(op == Approx(t * 2 * (4096 + 4096 + 1024 + 14336 + 4096 + 4096) + 4.0 * 2 * 32 * 8192));
}

TEST_CASE("torchao's casts: the weight before each forward GEMM, weight and input again in the backward") {
  const ModelSpec m = llama8b();
  KernelForm te, torchao;
  te.fp8 = torchao.fp8 = true;
  te.fp8_current_scaling = torchao.fp8_current_scaling = true;
  torchao.fp8_recast_per_use = true;
  const auto quantized = [](const Kernels& ks) {
    double b = 0;
    for (const Kernel& k : ks)
      b += k.kind == Kernel::Kind::quantize ? k.bytes : 0;
    return b;
  };
  const Kernels a = transformer_forward(m, kShard, te), b = transformer_forward(m, kShard, torchao);
  CHECK(quantized(b) > quantized(a));
  CHECK(quantized(backward_of(b)) > quantized(backward_of(a)));
}

TEST_CASE("Megatron-core's recompute modules free what their modules keep") {
  const ModelSpec m = llama8b();
  const auto freed = [&](unsigned modules) {
    return recompute_modules_freed_bytes(m, 2, 1, false, Precision::bf16, false, false, modules);
  };
  const double sb = 2.0 * 8192;
  // FlashAttention's core: its fp32 logsumexp only (the output stays, the projection's input).
  CHECK(freed(static_cast<unsigned>(RecomputeModule::core_attn)) == Approx(4.0 * 2 * 32 * 8192));
  // SwiGLU's gate-and-up output (2 ffn) and its activation (ffn), in bf16.
  CHECK(freed(static_cast<unsigned>(RecomputeModule::mlp)) == Approx(sb * 3 * 14336 * 2));
  CHECK(freed(static_cast<unsigned>(RecomputeModule::layernorm)) == Approx(sb * 2 * 4096 * 2));
  // moe_act frees nothing of a dense layer.
  CHECK(freed(static_cast<unsigned>(RecomputeModule::moe_act)) == 0);
}
