#include "estimate/collective_cost.hpp"

#include "execution/collective_timing.hpp"

#include <algorithm>

namespace simgpt {

const GroupRings& CollectiveCosts::rings(const std::vector<int>& group) {
  auto known = rings_.find(group);
  if (known == rings_.end())
    known = rings_.emplace(group, group_rings(profile_, topology_, group)).first;
  return known->second;
}

CollectiveFlows CollectiveCosts::flows(const std::vector<int>& group, CollectiveKind kind, CollectiveAlgorithm algorithm,
                                       double bytes) {
  const GroupRings& r = rings(group);
  return collective_flows(kind, algorithm, r.rings, bytes, r.step_latency,
                          collective_timing(profile_, topology_, r.rings, kind, bytes));
}

const std::vector<std::vector<int>>& GroupFamily::neighbours(const std::vector<int>& group, const Cluster& cluster) {
  auto known = neighbours_.find(group);
  if (known != neighbours_.end())
    return known->second;
  const auto node_of = [&](int gpu) { return cluster.gpus()[static_cast<size_t>(gpu)].node; };
  std::vector<int> nodes;
  for (int gpu : group)
    nodes.push_back(node_of(gpu));
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::vector<std::vector<int>> near{group};
  for (const std::vector<int>& other : groups_)
    if (other != group && std::any_of(other.begin(), other.end(), [&](int gpu) {
          return std::binary_search(nodes.begin(), nodes.end(), node_of(gpu));
        }))
      near.push_back(other);
  return neighbours_.emplace(group, std::move(near)).first->second;
}

double CollectiveCosts::seconds(const std::vector<int>& group, CollectiveKind kind, CollectiveAlgorithm algorithm,
                                double bytes, GroupFamily& family) {
  if (group.size() < 2 || bytes <= 0)
    return 0;
  const std::vector<std::vector<int>>& neighbours = family.neighbours(group, cluster_);
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
