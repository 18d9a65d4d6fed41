#include "execution/placed_steps.hpp"

namespace simgpt {

PlacedSteps::PlacedSteps(const std::vector<PlacedStep>& jobs) {
  std::vector<FoldedCollective>& folded = graph[boost::graph_bundle].folded;
  for (const PlacedStep& job : jobs) {
    const TaskGraph& g = job.step->graph;
    const size_t tasks = boost::num_vertices(graph), groups = isolated.size();
    first_task.push_back(tasks);
    first_folded.push_back(folded.size());
    for (TaskId v = 0; v < boost::num_vertices(g); ++v) {
      Task t = g[v];
      if (t.gpu >= 0)
        t.gpu += job.first_gpu;
      if (t.kind == Task::Kind::transfer && t.peer >= 0)
        t.peer += job.first_gpu;
      if (t.kind == Task::Kind::isolated_collective && t.peer >= 0)
        t.peer += static_cast<int>(groups);
      if (t.entry >= 0) // a compute task's first folded collective, or a collective's entry task
        t.entry += static_cast<long>(t.kind == Task::Kind::compute ? first_folded.back() : tasks);
      boost::add_vertex(t, graph);
    }
    for (auto [e, end] = boost::edges(g); e != end; ++e)
      boost::add_edge(boost::source(*e, g) + tasks, boost::target(*e, g) + tasks, graph);
    for (FoldedCollective f : folded_collectives(g)) {
      f.task += tasks;
      f.measured += tasks;
      folded.push_back(f);
    }
    for (std::vector<Ring> rings : job.step->isolated) {
      for (Ring& r : rings)
        for (int& gpu : r.gpus)
          gpu += job.first_gpu;
      isolated.push_back(std::move(rings));
    }
  }
}

Timeline PlacedSteps::timeline_of(size_t j, const Timeline& all, const StepGraph& step) const {
  Timeline t;
  const size_t n = boost::num_vertices(step.graph), first = first_task[j];
  t.start.assign(all.start.begin() + static_cast<std::ptrdiff_t>(first),
                 all.start.begin() + static_cast<std::ptrdiff_t>(first + n));
  t.finish.assign(all.finish.begin() + static_cast<std::ptrdiff_t>(first),
                  all.finish.begin() + static_cast<std::ptrdiff_t>(first + n));
  const size_t folded = folded_collectives(step.graph).size(), first_f = first_folded[j];
  t.folded.assign(all.folded.begin() + static_cast<std::ptrdiff_t>(first_f),
                  all.folded.begin() + static_cast<std::ptrdiff_t>(first_f + folded));
  return t;
}

} // namespace simgpt
