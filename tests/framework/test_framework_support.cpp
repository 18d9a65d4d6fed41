// What a framework runs: its profile's `supports` section, the reasons a plan outside it is
// refused, and simulate() refusing such a plan before SimGrid starts.
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/framework/framework_support.hpp"
#include "simgpt/framework/profile.hpp"
#include "support/scratch_file.hpp"
#include "support/two_node_platform.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace simgpt;

namespace {

// A profile directory holding one profile, `p`, whose file is `text`.
std::string profile_dir(const std::string& text) {
  const std::string dir = simgpt::testing::scratch_path("profiles", "");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/p.yaml") << text;
  return dir;
}

ParallelismSpec plan(int64_t tp, int64_t pp, Schedule schedule, int64_t zero) {
  ParallelismSpec p;
  p.dp = 2;
  p.tp = tp;
  p.pp = pp;
  p.schedule = schedule;
  p.zero = zero;
  return p;
}

} // namespace

TEST_CASE("a framework's support names the key it cannot run and what it runs instead") {
  FrameworkSupport s;
  s.tensor_parallel = false;
  s.sequence_parallel = false;
  s.schedules = {Schedule::one_f_one_b};
  s.zero = {0, 1, 2, 3};
  s.zero_with_pipeline = {0, 1};

  CHECK_FALSE(unsupported_by(s, "f", plan(1, 4, Schedule::one_f_one_b, 1)));
  CHECK_FALSE(unsupported_by(s, "f", plan(1, 1, Schedule::gpipe, 3))); // no pipeline: any schedule, any stage
  const auto tp = unsupported_by(s, "f", plan(2, 1, Schedule::one_f_one_b, 0));
  REQUIRE(tp);
  CHECK(tp->key == "parallelism.tp");
  const auto schedule = unsupported_by(s, "f", plan(1, 2, Schedule::gpipe, 0));
  REQUIRE(schedule);
  CHECK(schedule->key == "parallelism.schedule");
  CHECK(schedule->why == "the f profile has no gpipe schedule (it runs 1f1b)");
  const auto zero = unsupported_by(s, "f", plan(1, 2, Schedule::one_f_one_b, 3));
  REQUIRE(zero);
  CHECK(zero->key == "parallelism.zero");
  CHECK(zero->why == "the f profile has no ZeRO stage 3 with pipeline parallelism (it runs 0, 1)");
  ParallelismSpec sp = plan(1, 1, Schedule::one_f_one_b, 0);
  sp.sequence_parallel = true;
  CHECK(unsupported_by(s, "f", sp)->key == "parallelism.sequence_parallel");
  s.pipeline = false;
  CHECK(unsupported_by(s, "f", plan(1, 2, Schedule::one_f_one_b, 0))->key == "parallelism.pp");
  // ZeRO-3 with experts, as DeepSpeed's profile refuses it.
  s.zero_with_experts = {0, 1, 2};
  ParallelismSpec experts = plan(1, 1, Schedule::one_f_one_b, 3);
  experts.ep = 2;
  const auto stage3 = unsupported_by(s, "f", experts);
  REQUIRE(stage3);
  CHECK(stage3->why == "the f profile has no ZeRO stage 3 with expert parallelism (it runs 0, 1, 2)");
  experts.zero = 2;
  CHECK_FALSE(unsupported_by(s, "f", experts));
}

