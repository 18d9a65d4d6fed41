// A workload on a platform (on_platform, check_gpus_used): dp derived from the GPUs where the file
// leaves it out, as Megatron-LM derives it from the world size; GPUs left idle only when asked.
#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;

namespace {

const char* kNoDp = R"(
model: {layers: 80, hidden: 8192, heads: 64, kv_heads: 8, seq_len: 8192, vocab: 128256, attention: flash}
training: {global_batch: 128, micro_batch: 1, precision: bf16}
parallelism: {tp: 8, pp: 4, zero: 1}
framework: megatron
)";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("a workload without dp takes it from the platform's GPUs over tp x cp x pp") {
  const Workload w = parse_workload(kNoDp, "70b.yaml");
  CHECK(w.parallelism.dp_from_platform);
  // ZeRO needs dp > 1 and the batch must divide over the replicas: both wait for dp.
  const Workload on512 = on_platform(w, 512);
  CHECK(on512.parallelism.dp == 16);
  CHECK(on512.parallelism.dp_derived);
  CHECK_FALSE(on512.parallelism.dp_from_platform);
  CHECK(on512.gpus() == 512);
  CHECK(on512.micro_batches() == 8);
  CHECK_NOTHROW(check_gpus_used(on512, 512));
  // placement.gpus: of those GPUs only.
  const Workload on64 = on_platform(parse_workload(kNoDp, "70b.yaml", {{"placement.gpus", "64"}}), 512);
  CHECK(on64.parallelism.dp == 2);
  CHECK_NOTHROW(check_gpus_used(on64, 512));
  // Context parallelism takes its share of each replica.
  CHECK(on_platform(parse_workload(kNoDp, "70b.yaml", {{"parallelism.cp", "2"}}), 512).parallelism.dp == 8);
  // A given dp is kept as it is.
  const Workload given = parse_workload(kNoDp, "70b.yaml", {{"parallelism.dp", "2"}});
  CHECK_FALSE(given.parallelism.dp_from_platform);
  CHECK(on_platform(given, 512).parallelism.dp == 2);
  CHECK_FALSE(on_platform(given, 512).parallelism.dp_derived);
}

TEST_CASE("dp that cannot be derived, or that leaves GPUs idle unasked, is refused naming parallelism.dp") {
  const Workload w = parse_workload(kNoDp, "70b.yaml");
  CHECK_THAT(error_of([&] { on_platform(w, 500); }),
             Catch::Contains("70b.yaml: parallelism.dp: is left out") &&
                 Catch::Contains("the platform's 500 GPUs are not a multiple of tp*pp = 8*4 = 32"));
  CHECK_THAT(error_of([&] { on_platform(w, 16); }), Catch::Contains("not a multiple of tp*pp = 8*4 = 32"));
  // The checks that wait for dp run once it is derived: 128 samples do not divide over 48 replicas.
  CHECK_THAT(error_of([&] { on_platform(w, 48 * 32); }),
             Catch::Contains("training.global_batch") && Catch::Contains("micro_batch * dp = 1 * 48"));
  const Workload two = on_platform(parse_workload(kNoDp, "70b.yaml", {{"parallelism.dp", "2"}}), 512);
  CHECK_THAT(error_of([&] { check_gpus_used(two, 512); }),
             Catch::Contains("70b.yaml: parallelism.dp: the plan dp*tp*pp = 2*8*4 uses 64 of the platform's 512 GPUs") &&
                 Catch::Contains("leave parallelism.dp out to derive it from them (dp 16)") &&
                 Catch::Contains("set placement.gpus: 64"));
  const Workload placed =
      on_platform(parse_workload(kNoDp, "70b.yaml", {{"parallelism.dp", "2"}, {"placement.gpus", "64"}}), 512);
  CHECK_NOTHROW(check_gpus_used(placed, 512));
}

TEST_CASE("a workload without dp is written without it, so that it derives dp again") {
  const Workload w = parse_workload(kNoDp, "70b.yaml");
  const std::string yaml = workload_yaml(w);
  CHECK(yaml.find("dp:") == std::string::npos);
  CHECK(parse_workload(yaml, "again.yaml").parallelism.dp_from_platform);
  CHECK(workload_yaml(on_platform(w, 512)).find("dp: 16") != std::string::npos);
}
