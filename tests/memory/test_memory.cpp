#include "memory/footprint.hpp"
#include "simgpt/memory/memory.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {
ModelSpec gpt(int64_t hidden, int64_t heads, int64_t seq) { return {24, hidden, heads, seq, 50257, 4 * hidden, Head::lm}; }
} // namespace

TEST_CASE("activation bytes per layer match Korthikanti et al. 2022 in fp16 with dropout") {
  struct Case {
    int64_t s, b, h, a, t;
  };
  for (Case c : {Case{2048, 1, 2048, 16, 1}, Case{1024, 4, 4096, 32, 4}, Case{2048, 2, 12288, 96, 8}, Case{512, 8, 1024, 16, 2}}) {
    const ModelSpec m = gpt(c.h, c.a, c.s);
    const double s = c.s, b = c.b, h = c.h, a = c.a, t = c.t;
    // Table 2: no parallelism s b h (34 + 5 a s / h); tensor parallel s b h (10 + 24/t + 5 a s/(h t));
    // with sequence parallelism s b h / t (34 + 5 a s / h); selective drops 5 a s / h; full keeps 2 s b h.
    CHECK(layer_activation_bytes(m, c.b, c.t, false, Recompute::none, Precision::fp16, true) ==
          Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))));
    CHECK(layer_activation_bytes(m, c.b, c.t, true, Recompute::none, Precision::fp16, true) ==
          Approx(s * b * h / t * (34 + 5 * a * s / h)));
    CHECK(layer_activation_bytes(m, c.b, c.t, false, Recompute::selective, Precision::fp16, true) ==
          Approx(s * b * h * (10 + 24 / t)));
    CHECK(layer_activation_bytes(m, c.b, c.t, true, Recompute::selective, Precision::fp16, true) ==
          Approx(s * b * h * 34 / t));
    CHECK(layer_activation_bytes(m, c.b, c.t, false, Recompute::full, Precision::fp16, true) == Approx(2 * s * b * h));
    CHECK(layer_activation_bytes(m, c.b, c.t, true, Recompute::full, Precision::fp16, true) == Approx(2 * s * b * h / t));
  }
}

TEST_CASE("fp32 doubles the activation tensors but not the one-byte dropout masks") {
  const ModelSpec m = gpt(2048, 16, 2048);
  const double s = 2048, h = 2048, a = 16;
  CHECK(layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::fp32, true) ==
        Approx(s * h * (66 + 9 * a * s / h)));
  // Without dropout neither masks nor dropout outputs are kept.
  CHECK(layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::fp16, false) ==
        Approx(s * h * (32 + 2 * a * s / h)));
}

TEST_CASE("a softmax that falls back to fp32 keeps its fp32 output beside the 16-bit copy") {
  const ModelSpec m = gpt(2048, 16, 2048);
  const double s = 2048, h = 2048, a = 16;
  // With dropout: 4 (fp32 softmax output) + 2 (dropout output) + 1 (mask) bytes per score.
  CHECK(layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::fp16, true, 1, 4, true) ==
        Approx(s * h * (34 + 7 * a * s / h)));
  // Without dropout the product with V keeps the 16-bit copy.
  CHECK(layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::fp16, false, 1, 4, true) ==
        Approx(s * h * (32 + 6 * a * s / h)));
}

TEST_CASE("tensors a framework keeps beyond Megatron's count add whole [s, b, h] copies") {
  const ModelSpec m = gpt(2048, 16, 2048);
  const double s = 2048, h = 2048, b = 2;
  for (int64_t t : {1, 4}) {
    const double megatron = layer_activation_bytes(m, 2, t, false, Recompute::none, Precision::fp16, false);
    CHECK(layer_activation_bytes(m, 2, t, false, Recompute::none, Precision::fp16, false, 1, 4) == Approx(megatron));
    // Unsplit tensors are not divided by the tensor-parallel degree.
    CHECK(layer_activation_bytes(m, 2, t, false, Recompute::none, Precision::fp16, false, 1, 7) ==
          Approx(megatron + 3 * 2 * s * b * h));
  }
  // A checkpointed layer keeps recompute_kept inputs, whatever it keeps when it is not.
  CHECK(layer_activation_bytes(m, 2, 1, false, Recompute::full, Precision::fp16, false, 2.5, 9) ==
        Approx(2.5 * 2 * s * b * h));
}

