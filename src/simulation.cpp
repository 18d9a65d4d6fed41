#include "simgpt/simulation.hpp"

#include "simgpt/cluster.hpp"
#include "simgpt/compute_cost.hpp"
#include "simgpt/error.hpp"
#include "simgpt/gpu.hpp"
#include "simgpt/model.hpp"
#include "simgpt/plan.hpp"
#include "simgpt/profile.hpp"
#include "simgpt/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace simgpt {
namespace {

// Splits each stage's wall time into computing, waiting for transfers and idling.
std::vector<StageReport> stage_breakdown(const TaskGraph& g, const Timeline& t, const PipelinePlan& plan) {
  const double makespan = t.makespan();
  std::vector<StageReport> stages(static_cast<size_t>(plan.stages));
  std::vector<std::vector<TaskId>> stream(stages.size());
  for (TaskId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].kind == Task::Kind::compute)
      stream[static_cast<size_t>(g[v].stage)].push_back(v);
  for (size_t s = 0; s < stages.size(); ++s) {
    StageReport& r = stages[s];
    r.stage = static_cast<int>(s);
    r.gpu = plan.gpu_of_stage[s];
    for (int c = 0; c < plan.chunks; ++c)
      r.layers += plan.cost[static_cast<size_t>(c * plan.stages) + s].layers;
    for (TaskId v : stream[s]) {
      r.compute_s += t.finish[v] - t.start[v];
      // When the task could have started had every transfer been instantaneous.
      double ready = 0;
      for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
        TaskId u = boost::source(*e, g);
        if (g[u].kind == Task::Kind::compute) {
          ready = std::max(ready, t.finish[u]);
        } else {
          for (auto [e2, end2] = boost::in_edges(u, g); e2 != end2; ++e2)
            if (g[boost::source(*e2, g)].kind == Task::Kind::compute)
              ready = std::max(ready, t.finish[boost::source(*e2, g)]);
        }
      }
      r.comm_wait_s += std::max(0.0, t.start[v] - ready);
    }
    r.idle_s = std::max(0.0, makespan - r.compute_s - r.comm_wait_s);
  }
  return stages;
}

void check_supported(const Workload& w) {
  if (w.parallelism.tp > 1 || w.parallelism.dp > 1)
    throw InputError(w.source + ": parallelism",
                     "simgpt simulates pipeline parallelism only so far (tp and dp must be 1)");
}

} // namespace

DataPaths default_data_paths() {
  if (const char* env = std::getenv("SIMGPT_DATA"); env != nullptr && *env != '\0')
    return {env, {}};
  return {SIMGPT_DATA_DIR, {}};
}

Report simulate(const std::string& platform_path, const Workload& w, const DataPaths& data) {
  const GpuCatalog catalog = GpuCatalog::load(data.catalog());
  Profile profile = load_profile(data.profiles(), w.framework, w.source + ": framework");
  for (const auto& [key, value] : data.profile_overrides)
    set_profile_parameter(profile, key, value);
  check_supported(w);
  Cluster cluster(platform_path, catalog, w.network, profile);
  const auto available = static_cast<int64_t>(cluster.gpus().size());
  if (w.gpus() > available)
    throw InputError(w.source + ": parallelism",
                     fmt::format("the plan dp*tp*pp = {}*{}*{} needs {} GPUs but {} has {}", w.parallelism.dp,
                                 w.parallelism.tp, w.parallelism.pp, w.gpus(), platform_path, available));
  const GpuSpec& gpu = *cluster.gpus().front().gpu;
  for (int64_t i = 0; i < w.gpus(); ++i)
    if (cluster.gpus()[static_cast<size_t>(i)].gpu != &gpu)
      throw InputError(platform_path, "simgpt needs the GPUs a job uses to be of one model");

  const ComputeCostModel cost(gpu, profile, w.training.precision, w.source + ": training.precision");
  const PipelinePlan plan = make_pipeline_plan(w, cost, profile);
  const TaskGraph graph = build_pipeline_graph(w, plan);
  const Timeline timeline = replay(graph, cluster);

  Report r;
  r.platform = std::filesystem::path(platform_path).filename().string();
  r.workload = std::filesystem::path(w.source).filename().string();
  r.framework = profile.name;
  r.schedule = to_string(w.parallelism.schedule);
  r.gpus = static_cast<int>(w.gpus());
  r.dp = static_cast<int>(w.parallelism.dp);
  r.tp = static_cast<int>(w.parallelism.tp);
  r.pp = static_cast<int>(w.parallelism.pp);
  r.micro_batches = plan.micro_batches;
  r.step_time_s = timeline.makespan();
  const double batch = static_cast<double>(w.training.global_batch);
  r.samples_per_s = batch / r.step_time_s;
  r.tokens_per_s = r.samples_per_s * static_cast<double>(w.model.seq_len);
  r.model_flops = model_flops_per_step(w);
  r.tflops_per_gpu = r.model_flops / r.step_time_s / r.gpus / 1e12;
  for (TaskId v = 0; v < boost::num_vertices(graph); ++v)
    if (graph[v].kind == Task::Kind::transfer) {
      r.p2p_transfers += 1;
      r.p2p_bytes += graph[v].bytes;
    }
  for (TaskId v : critical_path(graph, timeline))
    (graph[v].kind == Task::Kind::compute ? r.critical_compute_s : r.critical_transfer_s) +=
        timeline.finish[v] - timeline.start[v];
  r.stages = stage_breakdown(graph, timeline, plan);
  return r;
}

} // namespace simgpt
