// A compact platform built in SimGrid through its s4u API: the hosts and links that the XML form
// lists (write_star), made in the engine directly from the spec, in one zone that computes each
// route from the node's layout (CompactZone) where the XML form keeps a zone per node.
#pragma once

#include "system/platform_gen/checked_spec.hpp"

#include <string>
#include <vector>

namespace simgpt::platform_gen {

// Builds the cluster in the current SimGrid engine (created, not yet loaded). The hosts and
// links are named as write_star names them, and routed over the same links, so results are the
// same. The NICs named in `down` (nic-K) are out of service: each of their GPUs sends and
// receives through the nearest NIC of its node that is up (CompactZone::route_around).
void build_compact_platform(const CheckedSpec& c, const std::vector<std::string>& down = {});

} // namespace simgpt::platform_gen
