// One node as a zone of its own: its GPUs, a gateway router through which its traffic to other
// nodes leaves and enters, and the routes between them over the node's links (its GPUs' PCIe
// links, its NICs, the fabric between its GPUs).
#pragma once

#include "system/platform_gen/checked_spec.hpp"
#include "system/platform_gen/xml_writer.hpp"

#include <vector>

namespace simgpt::platform_gen {

// The node's links, PCIe links first (tests edit the file's first link, pcie-0).
std::vector<LinkDecl> node_links(const CheckedSpec& c, int node);

// The zone, whose routes use node_links declared before it: every ordered pair of its GPUs over
// the fabric; each GPU to the gateway (its PCIe link UP, its NIC UP: the node's outgoing
// direction, where the network what-if applies) and back (the NIC DOWN, the PCIe link DOWN).
void write_node_zone(XmlWriter& xml, const CheckedSpec& c, int node);

} // namespace simgpt::platform_gen
