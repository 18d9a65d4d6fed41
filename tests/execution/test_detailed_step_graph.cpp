// The detailed step graph (per-layer compute tasks, recompute as its own phase, for traces):
// the same step as the default graph, only cut finer.
#include "execution/step_graph.hpp"
#include "simgpt/framework/profile.hpp"
#include "support/isolate.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include "support/flat_topology.hpp"
#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

using namespace simgpt;
using testing::FlatTopology;

namespace {

// Compute seconds per (GPU, phase), recompute counted as backward: what both graphs must agree on.
std::map<std::pair<int, Task::Phase>, double> compute_seconds(const TaskGraph& g) {
  std::map<std::pair<int, Task::Phase>, double> out;
  for (TaskId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].kind == Task::Kind::compute) {
      const Task::Phase p = g[v].phase == Task::Phase::recompute ? Task::Phase::backward : g[v].phase;
      out[{g[v].gpu, p}] += g[v].seconds;
    }
  return out;
}

// The step time of GPT-3 XL on a p3.16xlarge with `o`, traced (detailed graph) or not.
double step_time(const Overrides& o, bool traced) {
  const DataPaths data = default_data_paths();
  const std::string trace = traced ? testing::scratch_path("detailed", ".json") : "";
  const double t = run_isolated([&] {
                     const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), o);
                     return nlohmann::ordered_json(
                         simulate(data.find("platforms/p3_16xlarge.xml"), w, data, SimulationOptions{trace})
                             .step_time_s);
                   }).get<double>();
  if (traced)
    std::remove(trace.c_str());
  return t;
}

} // namespace

TEST_CASE("a detailed graph splits compute per layer and recompute from backward, and nothing else") {
  ExecutionPlan p;
  p.dp = 2;
  p.tp = 2;
  p.pp = 2;
  p.micro_batches = 3;
  p.recompute = Recompute::full;
  p.layer = {1e-3, 1e-3, 2e-3, 2e-3, 0, 1e6, 1e6};
  for (int s = 0; s < p.pp; ++s)
    p.stages.push_back({.layers = 3, .optimizer_s = 1e-3});
  p.stages.front().embedding_forward = p.stages.front().embedding_backward = 5e-4;
  p.stages.back().head_forward = p.stages.back().head_backward = 5e-4;
  p.activation_bytes = 1e6;
  const StepGraph merged = build_step_graph(p, Profile{}, FlatTopology());
  const StepGraph detailed = build_step_graph(p, Profile{}, FlatTopology(), StepGraphOptions{.detailed = true});
  CHECK(detailed.p2p_transfers == merged.p2p_transfers);
  for (const auto& [kind, count] : merged.collectives)
    CHECK(detailed.collectives.at(kind).count == count.count);
  const auto a = compute_seconds(merged.graph), b = compute_seconds(detailed.graph);
  REQUIRE(a.size() == b.size());
  for (const auto& [key, seconds] : a)
    CHECK(b.at(key) == Approx(seconds).epsilon(1e-12));
  std::map<Task::Phase, std::set<int>> layers; // the layers each phase's tasks name
  for (TaskId v = 0; v < boost::num_vertices(detailed.graph); ++v) {
    const Task& t = detailed.graph[v];
    if (t.kind == Task::Kind::compute && t.seconds > 0)
      layers[t.phase].insert(t.layer);
  }
  CHECK(layers[Task::Phase::forward] == std::set<int>{-1, 0, 1, 2}); // -1: the embedding and head
  CHECK(layers[Task::Phase::backward] == std::set<int>{-1, 0, 1, 2});
  CHECK(layers[Task::Phase::recompute] == std::set<int>{0, 1, 2});
  for (TaskId v = 0; v < boost::num_vertices(merged.graph); ++v) {
    CHECK(merged.graph[v].layer == -1);
    CHECK(merged.graph[v].phase != Task::Phase::recompute);
  }
}

TEST_CASE("a detailed graph replays to the default graph's step time") {
  const std::vector<Overrides> cases{
      {}, // GPipe over 8 stages, full recompute (torch-pipe)
      {{"framework", "megatron"}, {"training.precision", "fp16"}, {"parallelism.pp", "4"}, {"parallelism.tp", "2"},
       {"parallelism.schedule", "1f1b"}, {"parallelism.sequence_parallel", "true"}},
      {{"framework", "generic"}, {"parallelism.pp", "2"}, {"parallelism.dp", "2"}, {"parallelism.tp", "2"},
       {"parallelism.schedule", "interleaved"}, {"parallelism.chunks", "2"}, {"parallelism.zero", "1"},
       {"training.recompute", "selective"}},
      {{"framework", "generic"}, {"parallelism.pp", "1"}, {"parallelism.dp", "8"}, {"parallelism.zero", "3"},
       {"training.global_batch", "16"}, {"training.recompute", "none"}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    const double merged = step_time(cases[i], false), detailed = step_time(cases[i], true);
    CHECK(std::abs(detailed - merged) <= 1e-9 * merged);
  }
}
