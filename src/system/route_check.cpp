#include "system/route_check.hpp"

#include "simgpt/core/error.hpp"
#include "system/platform_gen/compact_zone.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>

#include <exception>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace simgpt {
namespace {

using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::NetZoneImpl;
using simgrid::kernel::routing::Route;

// One zone's own routing step, NetZoneImpl::get_local_route, is protected: a pointer to it named
// through a derived class is the language's way to call it, so the check asks each zone exactly
// what SimGrid asks it rather than keeping a copy of its routing tables.
struct LocalRoute : NetZoneImpl {
  static Route of(NetZoneImpl& zone, const NetPoint* src, const NetPoint* dst) {
    Route route;
    (zone.*&LocalRoute::get_local_route)(src, dst, &route, nullptr);
    return route;
  }
};

struct PairHash {
  template <typename A, typename B>
  size_t operator()(const std::pair<A, B>& p) const {
    return std::hash<A>()(p.first) * 31 + std::hash<B>()(p.second);
  }
};

// The zones from a point's own zone up to the root.
std::vector<NetZoneImpl*> zones_above(const NetPoint* point) {
  std::vector<NetZoneImpl*> path;
  for (NetZoneImpl* zone = point->get_englobing_zone(); zone != nullptr; zone = zone->get_parent())
    path.push_back(zone);
  return path;
}

// SimGrid's find_common_ancestors: the lowest zone above both points, and its children on
// either side (the common zone itself on both when the points share a zone).
struct Ancestors {
  NetZoneImpl* common;
  NetZoneImpl* src;
  NetZoneImpl* dst;
};
Ancestors ancestors(const std::vector<NetZoneImpl*>& src, const std::vector<NetZoneImpl*>& dst) {
  if (src.front() == dst.front())
    return {src.front(), src.front(), src.front()};
  size_t i = src.size(); // src[i - 1] and dst[j - 1]: the zones compared, from the root down
  size_t j = dst.size();
  NetZoneImpl* parent = nullptr;
  while (i > 1 && j > 1 && src[i - 1] == dst[j - 1]) {
    parent = src[i - 1];
    --i;
    --j;
  }
  if (src[i - 1] == dst[j - 1])
    return {src[i - 1], src[i - 1], dst[j - 1]};
  return {parent, src[i - 1], dst[j - 1]};
}

std::string missing(const NetZoneImpl& zone, const NetPoint* from, const NetPoint* to) {
  return fmt::format("zone '{}' has no route from '{}' to '{}'", zone.get_name(), from->get_name(), to->get_name());
}

// The hop between two child zones of `common`: its gateways, or why there is none.
struct ZoneHop {
  NetPoint* gw_src = nullptr;
  NetPoint* gw_dst = nullptr;
  std::string failure;
};

class RouteCheck {
public:
  // Why SimGrid's route from `src` to `dst` would miss a hop; empty when every hop has links.
  const std::string& leg(const NetPoint* src, const NetPoint* dst) {
    static const std::string ok;
    if (src == dst)
      return ok;
    auto [at, fresh] = legs_.try_emplace({src, dst});
    std::string& why = at->second; // stays valid while find_leg adds legs; the iterator may not
    if (fresh)
      why = find_leg(src, dst);
    return why;
  }

  const ZoneHop& hop(NetZoneImpl& common, NetZoneImpl& src, NetZoneImpl& dst) {
    auto [at, fresh] = hops_.try_emplace({&src, &dst});
    if (fresh) {
      ZoneHop& h = at->second;
      try {
        const Route route = LocalRoute::of(common, src.get_netpoint(), dst.get_netpoint());
        h.gw_src = route.gw_src_;
        h.gw_dst = route.gw_dst_;
      } catch (const std::exception&) {
      }
      if (h.gw_src == nullptr || h.gw_dst == nullptr)
        h.failure = missing(common, src.get_netpoint(), dst.get_netpoint());
    }
    return at->second;
  }

private:
  std::string find_leg(const NetPoint* src, const NetPoint* dst) {
    const Ancestors a = ancestors(zones_above(src), zones_above(dst));
    if (a.src == a.dst) {
      bool links = false;
      try {
        links = !LocalRoute::of(*a.common, src, dst).link_list_.empty();
      } catch (const std::exception&) {
      }
      return links ? "" : missing(*a.common, src, dst);
    }
    const ZoneHop& h = hop(*a.common, *a.src, *a.dst);
    if (!h.failure.empty())
      return h.failure;
    if (const std::string& up = leg(src, h.gw_src); !up.empty())
      return up;
    return leg(h.gw_dst, dst);
  }

