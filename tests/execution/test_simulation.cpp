#include "support/isolate.hpp"
#include "simgpt/memory/memory.hpp"
#include "model/model.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

nlohmann::ordered_json run(const std::string& platform, const Overrides& o) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), o);
    return report_json(simulate(data.find("platforms/" + platform), w, data));
  });
}

// `base` with `key` set to `value` as well.
Overrides with(Overrides base, const std::string& key, const std::string& value) {
  base.emplace_back(key, value);
  return base;
}

// One of the first stage's memory parts (GiB): "weights", "optimizer_state", ...
double first_stage_memory(const nlohmann::ordered_json& r, const char* kind) {
  return r["stages"][0]["memory_gib"][kind].get<double>();
}

double stage_activations(const nlohmann::ordered_json& r, int stage) {
  return r["stages"][static_cast<size_t>(stage)]["memory_gib"]["activations"].get<double>();
}

} // namespace

TEST_CASE("1F1B keeps pp - stage micro-batches in flight at its peak, GPipe all of them") {
  const Overrides base{{"framework", "generic"}, {"training.recompute", "full"}, {"training.global_batch", "32"}};
  Overrides one_f_one_b = base;
  one_f_one_b.emplace_back("parallelism.schedule", "1f1b");
  auto r = run("p3_16xlarge.xml", one_f_one_b);
  for (int s = 0; s < 8; ++s)
    CHECK(r["stages"][static_cast<size_t>(s)]["memory_gib"]["in_flight_micro_batches"].get<int>() == 8 - s);
  Overrides gpipe = base;
  gpipe.emplace_back("parallelism.schedule", "gpipe");
  auto g = run("p3_16xlarge.xml", gpipe);
  for (int s = 0; s < 8; ++s)
    CHECK(g["stages"][static_cast<size_t>(s)]["memory_gib"]["in_flight_micro_batches"].get<int>() == 32);
  CHECK(stage_activations(g, 7) == Approx(32 * stage_activations(r, 7)));
}

TEST_CASE("ZeRO-3 divides weights, gradients and optimizer state by dp, ZeRO-1 only the optimizer state") {
  const Overrides base{{"framework", "generic"}, {"parallelism.pp", "1"}, {"parallelism.dp", "8"}, {"training.optimizer", "adam"},
                       {"parallelism.schedule", "1f1b"}, {"training.global_batch", "8"}};
  auto plain = run("p3_16xlarge.xml", base);
  REQUIRE(plain["stages"][0]["memory_gib"]["optimizer_state"].get<double>() > 1);
  Overrides z1 = base;
  z1.emplace_back("parallelism.zero", "1");
  auto one = run("p3_16xlarge.xml", z1);
  CHECK(first_stage_memory(one, "optimizer_state") == Approx(first_stage_memory(plain, "optimizer_state") / 8));
  CHECK(first_stage_memory(one, "gradients") == Approx(first_stage_memory(plain, "gradients")));
  CHECK(first_stage_memory(one, "weights") == Approx(first_stage_memory(plain, "weights")));
  Overrides z3 = base;
  z3.emplace_back("parallelism.zero", "3");
  auto three = run("p3_16xlarge.xml", z3);
  for (const char* kind : {"weights", "gradients", "optimizer_state"})
    CHECK(first_stage_memory(three, kind) == Approx(first_stage_memory(plain, kind) / 8));
}

TEST_CASE("two pipeline flushes a step pay the pipeline's fill and drain twice and hold half the activations") {
  const Overrides base{{"framework", "generic"}, {"training.recompute", "full"}, {"training.global_batch", "32"},
                       {"parallelism.schedule", "gpipe"}};
  auto once = run("p3_16xlarge.xml", base);
  auto flushed = run("p3_16xlarge.xml", with(base, "parallelism.pipeline_flushes", "2"));
  CHECK(flushed["stages"][0]["memory_gib"]["in_flight_micro_batches"].get<int>() == 16);
  CHECK(stage_activations(flushed, 0) == Approx(stage_activations(once, 0) / 2));
  // A GPipe flush of m micro-batches on 8 stages takes about (m + 7) slots: 2 x 23 against 39.
  const double ratio = flushed["step_time_s"].get<double>() / once["step_time_s"].get<double>();
  CHECK(ratio == Approx(46.0 / 39).epsilon(0.03));
}

