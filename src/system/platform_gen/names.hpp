// The names of a generated platform's elements. Hosts, routers and zones share one namespace
// in SimGrid, and simgpt finds GPUs and NICs by these names and properties (platforms/README.md).
#pragma once

#include <string>

namespace simgpt::platform_gen {

inline std::string gpu_name(int gpu) { return "gpu-" + std::to_string(gpu); }
inline std::string pcie_name(int gpu) { return "pcie-" + std::to_string(gpu); }
inline std::string nic_name(int nic) { return "nic-" + std::to_string(nic); }
inline std::string node_zone_name(int node) { return "node-" + std::to_string(node); }
// The router through which a node's traffic leaves and enters its zone.
inline std::string gateway_name(int node) { return node_zone_name(node) + "-gw"; }
// A switch is a zone holding one router (a zone that holds zones cannot hold routers).
inline std::string switch_router_name(const std::string& zone) { return zone + "-router"; }

} // namespace simgpt::platform_gen
