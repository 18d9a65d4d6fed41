#include "system/platform_gen/s4u_platform.hpp"

#include "system/platform_gen/names.hpp"
#include "system/platform_gen/node_zone.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace simgpt::platform_gen {
namespace {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

// Every split-duplex link by name, as routes name them.
using Links = std::unordered_map<std::string, const sg4::SplitDuplexLink*>;

// What write_node_zone writes, made in one node's zone (over links made before it); sealed when
// closed.
class NodeZoneBuilder {
  sg4::NetZone* cluster_;
  const Links& links_;
  sg4::NetZone* zone_ = nullptr;
  std::unordered_map<std::string, NetPoint*> points_;

public:
  NodeZoneBuilder(sg4::NetZone* cluster, const Links& links) : cluster_(cluster), links_(links) {}

  NetPoint* gateway = nullptr;
  sg4::NetZone* zone() const { return zone_; }

  void open_zone(const std::string& id, const char*) {
    zone_ = sg4::create_full_zone(id);
    zone_->set_parent(cluster_);
  }
  void host(const std::string& id, const std::string& gpu, int node) {
    sg4::Host* h = zone_->create_host(id, "1Gf");
    h->set_property("gpu", gpu);
    h->set_property("node", std::to_string(node));
    h->seal();
    points_[id] = h->get_netpoint();
  }
  void router(const std::string& id) { points_[id] = gateway = zone_->create_router(id); }
  void route(const std::string& src, const std::string& dst, const std::vector<LinkUse>& hops) {
    std::vector<sg4::LinkInRoute> links;
    for (const LinkUse& hop : hops)
      links.emplace_back(links_.at(hop.link), std::strcmp(hop.direction, "UP") == 0
                                                  ? sg4::LinkInRoute::Direction::UP
                                                  : sg4::LinkInRoute::Direction::DOWN);
    zone_->add_route(points_.at(src), points_.at(dst), nullptr, nullptr, links, false);
  }
  void close_zone() { zone_->seal(); }
};

// A node's links, in the zone of all links.
void make_links(sg4::NetZone* zone, const std::vector<LinkDecl>& declared, Links& links) {
  for (const LinkDecl& l : declared) {
    sg4::SplitDuplexLink* link = zone->create_split_duplex_link(l.id, l.bandwidth);
    link->set_latency(l.latency);
    if (l.nic) { // on both halves too: a lookup of the split-duplex link by name walks every zone
      link->set_property("role", "nic");
      link->get_link_up()->set_property("role", "nic");
      link->get_link_down()->set_property("role", "nic");
    }
    link->seal();
    links[l.id] = link;
  }
}

} // namespace

void build_star_platform(const CheckedSpec& c) {
  sg4::NetZone* cluster = sg4::create_star_zone("cluster");
  // Every link is made first, in the cluster's first zone, as the XML form declares them: SimGrid
  // 3.32 checks a new link's name against every zone's, from the top zone down, so links made in
  // the node zones would cost a search through every node before them.
  sg4::NetZone* all = sg4::create_empty_zone("links");
  all->set_parent(cluster);
  Links links;
  for (int node = 0; node < c.spec.nodes; ++node)
    make_links(all, node_links(c, node), links);
  // The flow cap between nodes: a FATPIPE, which caps each flow without being shared; a route
  // between two nodes lists it going out of one and into the other, and SimGrid counts it once.
  sg4::Link* cap = all->create_link("flow-cap", c.flow_cap.text());
  cap->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
  cap->set_latency(0);
  cap->seal();
  all->seal();
  const std::vector<sg4::LinkInRoute> through_cap{sg4::LinkInRoute(cap)};
  for (int node = 0; node < c.spec.nodes; ++node) {
    NodeZoneBuilder builder(cluster, links);
    write_node_zone(builder, c, node);
    // To the switch and back: the star zone's route of this node, both ways.
    cluster->add_route(builder.zone()->get_netpoint(), nullptr, builder.gateway, nullptr, through_cap, true);
  }
  cluster->seal();
}

} // namespace simgpt::platform_gen