TEST_CASE("mixed-precision Adam keeps 16 bytes per parameter") {
  TrainingSpec t;
  t.precision = Precision::fp16;
  t.optimizer = Optimizer::adam;
  StateBytes b = state_bytes_per_parameter(t);
  CHECK(b.weights + b.gradients + b.optimizer == 16);
  t.precision = Precision::fp32;
  b = state_bytes_per_parameter(t);
  CHECK(b.weights + b.gradients + b.optimizer == 16);
  t.optimizer = Optimizer::sgd;
  b = state_bytes_per_parameter(t);
  CHECK(b.optimizer == 0);
  t.optimizer = Optimizer::sgd_momentum;
  b = state_bytes_per_parameter(t);
  CHECK(b.weights + b.gradients + b.optimizer == 12);
  t.precision = Precision::fp16;
  b = state_bytes_per_parameter(t);
  CHECK(b.optimizer == 8); // fp32 master weight and momentum
}

TEST_CASE("under bf16, fp32 gradients (Megatron-LM's) take 4 bytes a parameter, under fp16 2") {
  TrainingSpec t;
  t.precision = Precision::bf16;
  t.optimizer = Optimizer::adam;
  CHECK(state_bytes_per_parameter(t, true).gradients == 4);
  CHECK(state_bytes_per_parameter(t, false).gradients == 2);
  CHECK(state_bytes_per_parameter(t, true).weights + state_bytes_per_parameter(t, true).optimizer == 14);
  t.precision = Precision::fp16;
  CHECK(state_bytes_per_parameter(t, true).gradients == 2);
}

TEST_CASE("a master copy with gradients of its own adds 4 bytes a parameter to a 16-bit model, none to fp32") {
  TrainingSpec t;
  t.precision = Precision::bf16;
  t.optimizer = Optimizer::adam;
  const StateBytes own = state_bytes_per_parameter(t, false, true);
  CHECK(own.optimizer == 16); // fp32 weight, its fp32 gradient, two moments
  CHECK(own.gradients == 2);  // the model's bf16 gradients beside them
  CHECK(own.weights + own.gradients + own.optimizer == 20);
  t.precision = Precision::fp32;
  CHECK(state_bytes_per_parameter(t, false, true).optimizer == 8); // no master copy
}

TEST_CASE("FlashAttention keeps the softmax's logsumexp instead of the a s^2 b term") {
  // s = h = 2048, a = 16, b = 1, fp16 with dropout: standard s b h (34 + 5 a s / h) = 4194304 * 114.
  ModelSpec m = gpt(2048, 16, 2048);
  REQUIRE(layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::fp16, true) == 478150656.0);
  m.attention = Attention::flash;
  // 478150656 - 5 a s^2 b (335544320) + 4 b a s (131072) fp32 logsumexp bytes.
  CHECK(layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::fp16, true) == 142737408.0);
  // tp 2: standard 4194304 * (10 + 24/2 + 5 a s / (2 h)) = 260046848; the a s^2 b and logsumexp
  // terms are halved: 260046848 - 167772160 + 65536.
  CHECK(layer_activation_bytes(m, 1, 2, false, Recompute::none, Precision::fp16, true) == 92340224.0);
  // Selective recompute has nothing left to drop; full recompute keeps the layer input as before.
  CHECK(layer_activation_bytes(m, 1, 2, false, Recompute::selective, Precision::fp16, true) == 92340224.0);
  CHECK(layer_activation_bytes(m, 1, 1, false, Recompute::full, Precision::fp16, true) == 2.0 * 2048 * 2048);
}

