// `simgpt platform`: writes a SimGrid platform file for a cluster of GPU nodes, routed by zones
// so that its size grows with the nodes, not with the pairs of GPUs. Part of the system domain.
//
// The file has one zone per node (its GPUs, the intra-node fabric, one NIC per group of GPUs
// and a gateway router) inside a cluster-level network (a star through one switch, or a
// two-level fat tree), and keeps the conventions the simulator relies on (platforms/README.md):
// hosts gpu-0, gpu-1, ... with properties gpu and node (and cpu); split-duplex links; NIC links with
// property role=nic whose UP direction is the node's outgoing traffic.
#pragma once

#include "simgpt/core/enum_names.hpp"
#include "simgpt/system/platform.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace simgpt {

class GpuCatalog;

// How a node's GPUs reach each other.
enum class Fabric {
  nvlink_cube_mesh, // 8 GPUs, NVLink hybrid cube-mesh (DGX-1V, p3.16xlarge); other pairs via PCIe and the CPUs
  nvlink_mesh,      // a direct NVLink link between every pair
  nvswitch,         // one port per GPU into a non-blocking NVSwitch
  pcie,             // through PCIe and the host
};
inline constexpr EnumName<Fabric> kFabricNames[] = {{Fabric::nvlink_cube_mesh, "nvlink-cube-mesh"},
                                                   {Fabric::nvlink_mesh, "nvlink-mesh"},
                                                   {Fabric::nvswitch, "nvswitch"},
                                                   {Fabric::pcie, "pcie"}};
constexpr std::span<const EnumName<Fabric>> enum_names(Fabric) { return kFabricNames; }

struct NetworkTopology {
  enum class Kind { star, fat_tree } kind = Kind::star;
  int leaf_nodes = 0;          // fat tree: nodes under each leaf switch
  double oversubscription = 1; // fat tree: a leaf's downlink capacity over its uplink capacity
};

// A cluster to generate. Rates and delays are text as SimGrid reads it ("25GBps", "1us").
struct PlatformSpec {
  std::string preset; // the preset it starts from, named in the file's comment (empty: none)
  int nodes = 0;
  int gpus_per_node = 1;
  std::string gpu; // a model of platforms/gpus.yaml
  HostCpu cpu = HostCpu::unspecified; // written as each GPU host's `cpu` property when specified
  Fabric fabric = Fabric::pcie;
  std::string fabric_bandwidth, fabric_latency;     // per NVLink link, NVSwitch port, or PCIe link
  std::string pcie_bandwidth, pcie_latency;         // each GPU's PCIe link to its NIC (not with fabric pcie)
  std::string cpu_link_bandwidth, cpu_link_latency; // cube-mesh: the CPU socket interconnect
  int nics_per_node = 1;                            // GPU i of a node uses NIC i * nics / gpus
  std::string nic_bandwidth, nic_latency;
  std::string flow_cap; // the most one flow gets between nodes (AWS: 10Gbps); empty: a NIC's rate
  NetworkTopology topology;
};

// The options of `simgpt platform` that set a PlatformSpec field, by name ("nodes",
// "fabric-bandwidth", ...), with their help; presets use the same names with '_' for '-'.
struct PlatformOption {
  const char* name;
  const char* help;
};
const std::vector<PlatformOption>& platform_options();

// Sets one field from its option's text. Throws InputError naming `where` for an unknown name
// or a malformed value.
void set_platform_option(PlatformSpec& spec, const std::string& name, const std::string& value,
                         const std::string& where);

// A named preset of the first of `presets_files` that has it (DataPaths::presets(): each data
// folder's platforms/presets.yaml): a node's hardware, with its source. Throws InputError for an
// unknown name, listing the known ones of all files.
PlatformSpec load_platform_preset(const std::vector<std::string>& presets_files, const std::string& name);

// Every option the spec sets, by name, with its value as the option takes it, in the options' order.
std::vector<std::pair<std::string, std::string>> platform_option_values(const PlatformSpec& spec);

// The preset (if `preset` is not empty), then each option in order.
PlatformSpec platform_spec(const std::vector<std::string>& presets_files, const std::string& preset,
                           const std::vector<std::pair<std::string, std::string>>& options);

// The platform file's text. Throws InputError for an incomplete or inconsistent spec (naming the
// option), LimitError past 65536 GPUs or a file larger than simgpt reads (16 MiB).
std::string platform_xml(const PlatformSpec& spec, const GpuCatalog& catalog);

// A compact platform file (`simgpt platform -o NAME.yaml`): the spec written once, as
// `simgpt_platform:` and the options' values, its nodes built when simgpt loads it (through
// SimGrid's s4u API, in one zone that routes from the node's layout: system/platform_gen/
// s4u_platform, compact_zone) instead of listed GPU by GPU, so that its size does not grow with
// the nodes. Its nodes meet one switch (a star); the same cluster written as XML routes, and
// simulates, the same.
inline constexpr long kMaxCompactPlatformGpus = 131072;
// Whether `path` names a compact platform: it ends in .yaml or .yml.
bool is_compact_platform(const std::string& path);
// The file's text. Throws as platform_xml does, LimitError past kMaxCompactPlatformGpus, and
// InputError for a fat tree.
std::string compact_platform_yaml(const PlatformSpec& spec, const GpuCatalog& catalog);
// The spec a compact platform file gives. Throws InputError naming the file and key for a file
// that is not one (unknown keys, bad values).
PlatformSpec read_compact_platform(const std::string& path);
// The GPU count and model a platform file declares, without SimGrid: a compact file's spec, or
// an XML file's hosts gpu-0, gpu-1, ... (the first's `gpu` property).
struct PlatformGpus {
  int64_t count = 0;
  std::string model;
};
PlatformGpus read_platform_gpus(const std::string& path);

// Writes platform_xml to `path` (compact_platform_yaml when is_compact_platform), whole or not at
// all; returns a one-line summary for the user.
// Throws InputError, leaving `path` as it was, when it cannot be written or is one of `inputs`
// (the presets and GPU catalog it was made from).
std::string write_platform(const PlatformSpec& spec, const GpuCatalog& catalog, const std::string& path,
                           const std::vector<std::string>& inputs = {});

} // namespace simgpt
