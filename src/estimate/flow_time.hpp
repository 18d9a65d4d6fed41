// How long flows that start together take on the platform's links, in closed form: what the
// estimate (step_estimate) prices where the replay runs the flows in SimGrid.
#pragma once

#include "execution/collective.hpp"
#include "system/cluster.hpp"

#include <map>
#include <utility>
#include <vector>

namespace simgpt {

// A price, and whether it may be long: a link of one's own flows carries flows of others too (other
// replicas' transfers, other groups' collectives), taken to move at once. Where they drift apart in
// the replay (replicas a pass out of step), one's flows have the link to themselves for longer and
// arrive sooner. Uncontended, one's flows move at the rates they leave each other, which other
// traffic in the replay can only lower.
struct FlowTime {
  double seconds = 0;
  bool contended = false;
};

class FlowPricer {
  const Cluster& cluster_;
  std::map<std::pair<int, int>, FlowRoute> routes_;

public:
  explicit FlowPricer(const Cluster& cluster) : cluster_(cluster) {}

  const FlowRoute& route(int from, int to);

  // Seconds until the last of `mine` has arrived when they start at once beside `others`' flows.
  // Each flow pays its route's latency, then moves its bytes at its payload share of its narrowest
  // link: every link's rate split evenly among the flows crossing it (CM02's max-min sharing of
  // flows with alike routes), never above the flow's rate alone. Flows limited elsewhere leave
  // their share of a link unused here, so this errs long where routes differ.
  FlowTime seconds(const std::vector<CollectiveFlow>& mine, const std::vector<CollectiveFlow>& others);
};

} // namespace simgpt