TEST_CASE("multi-head latent attention keeps its latents and its queries, keys and values at their own widths") {
  // A DeepSeek-V3 layer with its dense MLP: hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank
  // 512, queries and keys of 128 + 64, values of 128; bf16 without dropout.
  ModelSpec m{61, 7168, 128, 4096, 129280, 18432, Head::lm};
  m.mlp = Mlp::swiglu;
  m.latent_attention = true;
  m.q_lora_rank = 1536;
  m.kv_lora_rank = 512;
  m.qk_head_dim = 128;
  m.qk_pos_emb_head_dim = 64;
  m.v_head_dim = 128;
  const double s = 4096, h = 7168, a = 128, t = 8, E = 2;
  // Replicated: the four [s, b, h] inputs of Megatron's count, and each latent twice (the up
  // projection's input and the latent norm's). Split: Q and K (128 x 192), V and the output
  // projection's input (128 x 128), SwiGLU's 3 ffn; the scores' softmax output.
  const double replicated = s * (4 * h + 2 * (1536 + 512)) * E;
  const double split = s * (a * (2 * 192 + 2 * 128) + 3 * 18432) * E / t;
  CHECK(layer_activation_bytes(m, 1, 8, false, Recompute::none, Precision::bf16, false) ==
        Approx(replicated + split + a * s * s * E / t));
  // Sequence parallelism splits the latents with the rest; FlashAttention keeps the logsumexp.
  CHECK(layer_activation_bytes(m, 1, 8, true, Recompute::none, Precision::bf16, false) ==
        Approx(replicated / t + split + a * s * s * E / t));
  m.attention = Attention::flash;
  CHECK(layer_activation_bytes(m, 1, 8, false, Recompute::none, Precision::bf16, false) ==
        Approx(replicated + split + 4 * a * s / t));
  // Without a query latent the query projection reads the layer norm's output, kept already.
  m.q_lora_rank = 0;
  CHECK(layer_activation_bytes(m, 1, 8, false, Recompute::none, Precision::bf16, false) ==
        Approx(replicated - s * 2 * 1536 * E + split + 4 * a * s / t));
}

TEST_CASE("gradients a loop frees every step are made by the backward, while DDP's bucket buffers live through it") {
  Profile profile;
  profile.memory.persistent_gradients = false;
  ExecutionPlan plan;
  plan.dp = 1;
  plan.micro_batches = 1;
  Workload w;
  w.training.precision = Precision::bf16;
  w.training.optimizer = Optimizer::adam;
  StageFootprint f;
  f.params = 100;
  f.layer_params = 90;
  const GpuSpec gpu;
  ResidentState s = resident_state(f, plan, w, profile, gpu);
  CHECK(s.gradients == 200);
  CHECK(s.gradients_at_activation_peak == 20); // the embedding's and head's, made first
  profile.memory.ddp_buckets = true;
  CHECK(resident_state(f, plan, w, profile, gpu).gradients == 200); // no DDP on one GPU
  plan.dp = 2;
  s = resident_state(f, plan, w, profile, gpu);
  CHECK(s.gradients == 400); // the .grad tensors and a bucket copy of each
  CHECK(s.gradients_at_activation_peak == 220);
  // Accumulating micro-batches keeps every gradient from the first backward on.
  plan.micro_batches = 2;
  CHECK(resident_state(f, plan, w, profile, gpu).gradients_at_activation_peak == 400);
}

TEST_CASE("usable memory leaves out the context, NCCL's buffers on each communicator and the headroom") {
  Profile profile;
  profile.memory.context_bytes = 1.0 * (1 << 30);
  profile.memory.nccl_buffers = 0.25 * (1 << 30);
  GpuSpec gpu;
  gpu.memory_bytes = 80.0 * (1 << 30);
  ParallelismSpec p; // one GPU: no communicator
  CHECK(nccl_communicators(p) == 0);
  CHECK(usable_memory(profile, gpu, p) == 80.0 * (1 << 30));
  // Tensor, data (over dp x cp), context and pipeline groups: four communicators.
  p.tp = 8;
  p.dp = 2;
  p.cp = 2;
  p.pp = 4;
  CHECK(nccl_communicators(p) == 4);
  CHECK(usable_memory(profile, gpu, p) == Approx(79.0 * (1 << 30)));
  // Expert parallelism over 2 of 4 replicas: its own group and the expert-data-parallel one.
  p.dp = 4;
  p.ep = 2;
  CHECK(nccl_communicators(p) == 6);
  // A 5% headroom keeps 4 GiB of the 80 free; the pool takes its share of what is left.
  profile.memory.headroom = 0.05;
  CHECK(usable_memory(profile, gpu, p) == Approx((1 + (80 - 1 - 6 * 0.25 - 4)) * (1 << 30)));
  profile.memory.pool_fraction = 0.5;
  CHECK(usable_memory(profile, gpu, p) == Approx((1 + 0.5 * (80 - 1 - 6 * 0.25 - 4)) * (1 << 30)));
}

TEST_CASE("the allocator's cache is reported as reserved but never makes a step run out of memory") {
  MemoryReport m;
  m.usable = 80;
  m.peak = 84; // 4 of them the caching allocator's, which it frees and retries with before it fails
  m.allocator_cache = 4;
  CHECK(m.needed() == 80);
  CHECK_FALSE(m.out_of_memory());
  m.allocator_cache = 3;
  CHECK(m.out_of_memory());
}
