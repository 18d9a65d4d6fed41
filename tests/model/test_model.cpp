#include "cost/compute_cost.hpp"
#include "model/model.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace simgpt;

namespace {
Workload gpt(int64_t layers, int64_t hidden, int64_t heads, int64_t seq, int64_t vocab, int64_t batch) {
  Workload w;
  w.model = {layers, hidden, heads, seq, vocab, 4 * hidden, Head::lm};
  w.training.global_batch = batch;
  return w;
}

GpuSpec test_gpu(Precision p, double peak) {
  GpuSpec gpu;
  gpu.name = "test";
  gpu.peak_flops = {{p, peak}};
  gpu.gemm_efficiency = {{p, 0.8}};
  gpu.memory_bandwidth = 1e12;
  gpu.sms = 80;
  return gpu;
}
} // namespace

TEST_CASE("model FLOPs per step match Narayanan et al. 2021 without recompute, the causal half of attention counted") {
  // 72 B s l h^2 (1 + s/(6h) + V/(12 l h)), whose s/(6h) counts Q K^T and P V whole; Megatron-LM
  // now counts the causal half of them: s/(12h).
  for (auto w : {gpt(24, 2048, 16, 2048, 50257, 64), gpt(32, 4096, 32, 1024, 51200, 1024), gpt(4, 512, 8, 128, 1000, 3)}) {
    const double B = w.training.global_batch, s = w.model.seq_len, l = w.model.layers, h = w.model.hidden,
                 V = w.model.vocab;
    const double formula = 72 * B * s * l * h * h * (1 + s / (12 * h) + V / (12 * l * h));
    CHECK(model_flops_per_step(w) == Approx(formula).epsilon(1e-9));
  }
}

TEST_CASE("hardware FLOPs count what recompute runs again: Narayanan et al. 2021 eq. 3 under full recompute") {
  // Full: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)), the causal half of Q K^T and P V counted
  // (s/(12h)); selective reruns only the attention core, 2 B s^2 h a layer counted causal.
  for (auto w : {gpt(24, 2048, 16, 2048, 50257, 64), gpt(4, 512, 8, 128, 1000, 3)}) {
    const double B = w.training.global_batch, s = w.model.seq_len, l = w.model.layers, h = w.model.hidden,
                 V = w.model.vocab;
    CHECK(hardware_flops_per_step(w) == model_flops_per_step(w));
    w.training.recompute = Recompute::full;
    CHECK(hardware_flops_per_step(w) == Approx(96 * B * s * l * h * h * (1 + s / (12 * h) + V / (16 * l * h))).epsilon(1e-9));
    w.training.recompute = Recompute::selective;
    CHECK(hardware_flops_per_step(w) == Approx(model_flops_per_step(w) + 2 * B * s * s * h * l).epsilon(1e-9));
    CHECK(model_flops_per_step(w) == Approx(72 * B * s * l * h * h * (1 + s / (12 * h) + V / (12 * l * h))).epsilon(1e-9));
  }
}

TEST_CASE("backward GEMMs cost twice the forward FLOPs, tensor parallelism divides them") {
  Workload w = gpt(1, 1024, 16, 512, 1000, 1);
  Kernels f1 = transformer_forward(w.model, {1, 1, Precision::fp16}, {});
  Kernels f4 = transformer_forward(w.model, {1, 4, Precision::fp16}, {});
  CHECK(sum_flops(backward_of(f1)) == Approx(2 * sum_flops(f1)));
  CHECK(sum_flops(f4) == Approx(sum_flops(f1) / 4));
  CHECK(layer_parameters(w.model, 1) == Approx(12 * 1024.0 * 1024 + 13 * 1024));
}

