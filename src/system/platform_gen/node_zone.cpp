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

void write_node_zone(XmlWriter& xml, const CheckedSpec& c, int node) {
  const int g = c.spec.gpus_per_node, first = node * g;
  xml.open_zone(node_zone_name(node), "Full");
  for (int i = 0; i < g; ++i)
    xml.host(gpu_name(first + i), c.spec.gpu, node);
  xml.router(gateway_name(node));
  for (int a = first; a < first + g; ++a)
    for (int b = first; b < first + g; ++b)
      if (a != b)
        xml.route(gpu_name(a), gpu_name(b), fabric_route(c, a, b));
  for (int i = 0; i < g; ++i) {
    const std::string nic = nic_name(node * c.spec.nics_per_node + c.nic_of(i));
    xml.route(gpu_name(first + i), gateway_name(node), {{pcie_name(first + i), "UP"}, {nic, "UP"}});
    xml.route(gateway_name(node), gpu_name(first + i), {{nic, "DOWN"}, {pcie_name(first + i), "DOWN"}});
  }
  xml.close_zone();
}

} // namespace simgpt::platform_gen
