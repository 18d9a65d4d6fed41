#include "system/platform_gen/checked_spec.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/system/gpu.hpp"
#include "core/units.hpp"
#include "workload/workload_limits.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace simgpt::platform_gen {
namespace {

// A value the generator needs: missing, it names the option and an example.
const std::string& required(const std::string& value, const char* option, const char* example) {
  if (value.empty())
    throw InputError(fmt::format("--{}", option), fmt::format("is required (e.g. {}, or use --preset)", example));
  return value;
}

void check_counts(const PlatformSpec& s, PlatformForm form) {
  if (s.nodes < 1)
    throw InputError("--nodes", "is required (the number of nodes, e.g. 4)");
  const long limit = form == PlatformForm::compact ? kMaxCompactPlatformGpus : kMaxPlatformGpus;
  if (static_cast<long>(s.nodes) * s.gpus_per_node > limit)
    throw LimitError("--nodes", fmt::format("{} nodes x {} GPUs exceed the limit of {} GPUs{}", s.nodes,
                                            s.gpus_per_node, limit,
                                            form == PlatformForm::compact ? "" : " of a platform file listed GPU by GPU (a compact one, -o NAME.yaml, holds more)"));
  if (s.nics_per_node > s.gpus_per_node)
    throw InputError("--nics-per-node", fmt::format("{} NICs for {} GPUs: at most one NIC per GPU (a GPU uses one NIC)",
                                                    s.nics_per_node, s.gpus_per_node));
  if (s.fabric == Fabric::nvlink_cube_mesh && s.gpus_per_node != 8)
    throw InputError("--fabric nvlink-cube-mesh", fmt::format("needs 8 GPUs per node (DGX-1's hybrid cube-mesh), "
                                                              "not {}; use nvlink-mesh or nvswitch",
                                                              s.gpus_per_node));
}

void check_topology(const PlatformSpec& s, PlatformForm form) {
  const NetworkTopology& t = s.topology;
  if (form == PlatformForm::compact) {
    if (t.kind != NetworkTopology::Kind::star)
      throw InputError("--topology", "a compact platform (-o NAME.yaml) joins its nodes on one switch: use --topology "
                                     "star, or write the fat tree as XML (-o NAME.xml)");
    return;
  }
  int widest = s.nodes; // zones on one switch
  if (t.kind == NetworkTopology::Kind::fat_tree) {
    if (t.leaf_nodes < 1 || !(t.oversubscription >= 1))
      throw InputError("--topology", "a fat tree needs at least 1 node per leaf and an oversubscription of at least 1");
    widest = std::max(std::min(t.leaf_nodes, s.nodes), (s.nodes + t.leaf_nodes - 1) / t.leaf_nodes);
  }
  if (widest > kMaxZonesPerSwitch)
    throw LimitError("--topology", fmt::format("{} nodes or leaves on one switch: at most {} (SimGrid's routing "
                                               "between them loads in time growing with their cube); use "
                                               "--topology fat-tree:LEAF_NODES with about the square root of {}",
                                               widest, kMaxZonesPerSwitch, s.nodes));
}

// Some links carry a multiple of an option's rate (a cube-mesh pair's double NVLink, a leaf's
// uplinks sized for its NICs): within the bounds of every link, or the file would not load.
void check_link_multiples(const CheckedSpec& c) {
  // Each rate was parsed once already: its text parses again.
  if (c.spec.fabric == Fabric::nvlink_cube_mesh)
    check_bandwidth(2 * parse_bandwidth(c.fabric_bandwidth.text()), "--fabric-bandwidth (twice it: a pair's double "
                                                                     "NVLink)");
  const NetworkTopology& t = c.spec.topology;
  if (t.kind == NetworkTopology::Kind::fat_tree) {
    const double nics_per_leaf = static_cast<double>(t.leaf_nodes) * c.spec.nics_per_node;
    check_bandwidth(parse_bandwidth(c.nic_bandwidth.text()) * nics_per_leaf / t.oversubscription,
                    "--nic-bandwidth (times a leaf's NICs over the oversubscription: its uplink)");
  }
}

} // namespace

CheckedSpec check_spec(const PlatformSpec& s, const GpuCatalog& catalog, PlatformForm form) {
  check_counts(s, form);
  check_topology(s, form);
  catalog.at(required(s.gpu, "gpu", "V100-SXM2-16GB"), "--gpu");
  CheckedSpec c{s, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  c.fabric_bandwidth = bandwidth_text(required(s.fabric_bandwidth, "fabric-bandwidth", "25GBps"), "--fabric-bandwidth");
  c.fabric_latency = delay_text(required(s.fabric_latency, "fabric-latency", "1us"), "--fabric-latency");
  if (s.fabric == Fabric::pcie) {
    c.pcie_bandwidth = c.fabric_bandwidth;
    c.pcie_latency = c.fabric_latency;
  } else {
    c.pcie_bandwidth = bandwidth_text(required(s.pcie_bandwidth, "pcie-bandwidth", "12GBps"), "--pcie-bandwidth");
    c.pcie_latency = delay_text(required(s.pcie_latency, "pcie-latency", "1us"), "--pcie-latency");
  }
  if (s.fabric == Fabric::nvlink_cube_mesh) {
    c.cpu_link_bandwidth =
        bandwidth_text(required(s.cpu_link_bandwidth, "cpu-link-bandwidth", "20GBps"), "--cpu-link-bandwidth");
    c.cpu_link_latency = delay_text(required(s.cpu_link_latency, "cpu-link-latency", "1us"), "--cpu-link-latency");
  }
  c.nic_bandwidth = bandwidth_text(required(s.nic_bandwidth, "nic-bandwidth", "25Gbps"), "--nic-bandwidth");
  c.nic_latency = delay_text(required(s.nic_latency, "nic-latency", "25us"), "--nic-latency");
  c.flow_cap = s.flow_cap.empty() ? c.nic_bandwidth : bandwidth_text(s.flow_cap, "--flow-cap");
  check_link_multiples(c);
  return c;
}

} // namespace simgpt::platform_gen
