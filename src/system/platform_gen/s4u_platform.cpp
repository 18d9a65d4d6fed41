#include "system/platform_gen/s4u_platform.hpp"

#include "system/platform_gen/compact_zone.hpp"
#include "system/platform_gen/names.hpp"
#include "system/platform_gen/node_zone.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <charconv>
#include <string>
#include <utility>
#include <vector>

namespace simgpt::platform_gen {

void build_compact_platform(const CheckedSpec& c, const std::vector<std::string>& down) {
  namespace sg4 = simgrid::s4u;
  // The first zone made is the root; SimGrid's engine owns and deletes it.
  auto* zone = new CompactZone("cluster", c);
  sg4::NetZone* cluster = zone->get_iface();
  double nic_bandwidth = 0; // every NIC's, as SimGrid parsed it
  for (int node = 0; node < c.spec.nodes; ++node) {
    std::vector<std::pair<sg4::Link*, sg4::Link*>> halves;
    for (const LinkDecl& l : node_links(c, node)) {
      sg4::SplitDuplexLink* link = cluster->create_split_duplex_link(l.id, l.bandwidth);
      link->set_latency(l.latency);
      if (l.nic) {
        link->set_property("role", "nic");
        nic_bandwidth = link->get_link_up()->get_bandwidth();
      }
      link->seal();
      halves.emplace_back(link->get_link_up(), link->get_link_down());
    }
    zone->add_node_links(std::move(halves));
  }
  // The flow cap between nodes: a FATPIPE, which caps each flow without being shared.
  sg4::Link* cap = cluster->create_link("flow-cap", c.flow_cap.text());
  cap->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
  cap->set_latency(0);
  cap->seal();
  zone->set_flow_cap(cap, nic_bandwidth);
  for (const std::string& name : down)
    if (name.starts_with("nic-")) {
      const std::string number = name.substr(4);
      int nic = -1;
      const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), nic);
      if (ec == std::errc() && end == number.data() + number.size() && nic >= 0 &&
          nic < c.spec.nodes * c.spec.nics_per_node)
        zone->route_around(nic);
    }
  // Hosts in GPU order, so that a host's netpoint id in the zone is its GPU.
  const int g = c.spec.gpus_per_node;
  for (int node = 0; node < c.spec.nodes; ++node)
    for (int i = 0; i < g; ++i) {
      sg4::Host* h = cluster->create_host(gpu_name(node * g + i), "1Gf");
      h->set_property("gpu", c.spec.gpu);
      if (c.spec.cpu != HostCpu::unspecified)
        h->set_property("cpu", name_of(c.spec.cpu));
      h->set_property("node", std::to_string(node));
    }
}

} // namespace simgpt::platform_gen
