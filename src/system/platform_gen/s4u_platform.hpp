// A compact platform built in SimGrid through its s4u API: the zones, hosts, links and routes
// that the XML form lists (write_star), made in the engine directly from the spec. The top zone
// is SimGrid's star zone: a route between two nodes is the source node's way to the switch and
// the destination's way from it, found without a route table over the nodes.
#pragma once

#include "system/platform_gen/checked_spec.hpp"

namespace simgpt::platform_gen {

// Builds the cluster in the current SimGrid engine (created, not yet loaded). The node zones,
// hosts and links are named as write_star names them, so routes and results are the same.
void build_star_platform(const CheckedSpec& c);

} // namespace simgpt::platform_gen
