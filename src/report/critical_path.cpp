#include "report/critical_path.hpp"

#include "execution/collective.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace simgpt {
namespace {

using Phase = Task::Phase;

constexpr size_t kTopTasks = 5;

double duration(const Timeline& t, TaskId v) { return std::max(0.0, t.finish[v] - t.start[v]); }

bool is_compute(const Task& task) { return task.kind == Task::Kind::compute; }

// Communication: a pipeline transfer (or its markers), or a collective's entry, flows and exit,
// whose delay carries the collective's step latencies.
bool is_communication(const Task& task) {
  return !is_compute(task) && (task.collective || task.phase == Phase::activation ||
                               task.phase == Phase::gradient || task.phase == Phase::collective);
}

// The name a path task is counted and listed under.
std::string kind_name(const Task& task) {
  if (is_compute(task)) {
    switch (task.phase) {
    case Phase::forward: return "forward";
    case Phase::backward: return "backward";
    case Phase::recompute: return "recompute";
    case Phase::optimizer: return "optimizer";
    default: return "compute";
    }
  }
  if (task.collective)
    return to_string(*task.collective);
  if (task.phase == Phase::activation || task.phase == Phase::gradient)
    return "p2p";
  return is_communication(task) ? "collective" : "other";
}

bool on_stage(const Task& task, int stages) { return task.stage >= 0 && task.stage < stages; }

// The path's longest tasks, longest first (then the earlier, then the lower id); zero-duration
// tasks (markers, joins) are not listed.
std::vector<CriticalPathReport::Task> longest_tasks(const TaskGraph& g, const Timeline& t,
                                                    std::vector<TaskId> path) {
  path.erase(std::remove_if(path.begin(), path.end(), [&](TaskId v) { return duration(t, v) <= 0; }), path.end());
  auto longer = [&](TaskId a, TaskId b) {
    return std::make_tuple(-duration(t, a), t.start[a], a) < std::make_tuple(-duration(t, b), t.start[b], b);
  };
  const size_t n = std::min(kTopTasks, path.size());
  std::partial_sort(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(n), path.end(), longer);
  std::vector<CriticalPathReport::Task> top;
  for (size_t i = 0; i < n; ++i) {
    const TaskId v = path[i];
    const Task& task = g[v];
    top.push_back({kind_name(task), task.gpu, task.stage, task.micro_batch, t.start[v], duration(t, v)});
  }
  return top;
}

} // namespace

CriticalPathReport critical_path_report(const TaskGraph& g, const Timeline& t, int stages) {
  const double step = t.makespan();
  const std::vector<TaskId> path = critical_path(g, t);

  CriticalPathReport r;
  std::vector<double> stage_compute(static_cast<size_t>(std::max(stages, 0)), 0);
  double compute = 0; // on every stage's GPUs
  for (TaskId v : path) {
    const Task& task = g[v];
    const double d = duration(t, v);
    if (d <= 0)
      continue;
    if (is_compute(task)) {
      compute += d;
      if (on_stage(task, stages))
        stage_compute[static_cast<size_t>(task.stage)] += d;
    } else if (is_communication(task)) {
      r.comm_s[kind_name(task)] += d;
      r.exposed_comm_s += d;
    }
  }
  for (int s = 0; s < stages; ++s) {
    const double own = stage_compute[static_cast<size_t>(s)];
    r.stages.push_back({s, own, compute - own});
    if (own > stage_compute[static_cast<size_t>(r.pacing_stage)])
      r.pacing_stage = s;
  }
  if (!r.stages.empty()) {
    r.compute_s = r.stages[static_cast<size_t>(r.pacing_stage)].compute_s;
    r.bubble_s = r.stages[static_cast<size_t>(r.pacing_stage)].bubble_s;
  } else {
    r.bubble_s = compute; // no stage to call it its own
  }
  // Gaps between the path's tasks (the replay leaves none: see critical_path) and tasks that are
  // neither compute nor communication; below a billionth of the step it is rounding.
  r.other_s = step - compute - r.exposed_comm_s;
  if (std::abs(r.other_s) < 1e-9 * step)
    r.other_s = 0;
  r.top_tasks = longest_tasks(g, t, path);
  return r;
}

} // namespace simgpt
