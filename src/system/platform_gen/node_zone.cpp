#include "system/platform_gen/node_zone.hpp"

#include "system/platform_gen/fabric.hpp"
#include "system/platform_gen/names.hpp"

namespace simgpt::platform_gen {

std::vector<LinkDecl> node_links(const CheckedSpec& c, int node) {
  const int g = c.spec.gpus_per_node, nics = c.spec.nics_per_node;
  std::vector<LinkDecl> links;
  for (int i = 0; i < g; ++i)
    links.push_back({pcie_name(node * g + i), c.pcie_bandwidth.text(), c.pcie_latency.text()});
  for (int n = 0; n < nics; ++n)
    links.push_back({nic_name(node * nics + n), c.nic_bandwidth.text(), c.nic_latency.text(), true});
  for (LinkDecl& l : fabric_links(c, node))
    links.push_back(std::move(l));
  return links;
}

} // namespace simgpt::platform_gen
