// Slow GPUs, degraded links and jobs sharing a fabric (the workload's conditions, placement.first_gpu)
// against what they must do in closed form.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"
#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace simgpt;

namespace {

// Four H100s, each its own node with a 100 Gbps NIC, every route between them through one
// shared (not split-duplex) core link of 100 Gbps: all flows between nodes meet there.
std::string four_nodes() {
  static const std::string path = [] {
    std::string xml = R"(<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<link id="core" bandwidth="100Gbps" latency="1us" sharing_policy="SHARED"/>
)";
    for (int i = 0; i < 4; ++i)
      xml += "<host id=\"gpu-" + std::to_string(i) + "\" speed=\"1Gf\"><prop id=\"gpu\" value=\"H100-SXM5-80GB\"/>" +
             "<prop id=\"node\" value=\"" + std::to_string(i) + "\"/></host>\n<link id=\"nic-" + std::to_string(i) +
             "\" bandwidth=\"100Gbps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"><prop id=\"role\" " +
             "value=\"nic\"/></link>\n";
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        if (a != b)
          xml += "<route src=\"gpu-" + std::to_string(a) + "\" dst=\"gpu-" + std::to_string(b) +
                 "\" symmetrical=\"NO\"><link_ctn id=\"nic-" + std::to_string(a) +
                 "\" direction=\"UP\"/><link_ctn id=\"core\"/><link_ctn id=\"nic-" + std::to_string(b) +
                 "\" direction=\"DOWN\"/></route>\n";
    return testing::scratch_file("four_nodes", ".xml", xml + "</zone></platform>\n");
  }();
  return path;
}

// A small Llama-like model in bf16; `plan` lines add the parallelism, placement and conditions.
std::string workload(const std::string& plan) {
  return "model: {layers: 4, hidden: 2048, heads: 16, seq_len: 1024, vocab: 32000, mlp: swiglu, norm: rmsnorm, "
         "position: rope, bias: false, attention: flash}\n"
         "training: {global_batch: 16, micro_batch: 2, precision: bf16, optimizer: adam}\n"
         "framework: megatron\n" +
         plan;
}

nlohmann::ordered_json run(const std::string& yaml, const Overrides& sets = {}) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    return report_json(simulate(four_nodes(), parse_workload(yaml, "w.yaml", sets), data));
  });
}

nlohmann::ordered_json run_jobs(const std::vector<std::string>& yamls) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    std::vector<Workload> jobs;
    for (size_t i = 0; i < yamls.size(); ++i)
      jobs.push_back(parse_workload(yamls[i], "job" + std::to_string(i) + ".yaml"));
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const Report& r : simulate_jobs(four_nodes(), jobs, data))
      all.push_back(report_json(r));
    return all;
  });
}

double step(const nlohmann::ordered_json& r) { return r["step_time_s"].get<double>(); }
double compute(const nlohmann::ordered_json& r, int stage) {
  return r["stages"][static_cast<size_t>(stage)]["compute_s"].get<double>();
}
double dp_in_flight(const nlohmann::ordered_json& r) { return r["communication"]["dp"]["in_flight_s"].get<double>(); }

const std::string kTensorParallel = "parallelism: {dp: 1, tp: 2, pp: 1}\nplacement: {gpus: 2}\n";
// Without the gradient passes around the optimizer, whose step, slowed, then stays shorter than
// stage 0's last backward beside it: off the critical path, as the test below has it.
const std::string kPipeline = "parallelism: {dp: 1, tp: 1, pp: 2, schedule: 1f1b}\nplacement: {gpus: 2}\n"
                              "framework_options: {optimizer.grad_passes: \"[]\"}\n";
const std::string kDataParallel = "parallelism: {dp: 2, tp: 1, pp: 1}\nplacement: {gpus: 2}\n";

} // namespace

TEST_CASE("one GPU of a tensor-parallel group slowed by x makes the group's compute x slower, and the step by as much") {
  const auto base = run(workload(kTensorParallel));
  const auto slow = run(workload(kTensorParallel), {{"conditions.gpu_slowdown", "1:1.5"}});
  // Its members compute in lockstep between the collectives of every layer: at the slow one's pace.
  CHECK(compute(slow, 0) == Approx(1.5 * compute(base, 0)).epsilon(1e-8));
  // The collectives are the same; the stream's compute is 0.5 x longer.
  CHECK(step(slow) - step(base) == Approx(0.5 * compute(base, 0)).epsilon(1e-6));
  CHECK(slow["conditions"]["gpus"][0]["gpu"] == 1);
  CHECK(slow["conditions"]["gpus"][0]["path_cost_s"].get<double>() == Approx(0.5 / 1.5 * compute(slow, 0)).epsilon(1e-6));
  // A factor of 1 is no condition at all.
  CHECK(step(run(workload(kTensorParallel), {{"conditions.gpu_slowdown", "1:1"}})) == step(base));
}

TEST_CASE("one pipeline stage slowed paces every slot of the steady state") {
  const auto base = run(workload(kPipeline));
  const auto slow = run(workload(kPipeline), {{"conditions.gpu_slowdown", "1:2"}});
  CHECK(compute(slow, 1) == Approx(2 * compute(base, 1)).epsilon(1e-8));
  CHECK(compute(slow, 0) == Approx(compute(base, 0)).epsilon(1e-8));
  // 1F1B with stage 1 the slowest runs its m forwards and backwards back to back on the critical
  // path: each adds its slowdown, so the step grows by exactly what the slowdowns add on the path.
  const double added = step(slow) - step(base);
  CHECK(added == Approx(slow["conditions"]["path_cost_s"].get<double>()).epsilon(1e-6));
  // Those are all of stage 1's passes (its optimizer step, run beside stage 0's last backward, is
  // off the path): at most its whole compute, and nearly all of it.
  CHECK(added <= compute(base, 1) * (1 + 1e-9));
  CHECK(added > 0.9 * compute(base, 1));
}

