#include "report/stage_breakdown.hpp"

#include <algorithm>

namespace simgpt {
namespace {

// Time a communication task held up what followed it: a transfer's duration, a collective's
// span from its entry (all members arrived) to its exit; a marker passes on what it waited for.
double comm_seconds(const TaskGraph& g, const Timeline& t, TaskId u) {
  const Task& task = g[u];
  if (task.kind == Task::Kind::transfer || task.kind == Task::Kind::isolated_collective)
    return t.finish[u] - t.start[u];
  if (task.kind != Task::Kind::delay)
    return 0;
  if (task.entry >= 0)
    return t.finish[u] - t.finish[static_cast<TaskId>(task.entry)];
  const auto waited = last_finished_predecessor(g, t, u);
  return waited ? comm_seconds(g, t, *waited) : 0;
}

// Adds up one GPU stream's busy time and the part of each gap before a task that the
// communication it waited for accounts for.
void add_stream(StageReport& r, std::vector<TaskId>& tasks, const TaskGraph& g, const Timeline& t) {
  std::sort(tasks.begin(), tasks.end(), [&](TaskId a, TaskId b) { return t.start[a] < t.start[b]; });
  double previous_finish = 0;
  for (TaskId v : tasks) {
    r.compute_s += t.finish[v] - t.start[v];
    const double gap = std::max(0.0, t.start[v] - previous_finish);
    previous_finish = std::max(previous_finish, t.finish[v]);
    if (gap <= 0)
      continue;
    const auto waited = last_finished_predecessor(g, t, v);
    r.comm_wait_s += std::min(gap, waited ? comm_seconds(g, t, *waited) : 0.0);
  }
}

} // namespace

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
    add_stream(r, stream[static_cast<size_t>(r.gpu)], g, t);
    r.idle_s = std::max(0.0, makespan - r.compute_s - r.comm_wait_s);
  }
  return stages;
}

} // namespace simgpt
