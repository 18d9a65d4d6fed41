// check_workload holds a Workload filled in C++ to the rules parse_workload applies to a file.
#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace simgpt;

namespace {

// GPT-3 XL on 8 pipeline stages, as a library user would fill it in.
Workload valid() {
  Workload w;
  w.source = "api";
  w.model = {.layers = 24, .hidden = 2048, .heads = 16, .seq_len = 2048, .vocab = 50257, .ffn_hidden = 8192};
  w.training.global_batch = 64;
  w.parallelism.pp = 8;
  return w;
}

enum class Refusal { none, input, limit };

// What check_workload makes of valid() changed by `edit`, and its message.
std::pair<Refusal, std::string> check(const std::function<void(Workload&)>& edit) {
  Workload w = valid();
  edit(w);
  try {
    check_workload(w);
  } catch (const LimitError& e) {
    return {Refusal::limit, e.what()};
  } catch (const InputError& e) {
    return {Refusal::input, e.what()};
  }
  return {Refusal::none, ""};
}

} // namespace

TEST_CASE("check_workload accepts what parse_workload accepts") {
  CHECK(check([](Workload&) {}).first == Refusal::none);
  const Workload parsed = parse_workload("model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}\n"
                                         "training: {global_batch: 64}\nparallelism: {pp: 8}\n",
                                         "w.yaml");
  CHECK_NOTHROW(check_workload(parsed));
}

TEST_CASE("check_workload refuses out-of-range keys as the file's readers do") {
  using R = Refusal;
  const std::pair<std::function<void(Workload&)>, std::pair<R, const char*>> cases[] = {
      {[](Workload& w) { w.model.layers = 0; }, {R::input, "api: model.layers: is required"}},
      {[](Workload& w) { w.model.ffn_hidden = 0; }, {R::input, "api: model.ffn_hidden: is required"}},
      {[](Workload& w) { w.model.layers = 1025; }, {R::limit, "model.layers: 1025 exceeds simgpt's limit of 1024"}},
      {[](Workload& w) { w.model.hidden = -2048; }, {R::input, "model.hidden: -2048 is out of range"}},
      {[](Workload& w) { w.model.vocab = 4194305; }, {R::limit, "model.vocab"}},
      {[](Workload& w) { w.training.micro_batch = 0; }, {R::input, "training.micro_batch: 0 is out of range"}},
      {[](Workload& w) { w.training.global_batch = -64; }, {R::input, "training.global_batch"}},
      {[](Workload& w) { w.parallelism.dp = -1; }, {R::input, "parallelism.dp: -1 is out of range"}},
      {[](Workload& w) { w.parallelism.tp = 131073; }, {R::limit, "parallelism.tp"}},
      {[](Workload& w) { w.parallelism.zero = 4; }, {R::input, "parallelism.zero"}},
      {[](Workload& w) { w.parallelism.chunks = 0; }, {R::input, "parallelism.chunks"}},
      {[](Workload& w) { w.parallelism.schedule = static_cast<Schedule>(7); },
       {R::input, "parallelism.schedule: 7 is not one of the key's values"}},
      {[](Workload& w) { w.training.precision = static_cast<Precision>(-1); }, {R::input, "training.precision"}},
      {[](Workload& w) {
         w.parallelism.partition = Partition::listed;
         w.parallelism.stage_layers = {25, 0, 0, 0, 0, 0, 0, -1};
       },
       {R::input, "parallelism.partition: stage 1 holds 0 layers: only the first stage"}},
      {[](Workload& w) { w.placement.gpus = 0; }, {R::input, "placement.gpus"}},
      {[](Workload& w) { w.network.delay_s = -0.01; }, {R::input, "network.delay"}},
      {[](Workload& w) { w.network.delay_s = std::nan(""); }, {R::input, "network.delay"}},
      {[](Workload& w) { w.network.delay_s = 3601; }, {R::input, "network.delay: 3601 s is too large"}},
      {[](Workload& w) { w.network.bandwidth_Bps = 0; }, {R::input, "network.bandwidth"}},
      {[](Workload& w) { w.network.bandwidth_Bps = std::numeric_limits<double>::infinity(); },
       {R::input, "network.bandwidth"}},
      {[](Workload& w) { w.framework.clear(); }, {R::input, "api: framework: expected a profile name"}},
      {[](Workload& w) {
         for (int i = 0; i < 1001; ++i)
           w.framework_options["compute.k" + std::to_string(i)] = "1";
       },
       {R::limit, "framework_options: 1001 options exceed the limit of 1000"}},
  };
  for (const auto& [edit, expected] : cases) {
    const auto [refusal, message] = check(edit);
    INFO(message);
    CHECK(refusal == expected.first);
    CHECK_THAT(message, Catch::Contains(expected.second));
  }
}

