// Whether SimGrid can route between GPU hosts, checked as SimGrid 3.32 builds a route through
// nested zones (NetZoneImpl::get_global_route_with_netzones): one hop in the zones' common
// ancestor between its two child zones that hold the hosts, then each host to or from that hop's
// gateway inside its child zone, recursively. A hop is missing when its zone throws (Floyd) or
// returns no link (Full: SimGrid 3.32 takes a missing route for a free, instant hop, so a route
// with one missing hop still has links and a simulation would run with a wrong number).
//
// Every pair of hosts below two sibling zones shares the hop between them, so the check asks each
// zone for the hop between each pair of its child zones that hold hosts, and each host for its
// legs to and from the hops' gateways: 3,072 GPUs in 384 nodes on one switch are 147,000 hops,
// not 9.4 million routes (a fat tree: pairs of pods, then pairs of nodes within each pod).
// Bypass routes are not followed: the platform check refuses them.
#pragma once

#include <string>
#include <vector>

namespace simgrid::s4u {
class Host;
} // namespace simgrid::s4u

namespace simgpt {

// Throws InputError naming `path` and the first pair (in the hosts' order) with no route in either
// direction, and the zone that lacks the hop.
void check_all_routes(const std::vector<simgrid::s4u::Host*>& hosts, const std::string& path);

// The same for the route from one host to another.
void check_route(simgrid::s4u::Host* from, simgrid::s4u::Host* to, const std::string& path);

} // namespace simgpt