TEST_CASE("GEMM efficiency falls with wave quantisation and short reductions") {
  const GpuSpec gpu = test_gpu(Precision::fp16, 100e12);
  Profile profile;
  ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  const double big = cost.gemm_efficiency(Kernel::gemm(128 * 80, 128 * 8, 8192));
  CHECK(big == Approx(0.8 * 8192 / (8192 + 32)));
  // 81 tiles need two waves on 80 SMs.
  CHECK(cost.gemm_efficiency(Kernel::gemm(128 * 81, 128, 8192)) == Approx(big * 81 / 160));
  CHECK(cost.gemm_efficiency(Kernel::gemm(128 * 80, 128 * 8, 64)) == Approx(0.8 * 64.0 / 96));
  // A memory-bound kernel runs at the stream bandwidth plus the launch gap.
  CHECK(cost.kernel_seconds(Kernel::memory(0.8e9)) == Approx(1e-3 + gpu.kernel_launch_s));
}

TEST_CASE("an untied LM head holds its own vocabulary-parallel projection") {
  Workload w = gpt(24, 1024, 16, 1024, 51200, 8);
  const double tied = head_parameters(w.model, 1);
  CHECK(tied == 2 * 1024); // the final layernorm only
  w.model.tie_embeddings = false;
  CHECK(head_parameters(w.model, 1) == tied + 51200.0 * (1024 + 1));
  CHECK(head_parameters(w.model, 4) == tied + 51200.0 * (1024 + 1) / 4);
}

TEST_CASE("the fused softmax runs only for the shapes and precisions its kernel takes") {
  const GpuSpec gpu = test_gpu(Precision::fp16, 100e12);
  Profile profile;
  profile.softmax_passes = 1;
  profile.fused_softmax = {true, 2048, 4, 3, true};
  ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  const ModelSpec m = gpt(1, 2048, 16, 2048, 1000, 1).model;
  // 16 heads over tp 8: two per GPU, so micro-batch 2 (four attention batches) fuses, 1 and 3 do not.
  CHECK(cost.form(m, {2, 8, Precision::fp16}).softmax_passes == 1);
  const KernelForm fallback = cost.form(m, {1, 8, Precision::fp16});
  CHECK(fallback.softmax_passes == 3);
  CHECK(fallback.softmax_fp32);
  CHECK(cost.form(m, {3, 8, Precision::fp16}).softmax_passes == 3);
  CHECK(cost.form(m, {1, 4, Precision::fp16}).softmax_passes == 1);
  CHECK(cost.form(m, {1, 4, Precision::fp32}).softmax_passes == 3); // fp32 scores: never the kernel
  ModelSpec longer = m;
  longer.seq_len = 4096;
  CHECK(cost.form(longer, {1, 4, Precision::fp16}).softmax_passes == 3);
  // The fallback reads and writes fp32 scores three times, plus the casts up and back.
  const double scores = 2.0 * 2048 * 2048; // micro-batch 1, two heads
  const Shard shard{1, 8, Precision::fp16};
  double fused_bytes = 0, fallback_bytes = 0;
  for (const Kernel& k : attention_core_forward(m, shard, cost.form(m, {2, 8, Precision::fp16})))
    fused_bytes += k.bytes;
  for (const Kernel& k : attention_core_forward(m, shard, fallback))
    fallback_bytes += k.bytes;
  CHECK(fallback_bytes - fused_bytes == Approx(scores * (3 * 8 + 6 + 6 - 4)));
  profile.fused_softmax = {}; // unset: the same kernels whatever the shape
  CHECK(ComputeCostModel(gpu, profile, Precision::fp16, "test").form(m, {1, 8, Precision::fp16}).softmax_passes == 1);
}

