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

// Communication: a pipeline transfer (or its markers), a collective's entry, flows and exit,
// whose delay carries the collective's step latencies, or an offloaded layer's copy.
bool is_communication(const Task& task) {
  return !is_compute(task) && (task.collective || task.phase == Phase::activation ||
                               task.phase == Phase::gradient || task.phase == Phase::collective ||
                               task.phase == Phase::offload);
}

// The name a path task is counted and listed under.
std::string kind_name(const Task& task) {
  if (is_compute(task)) {
    switch (task.phase) {
    case Phase::forward:
    case Phase::backward:
    case Phase::recompute:
    case Phase::optimizer: return name_of(task.phase);
    default: return "compute";
    }
  }
  if (task.collective)
    return name_of(*task.collective);
  if (task.phase == Phase::activation || task.phase == Phase::gradient)
    return "p2p";
  if (task.phase == Phase::offload)
    return "offload";
  return is_communication(task) ? "collective" : "other";
}

bool on_stage(const Task& task, int stages) { return task.stage >= 0 && task.stage < stages; }

// The name a collective folded into a compute task is counted and listed under.
std::string folded_name(const TaskGraph& g, const TaskPart& part) {
  return name_of(*g[folded_collectives(g)[static_cast<size_t>(part.folded)].measured].collective);
}

// The dimension a collective folded into a compute task serves: its measured task's.
std::string folded_dimension(const TaskGraph& g, const TaskPart& part) {
  return name_of(communication_dimension(g[folded_collectives(g)[static_cast<size_t>(part.folded)].measured]));
}

// The path's longest tasks, longest first (then the earlier, then the lower id); zero-duration
// tasks (markers, joins) are not listed. A compute task's kernels between the collectives folded
// into it are listed apart, and the collectives as the tasks they fold (stage and micro-batch
// unnamed, as an isolated collective's).
std::vector<CriticalPathReport::Task> longest_tasks(const TaskGraph& g, const Timeline& t,
                                                    const std::vector<TaskId>& path) {
  struct Listed {
    TaskId task;
    TaskPart part;
    double length() const { return part.finish - part.start; }
  };
  std::vector<Listed> listed;
  for (TaskId v : path)
    if (duration(t, v) > 0)
      for (const TaskPart& part : task_parts(g, t, v))
        listed.push_back({v, part});
  auto longer = [&](const Listed& a, const Listed& b) {
    return std::make_tuple(-a.length(), a.part.start, a.task) < std::make_tuple(-b.length(), b.part.start, b.task);
  };
  const size_t n = std::min(kTopTasks, listed.size());
  std::partial_sort(listed.begin(), listed.begin() + static_cast<std::ptrdiff_t>(n), listed.end(), longer);
  std::vector<CriticalPathReport::Task> top;
  for (size_t i = 0; i < n; ++i) {
    const Task& task = g[listed[i].task];
    const TaskPart& part = listed[i].part;
    if (part.folded >= 0)
      top.push_back({folded_name(g, part), task.gpu, -1, -1, part.start, listed[i].length()});
    else
      top.push_back({kind_name(task), task.gpu, task.stage, task.micro_batch, part.start, listed[i].length()});
  }
  return top;
}

// Each stage's compute stream: the intervals its first GPU (the lowest id) computes, in order.
// One stream runs one task at a time, so they do not overlap and their ends are sorted too.
struct Stream {
  std::vector<double> start, finish;
  // How long the stream computes within [a, b].
  double busy(double a, double b) const {
    double total = 0;
    for (auto i = static_cast<size_t>(std::upper_bound(finish.begin(), finish.end(), a) - finish.begin());
         i < start.size() && start[i] < b; ++i)
      total += std::max(0.0, std::min(b, finish[i]) - std::max(a, start[i]));
    return total;
  }
};

std::vector<Stream> stage_streams(const TaskGraph& g, const Timeline& t, int stages) {
  std::vector<int> first_gpu(static_cast<size_t>(stages), -1);
  for (TaskId v = 0; v < boost::num_vertices(g); ++v) {
    const Task& task = g[v];
    if (is_compute(task) && on_stage(task, stages)) {
      int& gpu = first_gpu[static_cast<size_t>(task.stage)];
      gpu = gpu < 0 ? task.gpu : std::min(gpu, task.gpu);
    }
  }
  std::vector<std::vector<std::pair<double, double>>> intervals(static_cast<size_t>(stages));
  for (TaskId v = 0; v < boost::num_vertices(g); ++v) {
    const Task& task = g[v];
    if (is_compute(task) && on_stage(task, stages) && task.gpu == first_gpu[static_cast<size_t>(task.stage)] &&
        duration(t, v) > 0)
      for (const TaskPart& part : task_parts(g, t, v))
        if (part.folded < 0) // its kernels, not its folded collectives
          intervals[static_cast<size_t>(task.stage)].emplace_back(part.start, part.finish);
  }
  std::vector<Stream> streams(static_cast<size_t>(stages));
  for (size_t s = 0; s < intervals.size(); ++s) {
    std::sort(intervals[s].begin(), intervals[s].end());
    for (const auto& [a, b] : intervals[s]) {
      streams[s].start.push_back(a);
      streams[s].finish.push_back(b);
    }
  }
  return streams;
}

} // namespace

CriticalPathReport critical_path_report(const TaskGraph& g, const Timeline& t, int stages) {
  const double step = t.makespan();
  const std::vector<TaskId> path = critical_path(g, t);
  stages = std::max(stages, 0);
  const std::vector<Stream> streams = stage_streams(g, t, stages);

  CriticalPathReport r;
  r.stages.resize(static_cast<size_t>(stages));
  for (int s = 0; s < stages; ++s)
    r.stages[static_cast<size_t>(s)].stage = s;
  double compute = 0; // on every stage's GPUs
  for (TaskId v : path) {
    const Task& task = g[v];
    const double d = duration(t, v);
    if (d <= 0)
      continue;
    if (is_communication(task)) {
      r.comm_s[kind_name(task)] += d;
      r.dimension_s[name_of(communication_dimension(task))] += d;
      r.exposed_comm_s += d;
      continue;
    }
    if (!is_compute(task))
      continue;
    for (const TaskPart& part : task_parts(g, t, v)) {
      const double p = part.finish - part.start;
      if (part.folded >= 0) { // a collective folded into the task: communication, as its own task
        r.comm_s[folded_name(g, part)] += p;
        r.dimension_s[folded_dimension(g, part)] += p;
        r.exposed_comm_s += p;
        continue;
      }
      compute += p;
      // From each stage's view: its own compute, or another stage's, during which it computed
      // too (off the path) or waited for the pipeline (bubble).
      for (int s = 0; s < stages; ++s) {
        CriticalPathReport::Stage& view = r.stages[static_cast<size_t>(s)];
        const double busy = task.stage == s ? p : streams[static_cast<size_t>(s)].busy(part.start, part.finish);
        view.compute_s += busy;
        view.bubble_s += p - busy;
      }
    }
  }
  for (const CriticalPathReport::Stage& view : r.stages)
    if (view.bubble_s < r.stages[static_cast<size_t>(r.pacing_stage)].bubble_s)
      r.pacing_stage = view.stage;
  if (!r.stages.empty()) {
    r.compute_s = r.stages[static_cast<size_t>(r.pacing_stage)].compute_s;
    r.bubble_s = r.stages[static_cast<size_t>(r.pacing_stage)].bubble_s;
  } else {
    r.compute_s = compute; // no pipeline: nothing to wait for
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
