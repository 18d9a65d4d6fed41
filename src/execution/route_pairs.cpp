#include "execution/route_pairs.hpp"

#include <algorithm>

namespace simgpt {

std::vector<std::pair<int, int>> route_pairs(const StepGraph& step, TaskId v) {
  const Task& t = step.graph[v];
  std::vector<std::pair<int, int>> out;
  if (t.kind == Task::Kind::transfer && t.peer >= 0 && t.peer != t.gpu) {
    out.emplace_back(t.gpu, t.peer);
  } else if (t.kind == Task::Kind::isolated_collective && t.peer >= 0 &&
             static_cast<size_t>(t.peer) < step.isolated.size()) {
    for (const Ring& ring : step.isolated[static_cast<size_t>(t.peer)]) {
      const std::vector<int>& g = ring.gpus;
      for (size_t i = 0; i < g.size(); ++i) {
        if (t.collective == CollectiveKind::all_to_all) {
          for (size_t j = 0; j < g.size(); ++j)
            if (j != i)
              out.emplace_back(g[i], g[j]);
        } else if (g.size() > 1) {
          out.emplace_back(g[i], g[(i + 1) % g.size()]);
        }
      }
    }
  }
  return out;
}

std::vector<std::pair<int, int>> communicating_pairs(const StepGraph& step) {
  std::vector<std::pair<int, int>> pairs;
  std::vector<char> isolated_seen(step.isolated.size(), 0);
  size_t compact_at = size_t{1} << 22; // keep the list small on steps of millions of flows
  for (TaskId v = 0; v < boost::num_vertices(step.graph); ++v) {
    const Task& t = step.graph[v];
    if (t.kind == Task::Kind::isolated_collective) {
      // A group's rings are the same for each of its collectives but an all-to-all's pairs.
      const auto group = static_cast<size_t>(t.peer);
      const char bit = t.collective == CollectiveKind::all_to_all ? 2 : 1;
      if (group < isolated_seen.size() && (isolated_seen[group] & bit))
        continue;
      if (group < isolated_seen.size())
        isolated_seen[group] = static_cast<char>(isolated_seen[group] | bit);
    } else if (t.kind != Task::Kind::transfer) {
      continue;
    }
    for (const auto& p : route_pairs(step, v))
      pairs.push_back(p);
    if (pairs.size() > compact_at) {
      std::sort(pairs.begin(), pairs.end());
      pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
      compact_at = std::max(compact_at, 2 * pairs.size());
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

} // namespace simgpt