TEST_CASE("check_workload checks the plan's products and consistency") {
  CHECK_THAT(check([](Workload& w) { w.parallelism.dp = w.parallelism.tp = w.parallelism.pp = 65536; }).second,
             Catch::Contains("dp*tp*pp"));
  CHECK(check([](Workload& w) { w.parallelism.dp = w.parallelism.tp = w.parallelism.pp = 65536; }).first ==
        Refusal::limit);
  CHECK_THAT(check([](Workload& w) {
               w.training.micro_batch = std::numeric_limits<int64_t>::max() / 2;
               w.parallelism.dp = 4;
               w.parallelism.pp = 2;
             }).second,
             Catch::Contains("training.micro_batch") && Catch::Contains("64 bits"));
  CHECK_THAT(check([](Workload& w) { w.parallelism.tp = 3; }).second, Catch::Contains("does not divide heads"));
  CHECK_THAT(check([](Workload& w) { w.training.global_batch = 63, w.training.micro_batch = 2; }).second,
             Catch::Contains("not divisible"));
  CHECK_THAT(check([](Workload& w) {
               w.parallelism.partition = Partition::listed;
               w.parallelism.stage_layers = {3, 3, 3};
             }).second,
             Catch::Contains("lists 3 stages but the plan has 8"));
  CHECK_THAT(check([](Workload& w) { w.parallelism.pipeline_flushes = 3; }).second,
             Catch::Contains("parallelism.pipeline_flushes: 3 flushes do not divide the step's 64 micro-batches"));
  CHECK(check([](Workload& w) { w.parallelism.pipeline_flushes = 4; }).first == Refusal::none);
  // A central parameter server hands every replica the whole sum: nothing to shard.
  CHECK_THAT(check([](Workload& w) {
               w.parallelism.dp = 4;
               w.parallelism.zero = 1;
               w.parallelism.dp_algorithm = DpAlgorithm::central_ps;
             }).second,
             Catch::Contains("parallelism.zero: ZeRO 1 with central_ps"));
}

TEST_CASE("a workload without a source is named 'workload' in messages") {
  Workload w = valid();
  w.source.clear();
  w.model.layers = 2000;
  CHECK_THROWS_WITH(check_workload(w), Catch::StartsWith("workload: model.layers"));
}

TEST_CASE("parse_workload refuses YAML text past 256 KiB before parsing it") {
  const std::string big = "model: [" + std::string(300 << 10, '1') + "]\n";
  CHECK_THROWS_AS(parse_workload(big, "big.yaml"), LimitError);
  CHECK_THROWS_WITH(parse_workload(big, "big.yaml"), Catch::Contains("at most 256 KiB"));
}

TEST_CASE("parse_workload refuses more than 1000 framework_options as it reads them") {
  std::string text = "model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}\n"
                     "training: {global_batch: 64}\nframework_options:\n";
  for (int i = 0; i < 1001; ++i)
    text += "  compute.k" + std::to_string(i) + ": 1\n";
  CHECK_THROWS_AS(parse_workload(text, "w.yaml"), LimitError);
  CHECK_THROWS_WITH(parse_workload(text, "w.yaml"), Catch::Contains("w.yaml: framework_options: 1001 options"));
}

