#include "system/platform_gen/fabric.hpp"

#include "system/platform_gen/names.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace simgpt::platform_gen {
namespace {

// NVLinks between the 8 V100s of a DGX-1V or p3.16xlarge (hybrid cube-mesh, as `nvidia-smi topo
// -m` shows it on a p3.16xlarge; NVIDIA's DGX-1 with Tesla V100 system architecture whitepaper,
// figure 3): each GPU has 6 links; 0 means the pair goes through PCIe and the CPUs.
constexpr std::array<std::array<int, 8>, 8> kCubeMesh{{
    {0, 1, 1, 2, 2, 0, 0, 0},
    {1, 0, 2, 1, 0, 2, 0, 0},
    {1, 2, 0, 2, 0, 0, 1, 0},
    {2, 1, 2, 0, 0, 0, 0, 1},
    {2, 0, 0, 0, 0, 1, 1, 2},
    {0, 2, 0, 0, 1, 0, 2, 1},
    {0, 0, 1, 0, 1, 2, 0, 2},
    {0, 0, 0, 1, 2, 1, 2, 0},
}};

std::string nvlink_name(int a, int b) { return "nvlink-" + std::to_string(a) + "-" + std::to_string(b); }
std::string nvswitch_port_name(int gpu) { return "nvswitch-port-" + std::to_string(gpu); }
std::string cpu_link_name(int node) { return "sys-" + std::to_string(node); }

// Links between pairs of a node's GPUs: `count(a, b)` links' worth for each pair a < b that has any.
template <class Count>
void pair_links(const CheckedSpec& c, int node, Count count, std::vector<LinkDecl>& out) {
  const int g = c.spec.gpus_per_node, first = node * g;
  for (int a = 0; a < g; ++a)
    for (int b = a + 1; b < g; ++b)
      if (const int n = count(a, b); n > 0)
        out.push_back({nvlink_name(first + a, first + b), c.fabric_bandwidth.times(n).text(),
                       c.fabric_latency.text()});
}

// A pair's own link: a -> b is its UP direction when a < b.
std::vector<LinkUse> pair_link(int a, int b) {
  return {{nvlink_name(std::min(a, b), std::max(a, b)), a < b ? "UP" : "DOWN"}};
}

} // namespace

std::vector<LinkDecl> fabric_links(const CheckedSpec& c, int node) {
  std::vector<LinkDecl> out;
  const int g = c.spec.gpus_per_node;
  switch (c.spec.fabric) {
  case Fabric::nvlink_cube_mesh:
    out.push_back({cpu_link_name(node), c.cpu_link_bandwidth.text(), c.cpu_link_latency.text()});
    pair_links(c, node, [](int a, int b) { return kCubeMesh[a][b]; }, out);
    break;
  case Fabric::nvlink_mesh:
    pair_links(c, node, [](int, int) { return 1; }, out);
    break;
  case Fabric::nvswitch:
    for (int i = 0; i < g; ++i)
      out.push_back({nvswitch_port_name(node * g + i), c.fabric_bandwidth.text(), c.fabric_latency.text()});
    break;
  case Fabric::pcie: // the GPUs' PCIe links, declared with the node
    break;
  }
  return out;
}

std::vector<LinkUse> fabric_route(const CheckedSpec& c, int a, int b) {
  const int g = c.spec.gpus_per_node;
  switch (c.spec.fabric) {
  case Fabric::nvlink_cube_mesh:
    if (kCubeMesh[a % g][b % g] > 0)
      return pair_link(a, b);
    // No NVLink: up one GPU's PCIe, across the CPU sockets, down the other's.
    return {{pcie_name(a), "UP"}, {cpu_link_name(a / g), a < b ? "UP" : "DOWN"}, {pcie_name(b), "DOWN"}};
  case Fabric::nvlink_mesh:
    return pair_link(a, b);
  case Fabric::nvswitch:
    return {{nvswitch_port_name(a), "UP"}, {nvswitch_port_name(b), "DOWN"}};
  case Fabric::pcie:
    break;
  }
  return {{pcie_name(a), "UP"}, {pcie_name(b), "DOWN"}};
}

} // namespace simgpt::platform_gen
