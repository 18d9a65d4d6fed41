// What one collective costs in closed form: NCCL's rings over the group (the replay's), the
// protocol and latency NCCL's tuning picks (execution/collective_timing), and the flows of every
// group that runs the same collective at the same time on the same nodes.
#pragma once

#include "estimate/flow_time.hpp"
#include "execution/cluster_topology.hpp"
#include "execution/collective.hpp"
#include "execution/collective_timing.hpp"
#include "simgpt/framework/profile.hpp"

#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace simgpt {

// Groups that run the same collective at once (every replica's tensor-parallel group, say). For
// each group a collective is priced over, the family keeps the groups that have a GPU on that
// group's nodes, its own first: found once per group, not at every collective.
class GroupFamily {
  std::vector<std::vector<int>> groups_;
  std::map<std::vector<int>, std::vector<std::vector<int>>> neighbours_;

public:
  GroupFamily() = default;
  explicit GroupFamily(std::vector<std::vector<int>> groups) : groups_(std::move(groups)) {}
  const std::vector<std::vector<int>>& groups() const { return groups_; }
  const std::vector<std::vector<int>>& neighbours(const std::vector<int>& group, const Cluster& cluster);
};

class CollectiveCosts {
  const Profile& profile_;
  const Cluster& cluster_;
  ClusterTopology topology_;
  FlowPricer pricer_;
  std::map<std::vector<int>, GroupRings> rings_;
  using Key = std::tuple<CollectiveKind, CollectiveAlgorithm, double, std::vector<std::vector<int>>>;
  struct Priced {
    FlowTime flows;            // the flows' phases
    double exit_latency_s = 0; // the step latencies after them
  };
  std::map<Key, Priced> known_;
  bool contended_ = false; // a price since take_contended() contended a link (FlowTime::contended)

public:
  CollectiveCosts(const Profile& profile, const Cluster& cluster)
      : profile_(profile), cluster_(cluster), topology_(cluster), pricer_(cluster) {}

  // Seconds of a collective of `bytes` per member over `group`, while every group of `family`
  // (group among them) runs the same one at once. Only the family's groups with a GPU on one of
  // `group`'s nodes are priced against it: the others meet its flows in the fabric between nodes
  // only, which the presets build without oversubscription. Its flows take at least
  // `flow_floor_s` (a kernel-driven exchange's own rate: Task::flow_floor_s), which is not the
  // collective library's, so no measured line of the library's prices it.
  double seconds(const std::vector<int>& group, CollectiveKind kind, CollectiveAlgorithm algorithm, double bytes,
                 GroupFamily& family, double flow_floor_s = 0);

  // Seconds of the point-to-point transfer `mine` while the transfers of `others` start with it.
  double transfer_seconds(const CollectiveFlow& mine, const std::vector<CollectiveFlow>& others);
  // Whether a price given since the last call contended a link (FlowTime::contended); clears it.
  bool take_contended() { return std::exchange(contended_, false); }
  // The latency of the route from GPU `from` to GPU `to`, which transfer_seconds includes.
  double route_latency(int from, int to) { return pricer_.route(from, to).latency_s; }
  const Cluster& cluster() const { return cluster_; }

private:
  const GroupRings& rings(const std::vector<int>& group);
  CollectiveFlows flows(const std::vector<int>& group, CollectiveKind kind, CollectiveAlgorithm algorithm, double bytes,
                        bool library);
};

} // namespace simgpt