TEST_CASE("mixture-of-experts keys and expert parallelism are refused where Megatron-LM refuses them") {
  const auto moe = [](Workload& w) {
    w.model.experts = 8;
    w.parallelism.pp = 1;
    w.parallelism.dp = 8;
  };
  CHECK(check(moe).first == Refusal::none);
  CHECK(check([&](Workload& w) { moe(w); w.parallelism.ep = 8; }).first == Refusal::none);
  const std::pair<std::function<void(Workload&)>, std::string> refused[] = {
      {[](Workload& w) { w.parallelism.ep = 2; }, "parallelism.ep: expert parallelism needs a mixture-of-experts"},
      {[](Workload& w) { w.model.dense_layers = 1; }, "model.dense_layers: applies to a mixture-of-experts model only"},
      {[](Workload& w) { w.model.capacity_factor = 1.0; }, "model.capacity_factor: applies to a mixture-of-experts"},
      {[](Workload& w) { w.model.top_k = 2; w.model.top_k_given = true; },
       "model.top_k: applies to a mixture-of-experts model only"},
      {[&](Workload& w) { moe(w); w.parallelism.ep = 3; }, "parallelism.ep: ep 3 does not divide the 8 experts"},
      {[&](Workload& w) { moe(w); w.model.experts = 16; w.parallelism.dp = 4; w.parallelism.tp = 2;
                          w.parallelism.sequence_parallel = true; w.parallelism.ep = 8; },
       "parallelism.ep: ep 8 does not divide dp 4"},
      {[&](Workload& w) { moe(w); w.parallelism.dp = 4; w.parallelism.tp = 2; },
       "parallelism.sequence_parallel: a mixture-of-experts model with tp > 1 needs sequence_parallel"},
      {[&](Workload& w) { moe(w); w.model.top_k = 9; }, "model.top_k: routes each token to 9 experts but the model has 8"},
      {[&](Workload& w) { moe(w); w.model.dense_layers = 24; }, "model.dense_layers: 24 dense layers leave none"},
      {[&](Workload& w) { moe(w); w.model.capacity_factor = -1.0; }, "model.capacity_factor: -1 is not valid"},
      {[&](Workload& w) { moe(w); w.parallelism.dp = 4; w.parallelism.tp = 2; w.parallelism.sequence_parallel = true;
                          w.model.moe_ffn_hidden = 1001; }, "tp 2 does not divide the experts' ffn width 1001"},
      {[&](Workload& w) { moe(w); w.parallelism.ep = 2; w.parallelism.dp_algorithm = DpAlgorithm::parameter_server; },
       "parallelism.dp_algorithm: parameter_server with ep 2"},
      {[&](Workload& w) { moe(w); w.parallelism.ep = 2; w.parallelism.dp_algorithm = DpAlgorithm::central_ps; },
       "parallelism.dp_algorithm: central_ps with ep 2"},
  };
  for (const auto& [edit, expected] : refused) {
    const auto [refusal, message] = check(edit);
    CHECK(refusal == Refusal::input);
    CHECK_THAT(message, Catch::Contains(expected));
  }
}