TEST_CASE("an offloaded optimizer keeps no state on the GPU and takes the host's time per parameter") {
  // One GPU (dp, tp, pp 1) of GPT-3 XL: its step is the passes and the update.
  const Overrides base{{"framework", "generic"}, {"parallelism.pp", "1"}, {"parallelism.dp", "1"},
                       {"training.optimizer", "adam"}, {"training.global_batch", "1"}, {"placement.gpus", "1"}};
  auto on_gpu = run("p3_16xlarge.xml", base);
  auto on_host = run("p3_16xlarge.xml", with(with(base, "framework_options.optimizer.offload", "true"),
                                              "framework_options.optimizer.offload_time", "10ns"));
  REQUIRE(first_stage_memory(on_gpu, "optimizer_state") > 1);
  CHECK(first_stage_memory(on_host, "optimizer_state") == 0);
  CHECK(first_stage_memory(on_host, "weights") == first_stage_memory(on_gpu, "weights"));
  // The GPU's update (about 20 GB of HBM traffic, some 20 ms) gives way to 10 ns for each of its
  // 1.3 billion parameters: about 13 s more.
  ModelSpec xl{.layers = 24, .hidden = 2048, .heads = 16, .seq_len = 2048, .vocab = 50257, .ffn_hidden = 8192};
  xl.head = Head::classifier;
  const double parameters = total_parameters(xl);
  const double longer = on_host["step_time_s"].get<double>() - on_gpu["step_time_s"].get<double>();
  CHECK(longer == Approx(parameters * 10e-9).epsilon(0.01));
}

TEST_CASE("a balanced partition gives the LM head's stage fewer layers and shortens the step") {
  const Overrides base{{"framework", "generic"}, {"model.head", "lm"}, {"parallelism.pp", "2"},
                       {"parallelism.schedule", "1f1b"}, {"training.global_batch", "16"}, {"placement.gpus", "2"}};
  auto uniform = run("p3_16xlarge.xml", base);
  Overrides b = base;
  b.emplace_back("parallelism.partition", "balanced");
  auto balanced = run("p3_16xlarge.xml", b);
  CHECK(uniform["stages"][1]["layers"].get<int>() == 12);
  CHECK(balanced["stages"][1]["layers"].get<int>() < 12);
  CHECK(balanced["stages"][0]["layers"].get<int>() + balanced["stages"][1]["layers"].get<int>() == 24);
  CHECK(balanced["step_time_s"].get<double>() < uniform["step_time_s"].get<double>());
}

TEST_CASE("a first stage of the embedding alone and a last of the loss alone run and hold no layer") {
  // Megatron-Core's account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split
  // with a layer per stage leave the end stages only the embedding and the output layer.
  const Overrides base{{"framework", "megatron"}, {"model.head", "lm"}, {"model.layers", "4"},
                       {"parallelism.pp", "6"}, {"parallelism.schedule", "1f1b"}, {"training.global_batch", "12"},
                       {"placement.gpus", "6"}, {"parallelism.partition", "0,1,1,1,1,0"}};
  auto r = run("p3_16xlarge.xml", base);
  REQUIRE(r["stages"].size() == 6);
  CHECK(r["stages"][0]["layers"].get<int>() == 0);
  CHECK(r["stages"][5]["layers"].get<int>() == 0);
  CHECK(r["stages"][1]["layers"].get<int>() == 1);
  // The end stages still compute (the embedding, the head and loss) and hold their weights.
  CHECK(r["stages"][0]["compute_s"].get<double>() > 0);
  CHECK(r["stages"][5]["compute_s"].get<double>() > 0);
  CHECK(r["stages"][0]["memory_gib"]["weights"].get<double>() > 0);
  // The embedding's lookup is far shorter than a layer's GEMMs.
  CHECK(r["stages"][0]["compute_s"].get<double>() < r["stages"][1]["compute_s"].get<double>());
}

