#include "report/conditions_report.hpp"

#include "execution/route_pairs.hpp"

#include <algorithm>
#include <map>

namespace simgpt {

Report::Conditions conditions_report(const Workload& w, const std::vector<double>& slowdown, int first_gpu,
                                     const StepGraph* step, const Timeline* timeline, const Cluster& cluster) {
  Report::Conditions c;
  const Conditions& asked = w.conditions;
  c.random = asked.random_fraction > 0;
  c.random_fraction = asked.random_fraction;
  c.seed = asked.seed;
  std::map<int, size_t> slowed; // job GPU -> index in c.gpus
  for (size_t g = 0; g < slowdown.size(); ++g)
    if (slowdown[g] > 1) {
      slowed.emplace(static_cast<int>(g), c.gpus.size());
      c.gpus.push_back({first_gpu + static_cast<int>(g), slowdown[g], 0, 0});
    }
  for (const LinkCondition& l : asked.links)
    c.links.push_back({l.link, l.bandwidth_factor, l.latency_added_s, l.down, 0});
  if (step == nullptr || timeline == nullptr)
    return c;
  // Each stream's pace: the largest factor of the GPUs whose kernels it runs.
  std::vector<double> pace(step->compute_stream.size(), 1.0);
  for (const auto& [gpu, index] : slowed) {
    double& p = pace[static_cast<size_t>(step->compute_stream[static_cast<size_t>(gpu)])];
    p = std::max(p, slowdown[static_cast<size_t>(gpu)]);
  }
  std::vector<double> path_compute(pace.size(), 0.0); // per stream
  for (TaskId v : critical_path(step->graph, *timeline)) {
    const Task& t = step->graph[v];
    const double seconds = timeline->finish[v] - timeline->start[v];
    if (t.kind == Task::Kind::compute && t.gpu >= 0 && static_cast<size_t>(t.gpu) < pace.size() &&
        pace[static_cast<size_t>(t.gpu)] > 1) {
      // Its kernels, not the collectives folded into it, which the slowdown leaves as they were.
      double kernels = 0;
      for (const TaskPart& part : task_parts(step->graph, *timeline, v))
        if (part.folded < 0)
          kernels += part.finish - part.start;
      path_compute[static_cast<size_t>(t.gpu)] += kernels;
      c.path_cost_s += kernels * (1 - 1 / pace[static_cast<size_t>(t.gpu)]);
    }
    if (c.links.empty() || (t.kind != Task::Kind::transfer && t.kind != Task::Kind::isolated_collective))
      continue;
    std::vector<char> crossed(c.links.size(), 0);
    for (const auto& [a, b] : route_pairs(*step, v))
      for (size_t index : cluster.conditions_on_route(a + first_gpu, b + first_gpu))
        crossed[index] = 1;
    for (size_t i = 0; i < crossed.size(); ++i)
      if (crossed[i])
        c.links[i].path_s += seconds;
  }
  for (const auto& [gpu, index] : slowed) {
    const auto stream = static_cast<size_t>(step->compute_stream[static_cast<size_t>(gpu)]);
    Report::Conditions::Gpu& g = c.gpus[index];
    if (g.factor == pace[stream]) {
      g.path_compute_s = path_compute[stream];
      g.path_cost_s = path_compute[stream] * (1 - 1 / g.factor);
    }
  }
  return c;
}

} // namespace simgpt
