#include "system/platform_gen/network.hpp"

#include "system/platform_gen/names.hpp"
#include "system/platform_gen/node_zone.hpp"

#include <algorithm>

namespace simgpt::platform_gen {
namespace {

const char* const kFlowCap = "flow-cap";

std::string leaf_name(int leaf) { return "leaf-" + std::to_string(leaf); }
std::string pod_name(int leaf) { return "pod-" + std::to_string(leaf); }
std::string uplink_name(int leaf) { return "uplink-" + std::to_string(leaf); }

// The zone of all links: every node's, then the network's.
void links_zone(XmlWriter& xml, const CheckedSpec& c, const std::vector<LinkDecl>& network) {
  xml.open_zone("links", "None");
  for (int node = 0; node < c.spec.nodes; ++node)
    for (const LinkDecl& l : node_links(c, node))
      xml.link(l);
  xml.fatpipe(kFlowCap, c.flow_cap.text());
  for (const LinkDecl& l : network)
    xml.link(l);
  xml.close_zone();
}

void switch_zone(XmlWriter& xml, const std::string& name) {
  xml.open_zone(name, "Full");
  xml.router(switch_router_name(name));
  xml.close_zone();
}

// Routes both ways between a zone and a switch zone through the zone's gateway.
void attach(XmlWriter& xml, const std::string& zone, const std::string& gateway, const std::string& to_switch,
            const std::vector<LinkUse>& up, const std::vector<LinkUse>& down) {
  const std::string router = switch_router_name(to_switch);
  xml.zone_route(zone, to_switch, gateway, router, up);
  xml.zone_route(to_switch, zone, router, gateway, down);
}

// Nodes [first, last), their switch and the routes between them, inside the caller's zone.
void nodes_on_switch(XmlWriter& xml, const CheckedSpec& c, int first, int last, const std::string& switch_name) {
  for (int node = first; node < last; ++node)
    write_node_zone(xml, c, node);
  switch_zone(xml, switch_name);
  const std::vector<LinkUse> cap{{kFlowCap, nullptr}};
  for (int node = first; node < last; ++node)
    attach(xml, node_zone_name(node), gateway_name(node), switch_name, cap, cap);
}

} // namespace

void write_star(XmlWriter& xml, const CheckedSpec& c) {
  xml.open_zone("cluster", "Floyd");
  links_zone(xml, c, {});
  nodes_on_switch(xml, c, 0, c.spec.nodes, "switch");
  xml.close_zone();
}

void write_fat_tree(XmlWriter& xml, const CheckedSpec& c) {
  const int per_leaf = c.spec.topology.leaf_nodes;
  const int leaves = (c.spec.nodes + per_leaf - 1) / per_leaf;
  // Every leaf switch is alike, its uplinks sized for a full leaf's NICs.
  const double nics_per_leaf = static_cast<double>(per_leaf) * c.spec.nics_per_node;
  const std::string uplink = c.nic_bandwidth.times(nics_per_leaf / c.spec.topology.oversubscription).text();
  std::vector<LinkDecl> uplinks;
  for (int leaf = 0; leaf < leaves; ++leaf)
    uplinks.push_back({uplink_name(leaf), uplink, "0"});
  xml.open_zone("cluster", "Floyd");
  links_zone(xml, c, uplinks);
  for (int leaf = 0; leaf < leaves; ++leaf) {
    xml.open_zone(pod_name(leaf), "Floyd");
    nodes_on_switch(xml, c, leaf * per_leaf, std::min(c.spec.nodes, (leaf + 1) * per_leaf), leaf_name(leaf));
    xml.close_zone();
  }
  switch_zone(xml, "spine");
  for (int leaf = 0; leaf < leaves; ++leaf)
    attach(xml, pod_name(leaf), switch_router_name(leaf_name(leaf)), "spine", {{uplink_name(leaf), "UP"}},
           {{uplink_name(leaf), "DOWN"}});
  xml.close_zone();
}

} // namespace simgpt::platform_gen