TEST_CASE("live tensors exclude the framework's context and allocator cache") {
  auto r = run("p3_16xlarge.xml", {{"framework", "megatron"}, {"parallelism.pp", "8"}, {"parallelism.schedule", "1f1b"}});
  const auto& m = r["stages"][static_cast<size_t>(r["peak_memory_stage"].get<int>())]["memory_gib"];
  REQUIRE(m["framework"].get<double>() > 0.9); // megatron: 1 GiB context plus allocator overhead
  CHECK(r["peak_allocated_gib"].get<double>() ==
        Approx(r["peak_memory_gib"].get<double>() - m["framework"].get<double>()).margin(1e-4));
}

TEST_CASE("without a persistent gradient buffer, layer gradients are not yet allocated at the activation peak") {
  const DataPaths data = default_data_paths();
  const Overrides base{{"framework", "alpa"}, {"parallelism.tp", "8"}, {"parallelism.pp", "1"}, {"training.micro_batch", "8"}};
  const auto batch = [&](const char* size) { return with(base, "training.global_batch", size); };
  auto single = run("p3_16xlarge.xml", batch("8"));
  auto accumulated = run("p3_16xlarge.xml", batch("16"));
  // Accumulating micro-batches needs a buffer for all gradients (fp16: as large as the weights).
  CHECK(first_stage_memory(accumulated, "gradients") == Approx(first_stage_memory(accumulated, "weights")));
  // One micro-batch: at the backward's start only the embedding's and head's gradients exist.
  const ModelSpec m = load_workload(data.find("workloads/gpt3xl.yaml"), base).model;
  const double outside_layers = embedding_parameters(m, 8) + head_parameters(m, 8);
  const double all = outside_layers + static_cast<double>(m.layers) * layer_parameters(m, 8);
  CHECK(first_stage_memory(single, "gradients") == Approx(first_stage_memory(single, "weights") * outside_layers / all));
  // A short micro-batch keeps little: the peak moves to the optimizer step, with all gradients and
  // the functional update's new weights (alpa: update_copy 1).
  Overrides short_batch = base;
  short_batch.emplace_back("training.global_batch", "1");
  short_batch.emplace_back("training.micro_batch", "1");
  auto update = run("p3_16xlarge.xml", short_batch);
  CHECK(first_stage_memory(update, "activations") == 0);
  CHECK(first_stage_memory(update, "gradients") == Approx(first_stage_memory(update, "weights")));
  CHECK(first_stage_memory(update, "transient") == Approx(first_stage_memory(update, "weights")));
}

TEST_CASE("a preallocated pool bounds what the framework may fill") {
  // alpa: 0.5 GiB context, then XLA's pool takes 90% of what it and NCCL's buffers on the one
  // communicator of 8 pipeline stages (16 channels of 9.1875 MiB) leave.
  const double nccl = 16 * 9.1875 / 1024;
  auto r = run("p3_16xlarge.xml", {{"framework", "alpa"}, {"parallelism.pp", "8"}});
  const auto& m = r["stages"][0]["memory_gib"];
  CHECK(m["usable"].get<double>() == Approx(0.5 + 0.9 * (m["capacity"].get<double>() - 0.5 - nccl)).margin(1e-4));
  auto g = run("p3_16xlarge.xml", {{"framework", "generic"}, {"parallelism.pp", "8"}});
  CHECK(g["stages"][0]["memory_gib"]["usable"].get<double>() ==
        Approx(g["stages"][0]["memory_gib"]["capacity"].get<double>() - nccl).margin(1e-6));
}

