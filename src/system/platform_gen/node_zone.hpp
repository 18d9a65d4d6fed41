// One node as a zone of its own: its GPUs, a gateway router through which its traffic to other
// nodes leaves and enters, and the routes between them over the node's links (its GPUs' PCIe
// links, its NICs, the fabric between its GPUs).
#pragma once

#include "system/platform_gen/checked_spec.hpp"
#include "system/platform_gen/fabric.hpp"
#include "system/platform_gen/names.hpp"
#include "system/platform_gen/xml_writer.hpp"

#include <vector>

namespace simgpt::platform_gen {

// The node's links, PCIe links first (tests edit the file's first link, pcie-0).
std::vector<LinkDecl> node_links(const CheckedSpec& c, int node);

// The zone, whose routes use node_links declared before it: every pair of its GPUs over the
// fabric; each GPU to the gateway (its PCIe link UP, its NIC UP: the node's outgoing direction,
// where the network what-if applies) and back (the NIC DOWN, the PCIe link DOWN). A route whose
// reverse is its links backwards, each in its other direction, is written once, symmetrical:
// every route here is, which halves the routes SimGrid parses (Megatron 1T's 384-node file:
// 6.1 MB to 3.8 MB). `Zone` writes it: an XmlWriter, with open_zone, host, router, route and
// close_zone.
template <class Zone>
void write_node_zone(Zone& zone, const CheckedSpec& c, int node) {
  const int g = c.spec.gpus_per_node, first = node * g;
  zone.open_zone(node_zone_name(node), "Full");
  for (int i = 0; i < g; ++i)
    zone.host(gpu_name(first + i), c.spec.gpu, c.spec.cpu, node);
  zone.router(gateway_name(node));
  for (int a = first; a < first + g; ++a)
    for (int b = first; b < first + g; ++b) {
      if (a == b)
        continue;
      const std::vector<LinkUse> there = fabric_route(c, a, b);
      const bool symmetrical = reversed(there) == fabric_route(c, b, a);
      if (a < b || !symmetrical)
        zone.route(gpu_name(a), gpu_name(b), there, symmetrical);
    }
  for (int i = 0; i < g; ++i) {
    const std::string nic = nic_name(node * c.spec.nics_per_node + c.nic_of(i));
    zone.route(gpu_name(first + i), gateway_name(node), {{pcie_name(first + i), "UP"}, {nic, "UP"}}, true);
  }
  zone.close_zone();
}

} // namespace simgpt::platform_gen