TEST_CASE("FlashAttention runs the same matmul FLOPs in one kernel and recomputes Q K^T in its backward") {
  for (auto w : {gpt(24, 2048, 16, 2048, 50257, 64), gpt(4, 512, 8, 8192, 1000, 3)}) {
    Workload flash = w;
    flash.model.attention = Attention::flash;
    // Model FLOPs (no recompute) are the same, whatever runs the attention core.
    CHECK(model_flops_per_step(flash) == model_flops_per_step(w));
    const Shard shard{2, 2, Precision::fp16};
    const Kernels standard_core = attention_core_forward(w.model, shard, {});
    const Kernels flash_core = attention_core_forward(flash.model, shard, {});
    REQUIRE(flash_core.size() == 1);
    CHECK(flash_core[0].kind == Kernel::Kind::attention);
    // Causal: of nb x nb tiles of 128 x 128, the nb (nb + 1) / 2 on and below the diagonal run.
    const double s = static_cast<double>(w.model.seq_len), blocks = std::ceil(s / 128);
    CHECK(sum_flops(flash_core) == Approx(sum_flops(standard_core) * (blocks + 1) / (2 * blocks)));
    Workload bidirectional = flash;
    bidirectional.model.causal = false;
    CHECK(sum_flops(attention_core_forward(bidirectional.model, shard, {})) == Approx(sum_flops(standard_core)));
    // HBM traffic: Q, K, V, O in fp16 and an fp32 logsumexp per query row and head, O(b s h).
    const double b = 2, heads = static_cast<double>(w.model.heads) / 2;
    const double d = static_cast<double>(w.model.hidden / w.model.heads);
    CHECK(flash_core[0].bytes == Approx(4 * b * heads * s * d * 2 + 4 * b * heads * s));
    // Backward: five matmuls for the forward's two.
    CHECK(sum_flops(backward_of(flash_core)) == Approx(2.5 * sum_flops(flash_core)));
    CHECK(sum_flops(backward_of(attention_block_forward(flash.model, shard, {}))) ==
          Approx(sum_flops(backward_of(attention_block_forward(w.model, shard, {}))) - 2 * sum_flops(standard_core) +
                 2.5 * sum_flops(flash_core)));
  }
}

TEST_CASE("a FlashAttention kernel runs at the GEMM efficiency of its query tiles reduced over all keys") {
  const GpuSpec gpu = test_gpu(Precision::fp16, 100e12);
  Profile profile;
  ComputeCostModel cost(gpu, profile, Precision::fp16, "test");
  // 8192 queries in 64 tiles of 128 rows, 10 (micro-batch, head) pairs: 640 blocks, 8 full waves on
  // 80 SMs; the reduction runs over 8192 keys.
  const Kernel k = Kernel::attention(8192, 8192, 128, 10, 2, 1e6);
  CHECK(cost.attention_efficiency(k) == Approx(0.8 * 8192 / (8192 + 32)));
  CHECK(cost.kernel_seconds(k) == Approx(k.flops() / (100e12 * 0.8 * 8192 / (8192 + 32)) + gpu.kernel_launch_s));
  // Long sequences: the fused kernel beats Q K^T, softmax, dropout and P V through HBM.
  ModelSpec m = gpt(1, 2048, 16, 8192, 1000, 1).model;
  const Shard shard{1, 1, Precision::fp16};
  const double standard = cost.seconds(attention_core_forward(m, shard, {}));
  m.attention = Attention::flash;
  CHECK(cost.seconds(attention_core_forward(m, shard, {})) < standard);
}

namespace {

// megatron/training/training.py (NVIDIA/Megatron-LM d98e8a6, 2026-08), num_floating_point_operations
// for a dense GPT without MoE, MTP or linear attention, written out for these arguments:
//   tokens * (3*2*h*ffn*(3 if swiglu else 2)*layers + 3*2*(h*(q + 2 kv) + q*h)*layers + 3*2*h*V)
//   + batch * s^2 * 3*2*q/2*2*layers, with q = kv_channels * heads, kv = kv_channels * groups.
double megatron_flops(double batch, double s, double layers, double h, double heads, double groups, double ffn,
                      double vocab, bool swiglu) {
  const double kv_channels = h / heads, q = kv_channels * heads, kv = kv_channels * groups;
  const double tokens = batch * s;
  const double mlp = 3 * 2 * h * ffn * (swiglu ? 3 : 2) * layers;
  const double attention = 3 * 2 * (h * (q + 2 * kv) + q * h) * layers;
  const double logits = 3 * 2 * h * vocab;
  const double core = 3 * 2 * q / 2 * 2 * layers;
  return tokens * (mlp + attention + logits) + batch * s * s * core;
}

// A Llama-3 of Meta's published shape (Llama 3 Herd of Models, arXiv 2407.21783, Table 3; the
// released config.json files): grouped-query attention with 8 key-value heads, SwiGLU, RMSNorm,
// rotary positions, no linear biases, untied embeddings, vocabulary 128256.
Workload llama3(int64_t layers, int64_t hidden, int64_t heads, int64_t ffn, int64_t seq, int64_t batch) {
  Workload w;
  w.model = {layers, hidden, heads, seq, 128256, ffn, Head::lm};
  w.model.kv_heads = 8;
  w.model.mlp = Mlp::swiglu;
  w.model.norm = Norm::rmsnorm;
  w.model.position = Position::rope;
  w.model.bias = false;
  w.model.tie_embeddings = false;
  w.training.global_batch = batch;
  return w;
}

} // namespace