TEST_CASE("checkpointing whole stages keeps one input per micro-batch and recomputes all the stage's layers at once") {
  // torch-pipe: Pipe checkpoints each GPU's partition, fp32, no dropout, one [s, b, h] input kept.
  const DataPaths data = default_data_paths();
  const Overrides o{{"framework", "torch-pipe"}, {"training.recompute", "full"}, {"training.global_batch", "32"},
                    {"parallelism.schedule", "gpipe"}, {"training.precision", "fp32"}, {"training.micro_batch", "1"}};
  auto r = run("p3_16xlarge.xml", o);
  const ModelSpec m = load_workload(data.find("workloads/gpt3xl.yaml"), o).model;
  const auto& stage = r["stages"][1];
  const int layers = stage["layers"].get<int>();
  REQUIRE(layers == 3);
  constexpr double GiB = 1024.0 * 1024 * 1024;
  const double full = layer_activation_bytes(m, 1, 1, false, Recompute::none, Precision::fp32, false);
  const double input = layer_activation_bytes(m, 1, 1, false, Recompute::full, Precision::fp32, false, 1);
  CHECK(stage["memory_gib"]["transient"].get<double>() == Approx((layers * full - input) / GiB).margin(1e-4));
  // 31 checkpointed micro-batches keep one input each; the last keeps all its activations.
  CHECK(stage["memory_gib"]["activations"].get<double>() == Approx((31 * input + layers * full) / GiB).margin(1e-4));
}

TEST_CASE("framework options replace profile entries for one run and are checked like them") {
  const Overrides base{{"framework", "megatron"}, {"parallelism.pp", "1"}, {"parallelism.tp", "8"},
                       {"training.global_batch", "8"}};
  Overrides unfused = base;
  unfused.emplace_back("framework_options.compute.fused_elementwise", "false");
  // Bias, dropout and residual add as three kernels each read and write the activations.
  CHECK(run("p3_16xlarge.xml", unfused)["step_time_s"].get<double>() >
        run("p3_16xlarge.xml", base)["step_time_s"].get<double>());
  Overrides bad = base;
  bad.emplace_back("framework_options.compute.fused", "false");
  CHECK_THROWS_WITH(run("p3_16xlarge.xml", bad),
                    Catch::Contains("framework_options") && Catch::Contains("fused_elementwise"));
}

TEST_CASE("FlashAttention fits a long sequence that standard attention's s x s scores do not") {
  // GPT-3 XL at seq 8192 in fp16 on one p3.16xlarge's 16 GB V100s, pp 8, no recompute: stage 0 of
  // 1F1B keeps 4 micro-batches, whose a s^2 b scores alone are 5.4 GB per layer under standard
  // attention; FlashAttention keeps an fp32 logsumexp instead (Dao et al. 2022, arXiv 2205.14135).
  const Overrides base{{"framework", "megatron"},       {"training.precision", "fp16"},
                       {"training.recompute", "none"},  {"training.optimizer", "adam"},
                       {"model.seq_len", "8192"},       {"training.global_batch", "4"},
                       {"parallelism.schedule", "1f1b"}};
  Overrides flash = base;
  flash.emplace_back("model.attention", "flash");
  auto standard = run("p3_16xlarge.xml", base);
  auto fa = run("p3_16xlarge.xml", flash);
  const double usable = fa["stages"][0]["memory_gib"]["usable"].get<double>();
  CHECK(standard["oom"].get<bool>());
  CHECK(standard["peak_memory_gib"].get<double>() > usable);
  CHECK_FALSE(fa["oom"].get<bool>());
  CHECK(fa["peak_memory_gib"].get<double>() < usable);
  // Weights, gradients and optimizer state do not depend on how attention runs.
  for (const char* kind : {"weights", "gradients", "optimizer_state"})
    CHECK(fa["stages"][0]["memory_gib"][kind].get<double>() == standard["stages"][0]["memory_gib"][kind].get<double>());
  // Without the memory-bound passes over the scores the step is shorter too.
  CHECK(fa["step_time_s"].get<double>() < standard["step_time_s"].get<double>());
}

