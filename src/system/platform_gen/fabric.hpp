// A node's intra-node fabric: the links joining its GPUs and the route between each pair.
#pragma once

#include "system/platform_gen/checked_spec.hpp"
#include "system/platform_gen/xml_writer.hpp"

#include <string>
#include <vector>

namespace simgpt::platform_gen {

// The fabric's own links in node `node` (its GPUs' PCIe links are declared apart: every fabric
// uses them on the way to a NIC).
std::vector<LinkDecl> fabric_links(const CheckedSpec& c, int node);

// The route from global GPU `a` to global GPU `b` of the same node.
std::vector<LinkUse> fabric_route(const CheckedSpec& c, int a, int b);

} // namespace simgpt::platform_gen
