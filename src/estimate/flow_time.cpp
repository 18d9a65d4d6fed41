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

FlowTime FlowPricer::seconds(const std::vector<CollectiveFlow>& mine, const std::vector<CollectiveFlow>& others) {
  std::map<const void*, std::pair<int, int>> flows_on; // mine, others'
  for (const auto* flows : {&mine, &others})
    for (const CollectiveFlow& f : *flows)
      if (f.from != f.to)
        for (const auto& [link, bandwidth] : route(f.from, f.to).shared_links)
          ++(flows == &mine ? flows_on[link].first : flows_on[link].second);
  FlowTime out;
  for (const CollectiveFlow& f : mine) {
    if (f.from == f.to || f.bytes <= 0)
      continue;
    const FlowRoute& r = route(f.from, f.to);
    double share = std::numeric_limits<double>::infinity();
    for (const auto& [link, bandwidth] : r.shared_links) {
      const auto [own, theirs] = flows_on.at(link);
      share = std::min(share, bandwidth / (own + theirs));
      out.contended = out.contended || theirs > 0;
    }
    const double rate = std::min(r.rate_Bps, r.payload_factor * share);
    out.seconds = std::max(out.seconds, r.latency_s + f.bytes / rate);
  }
  return out;
}

} // namespace simgpt