TEST_CASE("context parallelism splits each sequence's activations and attention over cp ranks") {
  // GPT-3 XL at seq 16384 in bf16 on one p3.16xlarge (8 V100 on NVLink), pp 1, flash attention:
  // dp 8 against dp 2 x cp 4. Each cp rank keeps a quarter of the tokens' activations, runs a
  // quarter of every kernel and exchanges Q, K, V and the output by all-to-all around the core.
  const Overrides base{{"framework", "megatron"},          {"training.precision", "fp16"},
                       {"training.recompute", "none"},     {"model.attention", "flash"},
                       {"model.seq_len", "16384"},         {"parallelism.pp", "1"},
                       {"parallelism.schedule", "1f1b"},   {"placement.gpus", "8"}};
  Overrides dp = base, cp = base;
  dp.insert(dp.end(), {{"parallelism.dp", "8"}, {"training.global_batch", "8"}});
  cp.insert(cp.end(), {{"parallelism.dp", "2"}, {"parallelism.cp", "4"}, {"parallelism.cp_comm_type", "a2a"},
                       {"training.global_batch", "2"}});
  auto whole = run("p3_16xlarge.xml", dp);
  auto split = run("p3_16xlarge.xml", cp);
  // Per layer and micro-batch: two all-to-alls forward, two backward, in each of 2 groups of 4.
  const int layers = whole["stages"][0]["layers"].get<int>();
  CHECK(split["collectives"]["alltoall"]["count"].get<int>() == layers * 4 * 2);
  CHECK_FALSE(whole["collectives"].contains("alltoall"));
  // Each GPU runs a quarter of one sequence's GEMMs and of its attention where a data-parallel
  // rank runs a whole sequence: more than a quarter of the time, with the all-to-alls on top.
  CHECK(split["step_time_s"].get<double>() > whole["step_time_s"].get<double>() / 4);
  CHECK(split["step_time_s"].get<double>() < whole["step_time_s"].get<double>() / 2);
  // Gradients are reduced over dp x cp = 8 ranks and ZeRO shards over them too: same state bytes.
  for (const char* kind : {"weights", "gradients", "optimizer_state"})
    CHECK(split["stages"][0]["memory_gib"][kind].get<double>() == Approx(whole["stages"][0]["memory_gib"][kind].get<double>()));
  // Ring attention (p2p): cp - 1 shifts of a key/value block per core, forward and backward, each
  // overlapped with a step of the core. A block is a quarter of the sequence's K and V (33.5 MB here:
  // 4096 tokens x 16 heads x 256 x 2 B), the backward's twice that with their gradients.
  Overrides ring = cp;
  ring.emplace_back("parallelism.cp_comm_type", "p2p");
  auto p2p = run("p3_16xlarge.xml", ring);
  CHECK(p2p["collectives"]["ringshift"]["count"].get<int>() == layers * 3 * 2 * 2);
  CHECK_FALSE(p2p["collectives"].contains("alltoall"));
  CHECK(stage_activations(p2p, 0) == Approx(stage_activations(whole, 0) / 4).epsilon(0.01));
  // The all-to-all form keeps each layer's attention output twice (TransformerEngine's
  // AttnFuncWithCPAndQKVOA2A saves the core's output before the all-to-all that returns it): a
  // rank's 4096 tokens x 2048 values x 2 B more a layer.
  CHECK(stage_activations(split, 0) - stage_activations(p2p, 0) ==
        Approx(layers * 4096.0 * 2048 * 2 / (1 << 30)).epsilon(1e-6));
  CHECK(p2p["step_time_s"].get<double>() > whole["step_time_s"].get<double>() / 4);
  CHECK(p2p["step_time_s"].get<double>() < whole["step_time_s"].get<double>() / 2);
  const double block = 4096.0 * 16 * 256 * 2;
  CHECK(p2p["collectives"]["ringshift"]["bytes"].get<double>() == Approx(layers * 2 * 3 * 4 * (block + 2 * block)));
}
