#include "execution/task_graph.hpp"

#include <algorithm>

namespace simgpt {

double Timeline::makespan() const { return finish.empty() ? 0 : *std::max_element(finish.begin(), finish.end()); }

std::optional<TaskId> last_finished_predecessor(const TaskGraph& g, const Timeline& t, TaskId v) {
  std::optional<TaskId> last;
  for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
    TaskId u = boost::source(*e, g);
    if (!last || t.finish[u] > t.finish[*last])
      last = u;
  }
  return last;
}

std::vector<TaskId> critical_path(const TaskGraph& g, const Timeline& t) {
  std::vector<TaskId> path;
  if (t.finish.empty())
    return path;
  std::optional<TaskId> v =
      static_cast<TaskId>(std::max_element(t.finish.begin(), t.finish.end()) - t.finish.begin());
  for (; v; v = last_finished_predecessor(g, t, *v))
    path.push_back(*v);
  std::reverse(path.begin(), path.end());
  return path;
}

} // namespace simgpt
