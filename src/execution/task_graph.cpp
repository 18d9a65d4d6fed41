#include "simgpt/execution/task_graph.hpp"

#include <algorithm>

namespace simgpt {

double Timeline::makespan() const { return finish.empty() ? 0 : *std::max_element(finish.begin(), finish.end()); }

std::vector<TaskId> critical_path(const TaskGraph& g, const Timeline& t) {
  std::vector<TaskId> path;
  if (t.finish.empty())
    return path;
  TaskId v = static_cast<TaskId>(std::max_element(t.finish.begin(), t.finish.end()) - t.finish.begin());
  for (;;) {
    path.push_back(v);
    bool found = false;
    TaskId last = v;
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
      TaskId u = boost::source(*e, g);
      if (!found || t.finish[u] > t.finish[last]) {
        last = u;
        found = true;
      }
    }
    if (!found)
      break;
    v = last;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

} // namespace simgpt
