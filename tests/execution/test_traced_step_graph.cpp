// A traced step (StepGraphOptions::traced_gpus): the traced GPUs' compute tasks record what they
// hold per layer, and the graph, its replay and the report are the untraced step's, to the bit.
#include "execution/step_graph.hpp"
#include "simgpt/framework/profile.hpp"
#include "support/isolate.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include "support/flat_topology.hpp"
#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <set>

using namespace simgpt;
using testing::FlatTopology;

namespace {

// The report of GPT-3 XL on a p3.16xlarge with `o`, as JSON text: traced into `trace` (drawing
// `selection`) or, when `trace` is empty, not.
std::string report_of(const Overrides& o, const std::string& trace, const TraceSelection& selection = {}) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
           const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), o);
           return nlohmann::ordered_json(
               simulate(data.find("platforms/p3_16xlarge.xml"), w, data,
                        SimulationOptions{.trace_path = trace, .trace_selection = selection})
                   .to_json_text());
         })
      .get<std::string>();
}

} // namespace

TEST_CASE("a traced GPU's compute tasks record their kernels per layer, and the graph stays the same") {
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
  const StepGraph plain = build_step_graph(p, Profile{}, FlatTopology());
  const std::vector<int> traced_gpus{0, p.gpu(1, 1, 1)};
  const StepGraph traced = build_step_graph(p, Profile{}, FlatTopology(), StepGraphOptions{.traced_gpus = traced_gpus});
  CHECK(plain.kernel_pieces.empty());
  // The same tasks, edges and times.
  REQUIRE(boost::num_vertices(traced.graph) == boost::num_vertices(plain.graph));
  CHECK(boost::num_edges(traced.graph) == boost::num_edges(plain.graph));
  for (TaskId v = 0; v < boost::num_vertices(plain.graph); ++v) {
    CHECK(traced.graph[v].seconds == plain.graph[v].seconds);
    CHECK(traced.graph[v].phase == plain.graph[v].phase);
    CHECK(traced.graph[v].phase != Task::Phase::recompute);
  }
  // Pieces of the traced GPUs' compute tasks only (each GPU on its own stream here), in task
  // order, summing to each task's time.
  std::map<TaskId, double> pieces_seconds;
  std::map<Task::Phase, std::set<int>> layers; // the layers each phase's pieces name
  for (size_t i = 0; i < traced.kernel_pieces.size(); ++i) {
    const KernelPiece& piece = traced.kernel_pieces[i];
    if (i > 0)
      CHECK(piece.task >= traced.kernel_pieces[i - 1].task);
    const Task& task = traced.graph[piece.task];
    CHECK((piece.seconds > 0 || task.seconds == 0));
    CHECK(task.kind == Task::Kind::compute);
    CHECK(std::count(traced_gpus.begin(), traced_gpus.end(), task.gpu) == 1);
    CHECK((piece.phase == task.phase || (piece.phase == Task::Phase::recompute && task.phase == Task::Phase::backward)));
    pieces_seconds[piece.task] += piece.seconds;
    layers[piece.phase].insert(piece.layer);
  }
  for (TaskId v = 0; v < boost::num_vertices(traced.graph); ++v) {
    const Task& task = traced.graph[v];
    const bool traced_task =
        task.kind == Task::Kind::compute && std::count(traced_gpus.begin(), traced_gpus.end(), task.gpu) == 1;
    CHECK(pieces_seconds.count(v) == (traced_task ? 1u : 0u));
    if (traced_task)
      CHECK(pieces_seconds[v] == Approx(task.seconds).epsilon(1e-12).margin(0));
  }
  CHECK(layers[Task::Phase::forward] == std::set<int>{-1, 0, 1, 2}); // -1: the embedding, head and host time
  CHECK(layers[Task::Phase::backward] == std::set<int>{-1, 0, 1, 2});
  CHECK(layers[Task::Phase::recompute] == std::set<int>{0, 1, 2});
  CHECK(layers[Task::Phase::optimizer] == std::set<int>{-1});
}

TEST_CASE("a traced step reports what the untraced step does, whatever the trace draws") {
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
  const std::string trace = testing::scratch_path("traced_report", ".json");
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    const std::string plain = report_of(cases[i], "");
    CHECK(report_of(cases[i], trace) == plain);
    CHECK(report_of(cases[i], trace, {.gpus = {1, 6}, .window = {.start_s = 0.5, .end_s = 1.5}}) == plain);
  }
  std::remove(trace.c_str());
}