TEST_CASE("one data-parallel replica slowed delays the gradient all-reduce for every replica") {
  const auto base = run(workload(kDataParallel));
  const auto one = run(workload(kDataParallel), {{"conditions.gpu_slowdown", "1:1.5"}});
  const auto both = run(workload(kDataParallel), {{"conditions.gpu_slowdown", "0-1:1.5"}});
  // The all-reduce waits for the slow replica's gradients: the step is that of every replica slow.
  CHECK(step(one) == Approx(step(both)).epsilon(0.002));
  CHECK(step(one) > step(base) + 0.45 * compute(base, 0));
  // The fast replica computes at its own pace and then waits.
  CHECK(compute(one, 0) == Approx(compute(base, 0)).epsilon(1e-9));
}

TEST_CASE("a link at half bandwidth doubles a bandwidth-bound collective's time on it") {
  const auto base = run(workload(kDataParallel));
  const auto half = run(workload(kDataParallel), {{"conditions.link_bandwidth", "core:0.5"}});
  // The gradient all-reduce's two flows cross the core link, where they were bound: twice as long,
  // less what its latencies (a few microseconds) do not double.
  CHECK(dp_in_flight(half) == Approx(2 * dp_in_flight(base)).epsilon(0.01));
  CHECK(dp_in_flight(half) < 2 * dp_in_flight(base));
  CHECK(half["conditions"]["links"][0]["link"] == "core");
  // Added latency is paid, not the bandwidth.
  const auto later = run(workload(kDataParallel), {{"conditions.link_latency", "core:1ms"}});
  CHECK(dp_in_flight(later) > dp_in_flight(base) + 0.001);
}

TEST_CASE("two jobs whose all-reduces share one link each see half of it") {
  const std::string a = workload(kDataParallel);
  const std::string b = workload("parallelism: {dp: 2, tp: 1, pp: 1}\nplacement: {gpus: 2, first_gpu: 2}\n");
  const auto alone_a = run(a);
  const auto alone_b = run(b);
  CHECK(dp_in_flight(alone_a) == Approx(dp_in_flight(alone_b)).epsilon(1e-9)); // the same job on alike GPUs
  const auto together = run_jobs({a, b});
  REQUIRE(together.size() == 2);
  // Four flows on the core link where there were two: each job's all-reduce takes twice as long.
  for (const auto& r : together) {
    CHECK(dp_in_flight(r) == Approx(2 * dp_in_flight(alone_a)).epsilon(0.02));
    CHECK(r["placement"]["neighbour_jobs"] == 1);
  }
  CHECK(together[1]["placement"]["first_gpu"] == 2);
}

TEST_CASE("jobs on overlapping GPUs, a link named by two jobs and an unknown link are refused") {
  const std::string a = workload(kDataParallel);
  const std::string overlapping = workload("parallelism: {dp: 2, tp: 1, pp: 1}\nplacement: {gpus: 2, first_gpu: 1}\n");
  CHECK_THROWS_WITH(run_jobs({a, overlapping}), Catch::Contains("job1.yaml: placement.first_gpu") &&
                                                     Catch::Contains("overlap"));
  const std::string b = workload("parallelism: {dp: 2, tp: 1, pp: 1}\nplacement: {gpus: 2, first_gpu: 2}\n");
  CHECK_THROWS_WITH(run_jobs({a + "conditions: {link_bandwidth: \"core:0.5\"}\n",
                              b + "conditions: {link_latency: \"core:1ms\"}\n"}),
                    Catch::Contains("job1.yaml: conditions") && Catch::Contains("core"));
  CHECK_THROWS_WITH(run(a, {{"conditions.link_bandwidth", "nic-9:0.5"}}),
                    Catch::Contains("w.yaml: conditions") && Catch::Contains("'nic-9' is not a link"));
  CHECK_THROWS_WITH(run(a, {{"conditions.gpu_slowdown", "3:1.2"}}),
                    Catch::Contains("conditions.gpu_slowdown") && Catch::Contains("GPU 3 is not one of the job's"));
  // A link down with no other route: named with the GPUs whose traffic crosses it.
  CHECK_THROWS_WITH(run(a, {{"conditions.links_down", "core"}}),
                    Catch::Contains("conditions.links_down") && Catch::Contains("core is down"));
}

TEST_CASE("the same seed draws the same slow GPUs, and the step is the same to the bit") {
  const Overrides draw{{"conditions.random_fraction", "0.5"}, {"conditions.random_slowdown", "1.1-1.4"},
                       {"conditions.seed", "7"}};
  auto first = run(workload(kDataParallel), draw);
  auto again = run(workload(kDataParallel), draw);
  for (const char* key : {"platform", "inputs"}) { // each run's scratch platform is its own process's file
    first.erase(key);
    again.erase(key);
  }
  CHECK(first.dump() == again.dump());
  CHECK(first["conditions"]["gpus"].size() == 1);
  const double f = first["conditions"]["gpus"][0]["factor"].get<double>();
  CHECK((f >= 1.1 && f <= 1.4));
}
