#include "execution/task_graph.hpp"

#include <boost/graph/exception.hpp>
#include <boost/range/iterator_range.hpp>

#include <algorithm>
#include <iterator>
#include <limits>

namespace simgpt {

double Timeline::makespan() const { return finish.empty() ? 0 : *std::max_element(finish.begin(), finish.end()); }

double task_end(const TaskGraph& g, TaskId v, double start, const std::vector<double>& flow_seconds) {
  return walk_task_parts(g, v, start, flow_seconds, [](double, double) {}, [](size_t, double, double) {});
}

std::vector<TaskPart> task_parts(const TaskGraph& g, const Timeline& t, TaskId v) {
  const Task& task = g[v];
  if (task.kind != Task::Kind::compute || task.entry < 0)
    return {{t.start[v], t.finish[v], -1}};
  std::vector<TaskPart> parts;
  const double finish = t.finish[v];
  walk_task_parts(
      g, v, t.start[v], t.folded, [&](double from, double to) {
        if (std::min(to, finish) > from)
          parts.push_back({from, std::min(to, finish), -1});
      },
      [&](size_t i, double from, double to) {
        if (std::min(to, finish) > from)
          parts.push_back({from, std::min(to, finish), static_cast<long>(i)});
      });
  return parts;
}

std::optional<TaskId> last_finished_predecessor(const TaskGraph& g, const Timeline& t, TaskId v) {
  std::optional<TaskId> last;
  for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
    TaskId u = boost::source(*e, g);
    if (!last || t.finish[u] > t.finish[*last])
      last = u;
  }
  return last;
}

namespace {

// Chains whose lengths differ by less than this fraction of the step are equally long: times
// that are equal on paper can come out of the replay differing in their last bits.
constexpr double kEquallyLong = 1e-9;

// Of `tasks` (not empty), the one that ends the longest chain; of those as long (within
// `tolerance`), the lowest id.
template <class Tasks>
TaskId end_of_longest(const Tasks& tasks, const std::vector<double>& length, double tolerance) {
  double longest = length[*tasks.begin()];
  for (TaskId u : tasks)
    longest = std::max(longest, length[u]);
  TaskId lowest = std::numeric_limits<TaskId>::max();
  for (TaskId u : tasks)
    if (length[u] >= longest - tolerance)
      lowest = std::min(lowest, u);
  return lowest;
}

} // namespace

// Why the longest path is the chain that sets the step time: the replay starts each task when
// its last predecessor finishes, and the tasks without one at 0. Walking back from the last task
// to finish through the predecessor each task waited for therefore meets no gap, down to a task
// that started at 0: that chain's durations add up to the makespan. No chain adds up to more, as
// a chain's tasks run one after another within the step. So the longest path by durations,
// found in O(V + E) by relaxing the tasks in topological order, is a chain whose durations sum
// to the step time (a gap the replay left anyway would show as the sum falling short of it).
std::vector<TaskId> critical_path(const TaskGraph& g, const Timeline& t) {
  const size_t n = boost::num_vertices(g);
  if (n == 0)
    return {};
  // The tasks in topological order (Kahn's: each after all its predecessors). Any order does:
  // the chains' lengths and the tie rule do not depend on it. Boost's depth-first
  // topological_sort took 5% of Megatron 1T's simulation; this takes one pass over the edges.
  std::vector<TaskId> order;
  order.reserve(n);
  std::vector<size_t> waiting(n);
  for (TaskId v = 0; v < n; ++v)
    if ((waiting[v] = boost::in_degree(v, g)) == 0)
      order.push_back(v);
  for (size_t i = 0; i < order.size(); ++i)
    for (auto [e, end] = boost::out_edges(order[i], g); e != end; ++e)
      if (--waiting[boost::target(*e, g)] == 0)
        order.push_back(boost::target(*e, g));
  if (order.size() != n)
    throw boost::not_a_dag();
  const double tolerance = kEquallyLong * t.makespan();
  // Per task: the length of the longest chain ending with it, and the predecessor that chain
  // comes through (n: none, the chain starts with the task).
  std::vector<double> length(n, 0);
  std::vector<TaskId> via(n, n);
  std::vector<TaskId> predecessors;
  for (const TaskId v : order) {
    predecessors.clear();
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e)
      predecessors.push_back(boost::source(*e, g));
    if (!predecessors.empty()) {
      via[v] = end_of_longest(predecessors, length, tolerance);
      length[v] = length[via[v]];
    }
    length[v] += std::max(0.0, t.finish[v] - t.start[v]);
  }
  std::vector<TaskId> path;
  for (TaskId v = end_of_longest(boost::make_iterator_range(boost::vertices(g)), length, tolerance); v != n; v = via[v])
    path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

} // namespace simgpt
