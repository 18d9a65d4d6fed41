#include "simgpt/simulation.hpp"

#include "simgpt/cluster.hpp"
#include "simgpt/compute_cost.hpp"
#include "simgpt/error.hpp"
#include "simgpt/gpu.hpp"
#include "simgpt/model.hpp"
#include "simgpt/plan.hpp"
#include "simgpt/profile.hpp"
#include "simgpt/replay.hpp"
#include "simgpt/step_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace simgpt {
namespace {

class ClusterTopology : public Topology {
public:
  explicit ClusterTopology(const Cluster& cluster) : cluster_(cluster) {}
  std::vector<int> ring_order(const std::vector<int>& gpus) const override { return cluster_.ring_order(gpus); }
  double route_latency(int a, int b) const override { return cluster_.route_latency(a, b); }

private:
  const Cluster& cluster_;
};

// Time a communication task held up what followed it: a transfer's duration, a collective's
// span from its entry (all members arrived) to its exit; a marker passes on what it waited for.
double comm_seconds(const TaskGraph& g, const Timeline& t, TaskId u) {
  const Task& task = g[u];
  if (task.kind == Task::Kind::transfer)
    return t.finish[u] - t.start[u];
  if (task.kind != Task::Kind::delay)
    return 0;
  if (task.entry >= 0)
    return t.finish[u] - t.finish[static_cast<TaskId>(task.entry)];
  double best = -1, seconds = 0;
  for (auto [e, end] = boost::in_edges(u, g); e != end; ++e) {
    TaskId p = boost::source(*e, g);
    if (t.finish[p] > best) {
      best = t.finish[p];
      seconds = comm_seconds(g, t, p);
    }
  }
  return seconds;
}

// Splits the wall time of each stage's first GPU into computing, waiting for communication
// (the part of each gap the communication it waited for accounts for) and idling.
std::vector<StageReport> stage_breakdown(const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan) {
  const double makespan = t.makespan();
  std::vector<StageReport> stages(static_cast<size_t>(plan.pp));
  std::vector<std::vector<TaskId>> stream(static_cast<size_t>(plan.gpus()));
  for (TaskId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].kind == Task::Kind::compute)
      stream[static_cast<size_t>(g[v].gpu)].push_back(v);
  for (size_t s = 0; s < stages.size(); ++s) {
    StageReport& r = stages[s];
    r.stage = static_cast<int>(s);
    r.gpu = plan.gpu(r.stage, 0, 0);
    for (int c = 0; c < plan.chunks; ++c)
      r.layers += plan.stages[static_cast<size_t>(c * plan.pp) + s].layers;
    auto& tasks = stream[static_cast<size_t>(r.gpu)];
    std::sort(tasks.begin(), tasks.end(), [&](TaskId a, TaskId b) { return t.start[a] < t.start[b]; });
    double previous_finish = 0;
    for (TaskId v : tasks) {
      r.compute_s += t.finish[v] - t.start[v];
      const double gap = std::max(0.0, t.start[v] - previous_finish);
      previous_finish = std::max(previous_finish, t.finish[v]);
      if (gap <= 0)
        continue;
      double best = -1, waited_comm = 0;
      for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
        TaskId u = boost::source(*e, g);
        if (t.finish[u] > best) {
          best = t.finish[u];
          waited_comm = comm_seconds(g, t, u);
        }
      }
      r.comm_wait_s += std::min(gap, waited_comm);
    }
    r.idle_s = std::max(0.0, makespan - r.compute_s - r.comm_wait_s);
  }
  return stages;
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
  const ExecutionPlan plan = make_plan(w, cost, profile);
  const StepGraph step = build_step_graph(plan, ClusterTopology(cluster));
  const TaskGraph& graph = step.graph;
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
  r.p2p_transfers = step.p2p_transfers;
  r.p2p_bytes = step.p2p_bytes;
  for (const auto& [kind, count] : step.collectives)
    r.collectives.push_back({kind, count.count, count.bytes});
  for (TaskId v : critical_path(graph, timeline))
    (graph[v].kind == Task::Kind::compute ? r.critical_compute_s : r.critical_comm_s) +=
        timeline.finish[v] - timeline.start[v];
  r.stages = stage_breakdown(graph, timeline, plan);
  return r;
}

} // namespace simgpt