TEST_CASE("context parallelism is refused where Megatron-LM refuses it or simgpt does not simulate it") {
  const auto cp = [](Workload& w) {
    w.model.attention = Attention::flash;
    w.training.precision = Precision::bf16;
    w.parallelism.pp = 1;
    w.parallelism.cp = 4;
    w.parallelism.cp_comm_type = CpCommType::a2a;
  };
  CHECK(check(cp).first == Refusal::none);
  // The ring form passes whole key/value blocks: no head count to divide.
  CHECK(check([&](Workload& w) { cp(w); w.parallelism.cp_comm_type = CpCommType::p2p; w.model.kv_heads = 2; }).first ==
        Refusal::none);
  const std::pair<std::function<void(Workload&)>, std::string> refused[] = {
      {[&](Workload& w) { cp(w); w.model.attention = Attention::standard; }, "model.attention: cp 4 needs attention: flash"},
      {[&](Workload& w) { cp(w); w.model.seq_len = 1028; }, "model.seq_len: seq_len 1028 is not divisible by 2 * cp = 8"},
      {[&](Workload& w) { cp(w); w.parallelism.cp_comm_type = CpCommType::allgather; },
       "parallelism.cp_comm_type: allgather: only p2p (ring attention) and a2a"},
      {[&](Workload& w) { cp(w); w.model.kv_heads = 2; }, "parallelism.cp: tp * cp = 4 must divide"},
  };
  for (const auto& [edit, expected] : refused) {
    const auto [refusal, message] = check(edit);
    CHECK(refusal == Refusal::input);
    CHECK_THAT(message, Catch::Contains(expected));
  }
}

TEST_CASE("multi-head latent attention's keys are refused without it, inconsistent, or missing") {
  const auto mla = [](Workload& w) {
    w.model.latent_attention = true;
    w.model.q_lora_rank = 1536;
    w.model.kv_lora_rank = 512;
    w.model.qk_head_dim = 128;
    w.model.qk_pos_emb_head_dim = 64;
    w.model.v_head_dim = 128;
  };
  CHECK(check(mla).first == Refusal::none);
  CHECK(check([&](Workload& w) { mla(w); w.model.q_lora_rank = 0; }).first == Refusal::none);
  CHECK(check([&](Workload& w) { mla(w); w.model.kv_heads = w.model.heads; }).first == Refusal::none);
  const std::pair<std::function<void(Workload&)>, std::string> refused[] = {
      {[](Workload& w) { w.model.kv_lora_rank = 512; },
       "api: model.kv_lora_rank: applies to multi-head latent attention only (set model.latent_attention: true)"},
      {[](Workload& w) { w.model.q_lora_rank = 1536; }, "api: model.q_lora_rank: applies to multi-head latent"},
      {[&](Workload& w) { mla(w); w.model.kv_heads = 8; }, "api: model.kv_heads: does not apply to multi-head latent"},
      {[&](Workload& w) { mla(w); w.model.qk_pos_emb_head_dim = 63; },
       "api: model.qk_pos_emb_head_dim: 63 is odd (rotary embeddings turn pairs of dimensions"},
      {[&](Workload& w) { mla(w); w.model.v_head_dim = 0; },
       "api: model.v_head_dim: is required with model.latent_attention"},
      {[&](Workload& w) { mla(w); w.model.kv_lora_rank = -1; }, "api: model.kv_lora_rank: -1 is out of range"},
      {[&](Workload& w) { mla(w); w.parallelism.tp = 32; w.parallelism.pp = 1; },
       "api: parallelism.tp: tp 32 does not divide heads 16"},
  };
  for (const auto& [edit, expected] : refused) {
    const auto [refusal, message] = check(edit);
    CHECK(refusal == Refusal::input);
    CHECK_THAT(message, Catch::Contains(expected));
  }
  CHECK(check([&](Workload& w) { mla(w); w.model.qk_head_dim = 131073; }).first == Refusal::limit);
}

TEST_CASE("an fp8 recipe without fp8 training is refused, fp8 under ZeRO-3 left to the framework") {
  CHECK_THAT(check([](Workload& w) { w.training.fp8_recipe = Fp8Recipe::tensorwise; }).second,
             Catch::Contains("api: training.fp8_recipe: applies only with fp8 training"));
  CHECK(check([](Workload& w) { w.training.fp8 = Fp8Format::hybrid; }).first == Refusal::none);
  const auto zero3 = check([](Workload& w) {
    w.training.fp8 = Fp8Format::hybrid;
    w.parallelism.pp = 1;
    w.parallelism.dp = 8;
    w.parallelism.zero = 3;
  });
  CHECK(zero3.first == Refusal::none);
}
