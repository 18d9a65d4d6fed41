#include "system/platform_gen/compact_zone.hpp"

#include "system/platform_gen/fabric.hpp"
#include "system/platform_gen/names.hpp"
#include "system/platform_gen/node_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace simgpt::platform_gen {

using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::Route;

CompactZone::CompactZone(const std::string& name, const CheckedSpec& c)
    : NetZoneImpl(name), gpus_per_node_(c.spec.gpus_per_node) {
  // Node 0's layout, by each link's place in node_links: every node's is the same (node_links
  // and fabric_route name a node's links by the node's index alone).
  const int g = gpus_per_node_;
  std::unordered_map<std::string, int> place;
  const std::vector<LinkDecl> links = node_links(c, 0);
  for (size_t i = 0; i < links.size(); ++i)
    place.emplace(links[i].id, static_cast<int>(i));
  const auto hops = [&](const std::vector<LinkUse>& uses) {
    std::vector<Hop> out;
    for (const LinkUse& u : uses)
      out.push_back({place.at(u.link), std::strcmp(u.direction, "UP") == 0});
    return out;
  };
  fabric_.resize(static_cast<size_t>(g * g));
  for (int a = 0; a < g; ++a)
    for (int b = 0; b < g; ++b)
      if (a != b)
        fabric_[static_cast<size_t>(a * g + b)] = hops(fabric_route(c, a, b));
  nics_per_node_ = c.spec.nics_per_node;
  for (int n = 0; n < nics_per_node_; ++n)
    nic_place_.push_back(place.at(nic_name(n)));
  nic_down_.assign(static_cast<size_t>(c.spec.nodes * nics_per_node_), 0);
  // As write_node_zone routes a GPU to its node's gateway and back.
  for (int i = 0; i < g; ++i) {
    nic_of_.push_back(c.nic_of(i));
    const int pcie = place.at(pcie_name(i)), nic = place.at(nic_name(c.nic_of(i)));
    up_.push_back({pcie, true});
    up_.push_back({nic, true});
    down_.push_back({nic, false});
    down_.push_back({pcie, false});
  }
}

void CompactZone::add_node_links(std::vector<std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*>> links) {
  std::vector<simgrid::s4u::Link*> halves;
  for (const auto& [up, down] : links)
    halves.push_back(up);
  for (const auto& [up, down] : links)
    halves.push_back(down);
  const int node = static_cast<int>(node_links_.size());
  node_links_.push_back(std::move(halves));
  for (int i = 0; i < gpus_per_node_; ++i)
    node_of_.push_back(node);
}

void CompactZone::route_around(int nic) {
  nic_down_[static_cast<size_t>(nic)] = 1;
  const int node = nic / nics_per_node_, total = static_cast<int>(nic_down_.size());
  // Every GPU of the node again: an earlier re-route may have picked this NIC.
  for (int i = 0; i < gpus_per_node_; ++i) {
    const int gpu = node * gpus_per_node_ + i, own = nic_of_[static_cast<size_t>(i)];
    rerouted_.erase(gpu);
    if (!nic_down_[static_cast<size_t>(node * nics_per_node_ + own)])
      continue;
    for (int step = 1; step < nics_per_node_; ++step)
      for (int other : {own + step, own - step})
        if (other >= 0 && other < nics_per_node_ && node * nics_per_node_ + other < total &&
            !nic_down_[static_cast<size_t>(node * nics_per_node_ + other)] && !rerouted_.contains(gpu))
          rerouted_.emplace(gpu, other);
  }
}

simgrid::s4u::Link* CompactZone::link(int node, Hop hop) const {
  const std::vector<simgrid::s4u::Link*>& halves = node_links_[static_cast<size_t>(node)];
  return halves[static_cast<size_t>(hop.up ? hop.link : hop.link + static_cast<int>(halves.size() / 2))];
}

void CompactZone::get_local_route(const NetPoint* src, const NetPoint* dst, Route* into, double* latency) {
  const int a = static_cast<int>(src->id()), b = static_cast<int>(dst->id());
  // A GPU to itself would take SimGrid's loopback link, which only its network model holds:
  // simgpt sends nothing from a GPU to itself, and asks for such a route only where it accepts
  // none (Cluster's route).
  if (a == b || a >= gpus() || b >= gpus())
    throw std::invalid_argument("a compact platform routes between two of its GPUs only");
  const int na = node_of(a), nb = node_of(b), ka = a % gpus_per_node_, kb = b % gpus_per_node_;
  const auto add = [&](simgrid::s4u::Link* l, bool add_latency) {
    into->link_list_.push_back(l->get_impl());
    if (latency != nullptr && add_latency)
      *latency += l->get_latency();
  };
  if (na == nb) {
    for (const Hop& hop : fabric_[static_cast<size_t>(ka * gpus_per_node_ + kb)])
      add(link(na, hop), true);
    return;
  }
  // SimGrid's recursive routing asks the zone above the nodes first (the flow cap's latency), then
  // the source's node zone, then the destination's; the links go in path order.
  if (latency != nullptr)
    *latency += cap_->get_latency();
  // The NIC hop (the second out, the first in) of a GPU whose NIC is down: the one it uses instead.
  const auto nic_hop = [&](int gpu, Hop hop) {
    if (rerouted_.empty())
      return hop;
    const auto other = rerouted_.find(gpu);
    return other == rerouted_.end() ? hop : Hop{nic_place_[static_cast<size_t>(other->second)], hop.up};
  };
  add(link(na, up_[static_cast<size_t>(ka * 2)]), true);
  add(link(na, nic_hop(a, up_[static_cast<size_t>(ka * 2 + 1)])), true);
  if (cap_binds_)
    add(cap_, false);
  add(link(nb, nic_hop(b, down_[static_cast<size_t>(kb * 2)])), true);
  add(link(nb, down_[static_cast<size_t>(kb * 2 + 1)]), true);
}

} // namespace simgpt::platform_gen
