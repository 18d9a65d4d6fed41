#include "report/stage_breakdown.hpp"

#include <algorithm>
#include <tuple>

namespace simgpt {
namespace {

// Time a communication task held up what followed it: a transfer's duration, a collective's
// span from its entry (all members arrived) to its exit; a marker passes on what it waited for.
// A compute task ending in folded collectives held it up by the last of them, as that
// collective's own task would have.
double comm_seconds(const TaskGraph& g, const Timeline& t, TaskId u) {
  const Task& task = g[u];
  if (task.kind == Task::Kind::transfer || task.kind == Task::Kind::isolated_collective)
    return t.finish[u] - t.start[u];
  if (task.kind == Task::Kind::compute && task.entry >= 0) {
    const std::vector<TaskPart> parts = task_parts(g, t, u);
    return !parts.empty() && parts.back().folded >= 0 ? parts.back().finish - parts.back().start : 0;
  }
  if (task.kind != Task::Kind::delay)
    return 0;
  if (task.phase == Task::Phase::offload) // a copy to or from the host's memory
    return t.finish[u] - t.start[u];
  if (task.entry >= 0)
    return t.finish[u] - t.finish[static_cast<TaskId>(task.entry)];
  const auto waited = last_finished_predecessor(g, t, u);
  return waited ? comm_seconds(g, t, *waited) : 0;
}

// Adds up one GPU stream's busy time and the part of each gap before its kernels that the
// communication they waited for accounts for: for kernels after a collective folded into their
// task, that collective; for a task's first kernels, what the task waited for last. A task that
// starts with folded collectives and waits for more than its stream's last task marks its start,
// where the collectives' own tasks would have waited.
void add_stream(StageReport& r, std::vector<TaskId>& tasks, const TaskGraph& g, const Timeline& t) {
  // In the stream's order: a task of no time ends before one that starts with it.
  std::sort(tasks.begin(), tasks.end(), [&](TaskId a, TaskId b) {
    return std::make_tuple(t.start[a], t.finish[a], a) < std::make_tuple(t.start[b], t.finish[b], b);
  });
  double previous_finish = 0;
  auto kernels = [&](double start, double finish, auto waited_seconds) {
    r.compute_s += finish - start;
    const double gap = std::max(0.0, start - previous_finish);
    previous_finish = std::max(previous_finish, finish);
    if (gap > 0)
      r.comm_wait_s += std::min(gap, waited_seconds());
  };
  for (TaskId v : tasks) {
    auto waited_by_task = [&] {
      const auto waited = last_finished_predecessor(g, t, v);
      return waited ? comm_seconds(g, t, *waited) : 0.0;
    };
    const std::vector<TaskPart> parts = task_parts(g, t, v);
    if (!parts.empty() && parts.front().folded >= 0 && boost::in_degree(v, g) != 1)
      kernels(t.start[v], t.start[v], waited_by_task);
    double folded_before = -1; // the collective folded just before the kernels; -1: none
    for (const TaskPart& part : parts) {
      if (part.folded >= 0) {
        folded_before = part.finish - part.start;
        continue;
      }
      if (folded_before >= 0)
        kernels(part.start, part.finish, [&] { return folded_before; });
      else
        kernels(part.start, part.finish, waited_by_task);
      folded_before = -1;
    }
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