  std::unordered_map<std::pair<const NetPoint*, const NetPoint*>, std::string, PairHash> legs_;
  std::unordered_map<std::pair<const NetZoneImpl*, const NetZoneImpl*>, ZoneHop, PairHash> hops_;
};

[[noreturn]] void refuse(const std::string& path, const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                         const std::string& why) {
  throw InputError(path, fmt::format("no route from {} to {}: {} (add a <route> or <zoneRoute> with at least one link)",
                                     from->get_name(), to->get_name(), why));
}

// A zone that holds some of the hosts checked: those directly in it, those anywhere below it, and
// its child zones that hold some (indices into the list of such zones).
struct ZoneHosts {
  NetZoneImpl* zone = nullptr;
  std::vector<simgrid::s4u::Host*> own;
  std::vector<simgrid::s4u::Host*> below;
  std::vector<size_t> children;
};

// Every zone holding one of `hosts`, parents before children, in the order of their first host.
std::vector<ZoneHosts> zones_holding(const std::vector<simgrid::s4u::Host*>& hosts) {
  std::vector<ZoneHosts> zones;
  std::unordered_map<const NetZoneImpl*, size_t> index;
  for (simgrid::s4u::Host* host : hosts) {
    const std::vector<NetZoneImpl*> path = zones_above(host->get_netpoint());
    size_t parent = zones.size();
    for (auto zone = path.rbegin(); zone != path.rend(); ++zone) {
      auto [at, fresh] = index.try_emplace(*zone, zones.size());
      if (fresh) {
        zones.push_back(ZoneHosts{*zone, {}, {}, {}});
        if (parent < zones.size() - 1)
          zones[parent].children.push_back(at->second);
      }
      zones[at->second].below.push_back(host);
      parent = at->second;
    }
    zones[parent].own.push_back(host);
  }
  return zones;
}

// The pairs of `own` hosts to check in `zone`: every pair, or in a compact platform's zone, whose
// routes are the fabric's inside a node and otherwise one GPU's way out then the other's way in,
// every pair inside each node and each GPU to and from a GPU of another node: every link list
// the zone can give, in time linear in the GPUs.
template <typename Check>
void own_pairs(const NetZoneImpl& zone, const std::vector<simgrid::s4u::Host*>& own, Check check) {
  const auto* compact = dynamic_cast<const platform_gen::CompactZone*>(&zone);
  if (compact == nullptr) {
    for (simgrid::s4u::Host* a : own)
      for (simgrid::s4u::Host* b : own)
        check(a, b);
    return;
  }
  const auto node = [&](const simgrid::s4u::Host* h) {
    return compact->node_of(static_cast<int>(h->get_netpoint()->id()));
  };
  for (size_t i = 0; i < own.size(); ++i) {
    for (size_t j = i + 1; j < own.size() && node(own[j]) == node(own[i]); ++j) {
      check(own[i], own[j]);
      check(own[j], own[i]);
    }
    for (simgrid::s4u::Host* other : {own.front(), own.back()})
      if (node(other) != node(own[i])) {
        check(own[i], other);
        check(other, own[i]);
        break;
      }
  }
}

} // namespace

void check_all_routes(const std::vector<simgrid::s4u::Host*>& hosts, const std::string& path) {
  RouteCheck check;
  const std::vector<ZoneHosts> zones = zones_holding(hosts);
  // (zone, gateway) pairs checked: every host below the zone to the gateway, or from it.
  std::unordered_set<std::pair<size_t, const NetPoint*>, PairHash> reaches, reached;
  for (const ZoneHosts& z : zones) {
    own_pairs(*z.zone, z.own, [&](simgrid::s4u::Host* a, simgrid::s4u::Host* b) { // the zone's own routes
      if (const std::string& why = check.leg(a->get_netpoint(), b->get_netpoint()); !why.empty())
        refuse(path, a, b, why);
    });
    // Hosts below two child zones: one hop between the children, shared by every such pair, then
    // each host to or from the hop's gateway.
    for (size_t from : z.children)
      for (size_t to : z.children) {
        if (from == to)
          continue;
        const ZoneHosts& src = zones[from];
        const ZoneHosts& dst = zones[to];
        const ZoneHop& hop = check.hop(*z.zone, *src.zone, *dst.zone);
        if (!hop.failure.empty())
          refuse(path, src.below.front(), dst.below.front(), hop.failure);
        if (reaches.insert({from, hop.gw_src}).second)
          for (simgrid::s4u::Host* host : src.below)
            if (const std::string& why = check.leg(host->get_netpoint(), hop.gw_src); !why.empty())
              refuse(path, host, dst.below.front(), why);
        if (reached.insert({to, hop.gw_dst}).second)
          for (simgrid::s4u::Host* host : dst.below)
            if (const std::string& why = check.leg(hop.gw_dst, host->get_netpoint()); !why.empty())
              refuse(path, src.below.front(), host, why);
      }
  }
}

void check_route(simgrid::s4u::Host* from, simgrid::s4u::Host* to, const std::string& path) {
  RouteCheck check;
  if (const std::string& why = check.leg(from->get_netpoint(), to->get_netpoint()); !why.empty())
    refuse(path, from, to, why);
}

} // namespace simgpt
