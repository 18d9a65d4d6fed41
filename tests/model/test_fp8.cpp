// fp8 training's kernels as TransformerEngine runs them (model/fp8.cpp): the linear layers' GEMMs
// in fp8 after a cast of their input, the rest of the layer as before, and the weights TE keeps
// fp8 copies of.
#include "model/fp8.hpp"
#include "model/model.hpp"
#include "support/llama_model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace simgpt;

namespace {

// Llama-3 70B's layer: grouped-query attention, SwiGLU, RMSNorm, no biases.
ModelSpec llama70b() { return simgpt::testing::llama_model(80, 8192, 64, 28672); }

KernelForm fp8_form(bool transpose = true, bool current_scaling = false) {
  KernelForm form;
  form.fp8 = true;
  form.fp8_transpose = transpose;
  form.fp8_current_scaling = current_scaling;
  return form;
}

long count(const Kernels& ks, Kernel::Kind kind, bool fp8 = false) {
  return std::count_if(ks.begin(), ks.end(), [&](const Kernel& k) { return k.kind == kind && k.fp8 == fp8; });
}

} // namespace

TEST_CASE("under fp8 a layer's four linear GEMMs run in fp8, each after the cast of its input") {
  const ModelSpec m = llama70b();
  const Shard shard{.micro_batch = 1, .tp = 8, .precision = Precision::bf16, .sequence_parallel = true};
  const Kernels plain = transformer_forward(m, shard, {});
  const Kernels fp8 = transformer_forward(m, shard, fp8_form());
  // QKV, the output projection, FC1 (gate and up) and FC2; the attention core stays FlashAttention's.
  CHECK(count(plain, Kernel::Kind::gemm) == 4);
  CHECK(count(fp8, Kernel::Kind::gemm, true) == 4);
  CHECK(count(fp8, Kernel::Kind::gemm, false) == 0);
  CHECK(count(fp8, Kernel::Kind::attention) == 1);
  CHECK(count(fp8, Kernel::Kind::quantize) == 4);
  CHECK(sum_flops(fp8) == sum_flops(plain));
  // Each cast comes right before its GEMM and reads the input in bf16, writing its fp8 data and
  // transpose. Under sequence parallelism QKV's and FC1's inputs are cast before their all-gather
  // (1/tp of the tokens), the projection's and FC2's whole; their output gradients the other way.
  const double tokens = 8192, h = 8192, tp = 8;
  std::vector<std::pair<Kernel, Kernel>> pairs;
  for (size_t i = 1; i < fp8.size(); ++i)
    if (fp8[i].kind == Kernel::Kind::gemm) {
      REQUIRE(fp8[i - 1].kind == Kernel::Kind::quantize);
      pairs.emplace_back(fp8[i - 1], fp8[i]);
    }
  REQUIRE(pairs.size() == 4);
  const auto& [qkv_cast, qkv] = pairs[0];
  CHECK(qkv_cast.bytes == Approx(tokens / tp * h * (2 + 2)));
  CHECK(qkv.grad_cast.elements == Approx(tokens * (h + 2 * 1024) / tp));
  const auto& [proj_cast, proj] = pairs[1];
  CHECK(proj_cast.bytes == Approx(tokens * h / tp * (2 + 2)));
  CHECK(proj.grad_cast.elements == Approx(tokens / tp * h));
  CHECK(pairs[2].second.grad_cast.elements == Approx(tokens * 2 * 28672 / tp));
  CHECK(pairs[3].first.bytes == Approx(tokens * 28672 / tp * (2 + 2)));
}

