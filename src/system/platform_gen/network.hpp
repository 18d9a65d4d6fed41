// The network between nodes: the cluster's top zone, holding the node zones and the switches
// that join them. Routing is by zones: a route between two nodes is found from the zone routes
// between each node and its switch (Floyd, computed once when SimGrid seals the platform), not
// listed for every pair of GPUs or nodes.
//
// Every zone route must hold a link (SimGrid refuses empty ones). A node's route into or out of
// its switch holds the flow-cap link: a FATPIPE, which caps each flow without being shared (AWS
// caps each TCP flow at 10 Gbps; without a cap, a flow through a switch is limited by a port's
// rate, the NIC's). A route between nodes lists it going in and coming out; SimGrid counts a
// FATPIPE link once per flow however often a route lists it. Its latency is 0: switch
// latencies are folded into the NICs', and a transfer's latency is the sum of the links inside
// the two nodes, added in route order as a route listed whole would add them.
//
// All links are declared in the top zone's first child, the zone `links`: SimGrid 3.32 looks a
// route's links up by name from the top zone down, zone by zone, so that links kept in their
// node's zone would cost a search through the nodes before it (quadratic in the nodes: 5 s for
// 384 DGX nodes).
#pragma once

#include "system/platform_gen/checked_spec.hpp"
#include "system/platform_gen/xml_writer.hpp"

namespace simgpt::platform_gen {

// Star: every node's gateway to one switch.
void write_star(XmlWriter& xml, const CheckedSpec& c);

// Two-level fat tree: leaf_nodes nodes under each leaf switch, every leaf joined to the spine by
// an uplink of the leaf's NIC capacity over the oversubscription. The spine's switches are
// pooled into one: a static route would pin each pair of leaves to one spine switch, where real
// fabrics spread flows over all of them.
void write_fat_tree(XmlWriter& xml, const CheckedSpec& c);

} // namespace simgpt::platform_gen