TEST_CASE("Llama-3 8B, 70B and 405B FLOPs per step equal Megatron-LM's count") {
  for (const Workload& w : {llama3(32, 4096, 32, 14336, 8192, 128), llama3(80, 8192, 64, 28672, 8192, 64),
                            llama3(126, 16384, 128, 53248, 8192, 16)}) {
    const auto& m = w.model;
    const double expected = megatron_flops(static_cast<double>(w.training.global_batch), m.seq_len, m.layers, m.hidden,
                                           m.heads, m.kv_heads, m.ffn_hidden, m.vocab, true);
    CHECK(model_flops_per_step(w) == Approx(expected).epsilon(1e-3));
    // And GPT-3's multi-head GeLU layers by the same count.
  }
  const Workload g = gpt(24, 2048, 16, 2048, 50257, 64);
  CHECK(model_flops_per_step(g) == Approx(megatron_flops(64, 2048, 24, 2048, 16, 16, 8192, 50257, false)).epsilon(1e-3));
}

TEST_CASE("grouped-query attention, SwiGLU, RMSNorm, rotary positions and no biases change the parameter count as Llama's") {
  // Llama-3 8B: 8,030,261,248 parameters (the released checkpoint's count, untied embeddings).
  const Workload w = llama3(32, 4096, 32, 14336, 8192, 1);
  CHECK(total_parameters(w.model) == Approx(8030261248.0).epsilon(1e-9));
  // Tensor parallelism splits every matrix but not the norms.
  const double h = 4096;
  CHECK(layer_parameters(w.model, 8) == Approx((layer_parameters(w.model, 1) - 2 * h) / 8 + 2 * h));
}

namespace {

// Mixtral 8x7B (Jiang et al. 2024, arXiv 2401.04088, Table 1; mistralai/Mixtral-8x7B-v0.1
// config.json): Llama's layer with 8 SwiGLU experts of width 14336 in every layer, 2 per token,
// sequence 4096 and a vocabulary of 32000.
Workload mixtral(int64_t batch) {
  Workload w = llama3(32, 4096, 32, 14336, 4096, batch);
  w.model.vocab = 32000;
  w.model.experts = 8;
  w.model.top_k = 2;
  return w;
}

// megatron/training/training.py (NVIDIA/Megatron-LM d98e8a6), num_floating_point_operations,
// transformer_flops() with MoE, written out: tokens * (3*2*h*(ffn*f*dense + moe_ffn*topk*f*moe +
// shared*f*moe) + 3*2*(h*(q + 2 kv) + q*h)*layers + 3*2*h*V) + batch*s^2 * 3*2*q/2*2*layers,
// f = 3 with SwiGLU.
double megatron_moe_flops(const Workload& w) {
  const auto& m = w.model;
  const double h = m.hidden, kv_channels = h / m.heads, q = kv_channels * m.heads, kv = kv_channels * m.kv_heads;
  const double tokens = w.training.global_batch * static_cast<double>(m.seq_len), f = 3;
  const double moe = m.layers - m.dense_layers, dense = m.dense_layers;
  const double mlp = 3 * 2 * h *
                     (m.ffn_hidden * f * dense + m.expert_ffn() * m.top_k * f * moe + m.shared_expert_ffn_hidden * f * moe);
  const double attention = 3 * 2 * (h * (q + 2 * kv) + q * h) * m.layers;
  const double logits = 3 * 2 * h * m.vocab;
  const double core = 3 * 2 * q / 2 * 2 * m.layers;
  return tokens * (mlp + attention + logits) + w.training.global_batch * static_cast<double>(m.seq_len * m.seq_len) * core;
}

} // namespace

