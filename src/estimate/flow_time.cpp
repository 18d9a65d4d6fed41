#include "estimate/flow_time.hpp"

#include <algorithm>
#include <limits>

namespace simgpt {

const FlowRoute& FlowPricer::route(int from, int to) {
  auto known = routes_.find({from, to});
  if (known == routes_.end())
    known = routes_.emplace(std::make_pair(from, to), cluster_.flow_route(from, to)).first;
  return known->second;
}

double FlowPricer::seconds(const std::vector<CollectiveFlow>& mine, const std::vector<CollectiveFlow>& all) {
  std::map<const void*, int> flows_on;
  for (const CollectiveFlow& f : all)
    if (f.from != f.to)
      for (const auto& [link, bandwidth] : route(f.from, f.to).shared_links)
        ++flows_on[link];
  double longest = 0;
  for (const CollectiveFlow& f : mine) {
    if (f.from == f.to || f.bytes <= 0)
      continue;
    const FlowRoute& r = route(f.from, f.to);
    double share = std::numeric_limits<double>::infinity();
    for (const auto& [link, bandwidth] : r.shared_links) {
      const auto on = flows_on.find(link);
      share = std::min(share, bandwidth / (on == flows_on.end() ? 1 : on->second));
    }
    const double rate = std::min(r.rate_Bps, r.payload_factor * share);
    longest = std::max(longest, r.latency_s + f.bytes / rate);
  }
  return longest;
}

} // namespace simgpt
