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
                                       double bytes, bool library) {
  const GroupRings& r = rings(group);
  return collective_flows(kind, algorithm, r.rings, bytes, r.step_latency,
                          collective_timing(profile_, topology_, r.rings, kind, bytes, library));
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
                                double bytes, GroupFamily& family, double flow_floor_s) {
  if (group.size() < 2 || bytes <= 0)
    return 0;
  const std::vector<std::vector<int>>& neighbours = family.neighbours(group, cluster_);
  Key key{kind, algorithm, bytes, neighbours};
  if (auto known = known_.find(key); known != known_.end()) {
    contended_ = contended_ || known->second.flows.contended;
    return std::max(known->second.flows.seconds, flow_floor_s) + known->second.exit_latency_s;
  }
  std::vector<CollectiveFlows> each;
  for (const std::vector<int>& g : neighbours)
    each.push_back(flows(g, kind, algorithm, bytes, flow_floor_s <= 0)); // a floor: a flex dispatcher's exchange
  // Phase by phase, every group's flows of that phase run together.
  FlowTime total{0, false};
  for (size_t p = 0; p < each.front().phases.size(); ++p) {
    std::vector<CollectiveFlow> others;
    for (size_t g = 1; g < each.size(); ++g)
      if (p < each[g].phases.size())
        others.insert(others.end(), each[g].phases[p].begin(), each[g].phases[p].end());
    const FlowTime phase = pricer_.seconds(each.front().phases[p], others);
    total.seconds += phase.seconds;
    total.contended = total.contended || phase.contended;
  }
  contended_ = contended_ || total.contended;
  known_.emplace(std::move(key), Priced{total, each.front().exit_latency_s});
  return std::max(total.seconds, flow_floor_s) + each.front().exit_latency_s;
}

double CollectiveCosts::transfer_seconds(const CollectiveFlow& mine, const std::vector<CollectiveFlow>& others) {
  const FlowTime t = pricer_.seconds({mine}, others);
  contended_ = contended_ || t.contended;
  return t.seconds;
}

} // namespace simgpt