TEST_CASE("Mixtral 8x7B FLOPs per step equal Megatron-LM's count with its MoE terms") {
  Workload w = mixtral(256);
  CHECK(model_flops_per_step(w) == Approx(megatron_moe_flops(w)).epsilon(1e-3));
  // The router (2 h experts per token) is counted, which Megatron's formula leaves out: a little more.
  CHECK(model_flops_per_step(w) > megatron_moe_flops(w));
  // A shared expert and DeepSeek-style first dense layers, by the same count.
  w.model.shared_expert_ffn_hidden = 2048;
  w.model.moe_ffn_hidden = 1408;
  w.model.dense_layers = 3;
  CHECK(model_flops_per_step(w) == Approx(megatron_moe_flops(w)).epsilon(1e-3));
  // A capacity factor changes the work run, not the model FLOPs (Megatron's formula has none).
  Workload capped = w;
  capped.model.capacity_factor = 0.5;
  CHECK(model_flops_per_step(capped) == model_flops_per_step(w));
}

TEST_CASE("Mixtral 8x7B has 46.7B parameters, 12.9B of them active per token") {
  const Workload w = mixtral(1);
  // Mistral AI's published counts (mistral.ai/news/mixtral-of-experts: 46.7B total, 12.9B per token).
  CHECK(total_parameters(w.model) == Approx(46.7e9).epsilon(5e-3));
  CHECK(active_parameters(w.model) == Approx(12.9e9).epsilon(5e-3));
  // Expert parallelism divides the routed experts, tensor parallelism every matrix but the router.
  const double h = 4096, expert = 3 * h * 14336, router = h * 8, norms = 2 * h;
  CHECK(expert_parameters(w.model, 1, 4) == Approx(2 * expert));
  const double attention = h * (h + 2 * 1024) + h * h;
  CHECK(moe_layer_parameters(w.model, 2, 4) == Approx((attention + 2 * expert) / 2 + router + norms));
  // A dense model is unchanged: every token runs every parameter.
  Workload dense = w;
  dense.model.experts = 0;
  CHECK(active_parameters(dense.model) == total_parameters(dense.model));
}

TEST_CASE("a MoE block's experts run top_k copies of the tokens, an even share of them per expert-parallel rank") {
  const Workload w = mixtral(1);
  const Shard one{1, 1, Precision::bf16};
  const double tokens = 4096, h = 4096, f = 14336;
  const MoeBlock b = moe_block_forward(w.model, one, {});
  // Router GEMM, then the experts' FC1 (gate and up) and FC2 over tokens x top_k rows.
  CHECK(sum_flops(b.before_dispatch) == Approx(2 * tokens * 8 * h));
  CHECK(sum_flops(b.experts) == Approx(2 * tokens * 2 * 3 * h * f));
  // With ep 4, each GPU holds 2 experts and gets 1/4 of the group's 4 x tokens x top_k copies: the
  // same rows, in fewer, larger problems.
  const MoeBlock split = moe_block_forward(w.model, {1, 1, Precision::bf16, false, 4}, {});
  CHECK(sum_flops(split.experts) == Approx(sum_flops(b.experts)));
  REQUIRE(split.experts.front().kind == Kernel::Kind::gemm);
  CHECK(split.experts.front().batch == 2);
  CHECK(split.experts.front().m == Approx(tokens * 2 / 2));
  // Tensor parallelism with sequence parallelism: the router sees tokens / tp, the experts ffn / tp.
  const Shard tp2{1, 2, Precision::bf16, true, 4};
  CHECK(sum_flops(moe_block_forward(w.model, tp2, {}).experts) == Approx(sum_flops(b.experts) / 2));
  CHECK(all_to_all_bytes(w.model, tp2) == Approx(tokens / 2 * 2 * h * 2));
  // A capacity factor below 1 drops the routed copies past it.
  Workload capped = w;
  capped.model.capacity_factor = 0.5;
  CHECK(routed_tokens(capped.model, one) == Approx(tokens * 2 * 0.5));
  CHECK(routed_tokens(w.model, one) == Approx(tokens * 2));
}

