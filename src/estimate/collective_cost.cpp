#include "estimate/collective_cost.hpp"

#include "execution/collective_timing.hpp"

#include <algorithm>

namespace simgpt {

const CollectiveCosts::GroupRings& CollectiveCosts::rings(const std::vector<int>& group) {
  auto known = rings_.find(group);
  if (known == rings_.end()) {
    std::vector<Ring> rings = cluster_.rings(group);
    const double latency = group_step_latency(profile_, topology_, rings);
    known = rings_.emplace(group, GroupRings{std::move(rings), latency}).first;
  }
  return known->second;
}

CollectiveFlows CollectiveCosts::flows(const std::vector<int>& group, CollectiveKind kind, CollectiveAlgorithm algorithm,
                                       double bytes) {
  const GroupRings& r = rings(group);
  return collective_flows(kind, algorithm, r.rings, bytes, r.step_latency_s,
                          collective_timing(profile_, topology_, r.rings, kind, bytes));
}

std::vector<int> CollectiveCosts::nodes_of(const std::vector<int>& gpus) const {
  std::vector<int> nodes;
  for (int gpu : gpus)
    nodes.push_back(cluster_.gpus()[static_cast<size_t>(gpu)].node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

double CollectiveCosts::seconds(const std::vector<int>& group, CollectiveKind kind, CollectiveAlgorithm algorithm,
                                double bytes, const std::vector<std::vector<int>>& family) {
  if (group.size() < 2 || bytes <= 0)
    return 0;
  const std::vector<int> nodes = nodes_of(group);
  std::vector<std::vector<int>> neighbours{group};
  for (const std::vector<int>& other : family) {
    if (other == group)
      continue;
    const bool near = std::any_of(other.begin(), other.end(), [&](int gpu) {
      return std::binary_search(nodes.begin(), nodes.end(), cluster_.gpus()[static_cast<size_t>(gpu)].node);
    });
    if (near)
      neighbours.push_back(other);
  }
  Key key{kind, algorithm, bytes, neighbours};
  if (auto known = known_.find(key); known != known_.end())
    return known->second;
  std::vector<CollectiveFlows> each;
  for (const std::vector<int>& g : neighbours)
    each.push_back(flows(g, kind, algorithm, bytes));
  // Phase by phase, every group's flows of that phase run together.
  double total = each.front().exit_latency_s;
  for (size_t p = 0; p < each.front().phases.size(); ++p) {
    std::vector<CollectiveFlow> all;
    for (const CollectiveFlows& f : each)
      if (p < f.phases.size())
        all.insert(all.end(), f.phases[p].begin(), f.phases[p].end());
    total += pricer_.seconds(each.front().phases[p], all);
  }
  known_.emplace(std::move(key), total);
  return total;
}

double CollectiveCosts::transfer_seconds(const CollectiveFlow& mine, const std::vector<CollectiveFlow>& all) {
  return pricer_.seconds({mine}, all);
}

} // namespace simgpt