TEST_CASE("a profile's supports section is read and checked") {
  const Profile all = load_profile({profile_dir("description: x\n")}, "p", "test");
  CHECK(all.supports.tensor_parallel);
  CHECK(all.supports.allows_schedule(Schedule::gpipe));
  CHECK(all.supports.allows_zero(3, true));

  const Profile p = load_profile({profile_dir("supports:\n  tensor_parallel: false\n  schedules: [1f1b, 1f1b]\n"
                                              "  zero: [2, 0, 1, 3]\n  zero_with_pipeline: [1, 0]\n")},
                                 "p", "test");
  CHECK_FALSE(p.supports.tensor_parallel);
  CHECK_FALSE(p.supports.sequence_parallel); // without tensor parallelism, none to split the sequence
  CHECK(p.supports.schedules == std::vector<Schedule>{Schedule::one_f_one_b});
  CHECK(p.supports.zero == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(p.supports.zero_with_pipeline == std::vector<int64_t>{0, 1});

  const auto refused = [](const std::string& text) {
    return load_profile({profile_dir("supports:\n" + text)}, "p", "test");
  };
  CHECK_THROWS_WITH(refused("  schedules: [zigzag]\n"), Catch::Contains("'zigzag' is not a schedule"));
  CHECK_THROWS_WITH(refused("  schedules: []\n"), Catch::Contains("expected a list of schedules"));
  CHECK_THROWS_WITH(refused("  zero: [4]\n"), Catch::Contains("'4' is not a ZeRO stage"));
  CHECK_THROWS_WITH(refused("  zero: 1\n"), Catch::Contains("expected a list of ZeRO stages"));
  CHECK_THROWS_WITH(refused("  zero: [0, 1]\n  zero_with_pipeline: [3]\n"),
                    Catch::Contains("stage 3 is not among supports.zero"));
  CHECK_THROWS_WITH(refused("  zero: [0, 1]\n  zero_with_experts: [3]\n"),
                    Catch::Contains("stage 3 is not among supports.zero") && Catch::Contains("expert parallelism"));
  CHECK_THROWS_WITH(refused("  pipelines: true\n"), Catch::Contains("pipelines"));
  std::filesystem::remove_all(simgpt::testing::scratch_path("profiles", ""));
}

TEST_CASE("simulate() refuses a plan its framework does not run") {
  const DataPaths data = default_data_paths();
  const Platform platform = Platform::load(simgpt::testing::two_node_platform());
  Workload w;
  w.source = "api";
  w.model = {.layers = 2, .hidden = 256, .heads = 4, .seq_len = 128, .vocab = 1000, .ffn_hidden = 1024};
  w.training.global_batch = 4;
  w.parallelism.pp = 2;
  w.parallelism.schedule = Schedule::gpipe;
  w.framework = "megatron"; // Megatron-LM has no GPipe schedule
  Profile megatron = load_profile(data.profiles(), "megatron", "test");
  CHECK_THROWS_AS(simulate(platform, w, megatron, load_catalog(data)), InputError);
  CHECK_THROWS_WITH(simulate(platform, w, megatron, load_catalog(data)),
                    Catch::Contains("api: parallelism.schedule") && Catch::Contains("no gpipe schedule"));
  w.parallelism.schedule = Schedule::one_f_one_b;
  CHECK_NOTHROW(simulate(platform, w, megatron, load_catalog(data)));
}

TEST_CASE("fp8 under ZeRO-3 runs only where the framework casts at every use or the parameters are fp8") {
  ParallelismSpec p;
  p.dp = 8;
  p.zero = 3;
  const FrameworkSupport all;
  CHECK_FALSE(unsupported_by(all, "fsdp", p, TrainingSpec{}, false));
  TrainingSpec te_fp8;
  te_fp8.fp8 = Fp8Format::hybrid;
  te_fp8.fp8_recipe = Fp8Recipe::tensorwise;
  const auto te = unsupported_by(all, "megatron", p, te_fp8, false);
  REQUIRE(te);
  CHECK(te->key == "training.fp8");
  CHECK_THAT(te->why, Catch::Contains("cached fp8 weights under ZeRO-3 are not modelled"));
  TrainingSpec torchao = te_fp8;
  torchao.fp8 = Fp8Format::e4m3;
  CHECK_FALSE(unsupported_by(all, "torchtitan", p, torchao, true));
  // Megatron-FSDP with fp8 parameters gathers the fp8 tensors themselves.
  TrainingSpec fp8_params = te_fp8;
  fp8_params.fp8_param_gather = true;
  CHECK_FALSE(unsupported_by(all, "megatron", p, fp8_params, false));
  fp8_params.fp8_recipe = Fp8Recipe::mxfp8;
  const auto mx = unsupported_by(all, "megatron", p, fp8_params, false);
  REQUIRE(mx);
  CHECK(mx->key == "training.fp8_param_gather");
  CHECK_THAT(mx->why, Catch::Contains("MXFP8 parameters under ZeRO-3"));
  p.zero = 2;
  CHECK_FALSE(unsupported_by(all, "megatron", p, te_fp8, false));
  CHECK_FALSE(unsupported_by(all, "megatron", p, fp8_params, false));
}

TEST_CASE("a profile's two-valued mechanism keys take their names only") {
  const auto profile = [](const std::string& text) { return load_profile({profile_dir(text)}, "p", "test"); };
  CHECK(profile("compute:\n  attention_kernel: flash2\n").attention_flash2);
  CHECK_FALSE(profile("compute:\n  attention_kernel: tiled\n").attention_flash2);
  CHECK(profile("compute:\n  selective_recompute: every_second_matmul\n").selective_every_second_matmul);
  CHECK_THROWS_WITH(profile("compute:\n  attention_kernel: fa3\n"), Catch::Contains("'fa3' is not tiled or flash2"));
  CHECK_THROWS_WITH(profile("zero3:\n  reshard_after_forward: sometimes\n"),
                    Catch::Contains("'sometimes' is not always, never or unless_pipelined"));
  std::filesystem::remove_all(simgpt::testing::scratch_path("profiles", ""));
}