namespace {
double sum(const std::vector<double>& v) {
  double total = 0;
  for (double x : v)
    total += x;
  return total;
}
} // namespace

TEST_CASE("a layer's parameter tensors, one per module weight and bias, add up to its parameters") {
  // GPT-3 small as DT-FM builds it: q, v, k, out, FC1, FC2 with biases and two LayerNorms: 16
  // tensors (modules/gpt_modules.py, GPTTransformerLayer).
  Workload w = gpt(12, 768, 12, 2048, 28996, 64);
  w.model.head = Head::classifier;
  const std::vector<double> layer = layer_parameter_tensors(w.model, 1);
  CHECK(layer.size() == 16);
  CHECK(layer.front() == 768.0 * 768);   // q's weight
  CHECK(layer[9] == 3072.0);             // FC1's bias
  CHECK(sum(layer) == Approx(layer_parameters(w.model, 1)).epsilon(1e-12));
  CHECK(sum(embedding_parameter_tensors(w.model, 1)) == Approx(embedding_parameters(w.model, 1)).epsilon(1e-12));
  CHECK(sum(head_parameter_tensors(w.model, 1)) == Approx(head_parameters(w.model, 1)).epsilon(1e-12));
  // Llama's layer: no biases, RMSNorm's scale only, grouped K and V, SwiGLU's wide FC1; split over tp.
  const Workload llama = llama3(32, 4096, 32, 14336, 8192, 1);
  for (int64_t tp : {1, 2, 8}) {
    CHECK(layer_parameter_tensors(llama.model, tp).size() == 8);
    CHECK(sum(layer_parameter_tensors(llama.model, tp)) == Approx(layer_parameters(llama.model, tp)).epsilon(1e-12));
    CHECK(sum(head_parameter_tensors(llama.model, tp)) == Approx(head_parameters(llama.model, tp)).epsilon(1e-12));
    CHECK(sum(embedding_parameter_tensors(llama.model, tp)) ==
          Approx(embedding_parameters(llama.model, tp)).epsilon(1e-12));
  }
  // MoE layers are not listed.
  CHECK(layer_parameter_tensors(mixtral(1).model, 1).empty());
}

TEST_CASE("an eager core's head layout copies: queries, keys, values in, the output out, each inverted in the backward") {
  const ModelSpec m = gpt(1, 1024, 16, 1024, 1000, 1).model;
  const Shard shard{4, 1, Precision::fp16};
  KernelForm eager;
  eager.softmax_passes = 3;
  const Kernels plain = attention_core_forward(m, shard, eager);
  KernelForm copying = eager;
  copying.head_copies = 4;
  const Kernels copied = attention_core_forward(m, shard, copying);
  REQUIRE(copied.size() == plain.size() + 4);
  // Three before Q K^T, one after P V, each an activation (4 x 1024 tokens x 1024) read and written.
  const double act_bytes = 2.0 * 4 * 1024 * 1024 * 2;
  for (size_t i : {size_t{0}, size_t{1}, size_t{2}, copied.size() - 1}) {
    CHECK(copied[i].op == Kernel::Op::layout_copy);
    CHECK(copied[i].strided);
    CHECK_FALSE(copied[i].host_call);
    CHECK(copied[i].bytes == Approx(act_bytes));
  }
  CHECK(copied[3].kind == Kernel::Kind::gemm); // Q K^T after the three input copies
  // The backward of a copy is the same copy of the gradient: its bytes, not twice them.
  double copy_backward = 0;
  for (const Kernel& k : backward_of(copied))
    if (k.op == Kernel::Op::layout_copy) {
      copy_backward += k.bytes;
      CHECK_FALSE(k.host_call);
    }
  CHECK(copy_backward == Approx(4 * act_bytes));
  // FlashAttention's core reads the views as they are: no copies.
  ModelSpec flash = m;
  flash.attention = Attention::flash;
  CHECK(attention_core_forward(flash, shard, copying).size() == 1);
}