TEST_CASE("the embedding, the LM head and a MoE layer's router stay in the model's precision, its experts run in fp8") {
  ModelSpec m = llama70b();
  const Shard shard{.micro_batch = 1, .tp = 1, .precision = Precision::bf16};
  // The head is Megatron's ColumnParallelLinear, not a TransformerEngine module.
  for (const Kernel& k : head_forward(m, shard))
    CHECK_FALSE(k.fp8);
  for (const Kernel& k : embedding_forward(m, shard))
    CHECK(k.kind == Kernel::Kind::memory);
  m.experts = 8;
  m.shared_expert_ffn_hidden = 4096;
  const MoeBlock moe = moe_block_forward(m, shard, fp8_form());
  CHECK(count(moe.before_dispatch, Kernel::Kind::gemm, false) == 1); // the router
  CHECK(count(moe.before_dispatch, Kernel::Kind::gemm, true) == 0);
  CHECK(count(moe.experts, Kernel::Kind::gemm, true) == 2); // grouped FC1 and FC2
  CHECK(count(moe.after_combine, Kernel::Kind::gemm, true) == 2); // the shared expert
}

TEST_CASE("an fp8 GEMM's backward casts its output gradient and runs both GEMMs in fp8, and a cast has no backward") {
  Kernels forward;
  add_linear(forward, fp8_form(), 2, 4096, 1024, 2048, 1, 4096, 512);
  REQUIRE(forward.size() == 2);
  const Kernels backward = backward_of(forward);
  REQUIRE(backward.size() == 3);
  CHECK(backward[0].kind == Kernel::Kind::quantize);
  CHECK(backward[0].bytes == Approx(512.0 * 1024 * (2 + 2)));
  CHECK((backward[1].fp8 && backward[2].fp8));
  CHECK(sum_flops(backward) == Approx(2 * sum_flops(forward)));
  // Without fp8, the same GEMM and no cast.
  Kernels plain;
  add_linear(plain, {}, 2, 4096, 1024, 2048, 1, 4096, 512);
  REQUIRE(plain.size() == 1);
  CHECK_FALSE(plain[0].fp8);
  CHECK(backward_of(plain).size() == 2);
}

TEST_CASE("a cast writes the transpose only where fp8 GEMMs are TN only, and current scaling adds an amax pass") {
  const Kernels delayed = fp8_cast_kernels({1000, 2, true, false});
  REQUIRE(delayed.size() == 1);
  CHECK(delayed[0].bytes == 1000 * (2 + 1 + 1));
  CHECK(fp8_cast_kernels({1000, 2, false, false})[0].bytes == 1000 * (2 + 1));
  const Kernels current = fp8_cast_kernels({1000, 2, true, true});
  REQUIRE(current.size() == 3); // amax, scale, cast
  CHECK(current[0].bytes == 1000 * 2);
  CHECK(current[1].bytes == 0);
  CHECK(current[2].bytes == delayed[0].bytes);
}

TEST_CASE("TransformerEngine keeps fp8 copies of the linear layers' weights, not of norms, biases or the router") {
  ModelSpec m = llama70b();
  // A Llama layer's parameters are its four linear weights and two RMSNorm scales.
  for (int64_t tp : {1, 8})
    CHECK(layer_fp8_weight_elements(m, tp, 1, 0) ==
          Approx(layer_parameters(m, tp) - 2 * static_cast<double>(m.hidden)));
  m.bias = true;
  m.norm = Norm::layernorm;
  CHECK(layer_fp8_weight_elements(m, 1, 1, 0) < layer_parameters(m, 1) - 4 * static_cast<double>(m.hidden));
  // A MoE layer: its experts' weights (experts / ep of them) and its attention's, not the router's.
  m = llama70b();
  m.experts = 8;
  m.moe_ffn_hidden = 14336;
  const double router = 8.0 * 8192;
  CHECK(layer_fp8_weight_elements(m, 2, 4, 0) ==
        Approx(moe_layer_parameters(m, 2, 4) - router - 2 * static_cast<double>(m.hidden)));
}

TEST_CASE("an mxfp8 cast writes both copies with a scale byte per 32 values, and no amax pass") {
  const Kernels mx = fp8_cast_kernels({.elements = 3200, .source_bytes = 2, .transpose = true,
                                       .current_scaling = false, .block = 32});
  REQUIRE(mx.size() == 1);
  CHECK(mx[0].bytes == Approx(3200 * (2 + 2) + 2 * 100));
}
