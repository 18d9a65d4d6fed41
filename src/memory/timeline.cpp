#include "memory/timeline.hpp"

#include "memory/footprint.hpp"
#include "simgpt/memory/memory.hpp"
#include "model/model.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace simgpt {
namespace {

struct ActivationPeak {
  double bytes = 0, time_s = 0;
  int in_flight = 0;
};

// The compute tasks of each GPU, in task order.
std::vector<std::vector<TaskId>> compute_tasks_by_gpu(const TaskGraph& g, int gpus) {
  std::vector<std::vector<TaskId>> tasks(static_cast<size_t>(gpus));
  for (TaskId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].kind == Task::Kind::compute && g[v].gpu >= 0 && g[v].gpu < gpus)
      tasks[static_cast<size_t>(g[v].gpu)].push_back(v);
  return tasks;
}

// (time, order: frees first, bytes): a micro-batch's activations allocated or freed.
using ActivationEvents = std::vector<std::tuple<double, int, double>>;

// Activations alive over time on one GPU, from its compute tasks: allocated when a micro-batch's
// forward starts, freed when its backward ends (the same micro-batch may span several tasks,
// merged or per layer, its recompute included).
ActivationEvents activation_events(const std::vector<TaskId>& gpu_tasks, const StageFootprint& f, const TaskGraph& g,
                                   const Timeline& t, const ExecutionPlan& plan, const Workload& w,
                                   const Profile& profile) {
  std::map<std::pair<int, int>, std::pair<double, double>> life; // (mb, chunk) -> (alloc, free)
  for (TaskId v : gpu_tasks) {
    const Task& task = g[v];
    if (task.micro_batch < 0)
      continue;
    // The task's kernels: a collective folded into it before the first or after the last runs
    // outside them, as its own task would.
    double start = t.start[v], finish = t.finish[v];
    if (task.entry >= 0) {
      const std::vector<TaskPart> parts = task_parts(g, t, v);
      const auto first = std::find_if(parts.begin(), parts.end(), [](const TaskPart& p) { return p.folded < 0; });
      const auto last = std::find_if(parts.rbegin(), parts.rend(), [](const TaskPart& p) { return p.folded < 0; });
      if (first != parts.end()) {
        start = first->start;
        finish = last->finish;
      }
    }
    auto [it, fresh] = life.try_emplace({task.micro_batch, task.chunk}, start, 0.0);
    if (task.phase == Task::Phase::forward)
      it->second.first = fresh ? start : std::min(it->second.first, start);
    else
      it->second.second = std::max(it->second.second, finish);
  }
  ActivationEvents events;
  for (const auto& [key, span] : life) {
    double bytes = f.kept[static_cast<size_t>(key.second)];
    // A micro-batch that is not checkpointed keeps all its activations.
    if (!profile.recompute_last_micro_batch && key.first == plan.micro_batches - 1 &&
        w.training.recompute == Recompute::full)
      bytes = f.full[static_cast<size_t>(key.second)];
    events.emplace_back(span.first, 1, bytes);
    events.emplace_back(span.second, 0, -bytes);
  }
  std::sort(events.begin(), events.end());
  return events;
}

ActivationPeak activation_peak(const ActivationEvents& events) {
  ActivationPeak peak;
  double live = 0;
  int count = 0;
  for (const auto& [time, order, bytes] : events) {
    live += bytes;
    count += bytes > 0 ? 1 : -1;
    if (live > peak.bytes)
      peak = {live, time, count};
  }
  return peak;
}

} // namespace

std::vector<MemoryReport> peak_memory(const std::vector<StageGpu>& stages, const TaskGraph& g, const Timeline& t,
                                      const ExecutionPlan& plan, const Workload& w, const Profile& profile,
                                      const GpuSpec& gpu) {
  const std::vector<std::vector<TaskId>> tasks = compute_tasks_by_gpu(g, plan.gpus());
  std::vector<MemoryReport> out;
  for (const StageGpu& r : stages) {
    MemoryReport& mem = out.emplace_back();
    const StageFootprint f = stage_footprint(r.stage, plan, w, profile);
    const ResidentState state = resident_state(f, plan, w, profile, gpu);
    mem.weights = state.weights;
    mem.gradients = state.gradients;
    mem.optimizer_state = state.optimizer_state;
    const double gradients_at_activation_peak = state.gradients_at_activation_peak;
    const ActivationPeak peak =
        activation_peak(activation_events(tasks[static_cast<size_t>(r.gpu)], f, g, t, plan, w, profile));
    mem.activations = peak.bytes;
    mem.peak_time_s = peak.time_s;
    mem.in_flight = peak.in_flight;
    mem.transient = f.transient;
    if (settle_peak(mem, gradients_at_activation_peak, profile, gpu, w.parallelism))
      mem.peak_time_s = t.makespan();
  }
  return out;
}

std::vector<MemorySeries> memory_over_time(const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                                           const Workload& w, const Profile& profile, const GpuSpec& gpu,
                                           const std::vector<int>& compute_stream) {
  const std::vector<std::vector<TaskId>> tasks = compute_tasks_by_gpu(g, plan.gpus());
  std::vector<MemorySeries> out(static_cast<size_t>(plan.gpus()));
  for (int s = 0; s < plan.pp; ++s) {
    const StageFootprint f = stage_footprint(s, plan, w, profile);
    const ResidentState state = resident_state(f, plan, w, profile, gpu);
    const double resident = state.weights + state.gradients_at_activation_peak + state.optimizer_state;
    for (int d = 0; d < plan.dp; ++d)
      for (int r = 0; r < plan.tp; ++r) {
        MemorySeries& series = out[static_cast<size_t>(plan.gpu(s, d, r))];
        series.gpu = plan.gpu(s, d, r);
        series.stage = s;
        series.points = {{0.0, resident}};
        double live = 0;
        int in_flight = 0;
        for (const auto& [time, order, bytes] :
             activation_events(tasks[static_cast<size_t>(compute_stream[static_cast<size_t>(series.gpu)])], f, g, t,
                               plan, w, profile)) {
          live += bytes;
          in_flight += bytes > 0 ? 1 : -1;
          if (in_flight == 0)
            live = 0; // no rounding residue once every micro-batch has freed its activations
          // Events at one time (a free and the next allocation) make one point: the value after all.
          if (series.points.back().time_s != time)
            series.points.push_back({time, 0});
          series.points.back().bytes = resident + live;
        }
      }
  }
  return out;
}

} // namespace simgpt
