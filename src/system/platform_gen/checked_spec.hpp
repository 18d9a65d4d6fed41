// A PlatformSpec checked whole: every value the chosen fabric and topology need is present and
// well-formed, and rates and delays are split into number and unit for the file.
#pragma once

#include "simgpt/system/platform_generator.hpp"
#include "system/platform_gen/quantity_text.hpp"

namespace simgpt::platform_gen {

struct CheckedSpec {
  PlatformSpec spec;
  QuantityText fabric_bandwidth, fabric_latency;
  QuantityText pcie_bandwidth, pcie_latency; // the fabric's own with --fabric pcie
  QuantityText cpu_link_bandwidth, cpu_link_latency; // nvlink-cube-mesh only
  QuantityText nic_bandwidth, nic_latency;
  QuantityText flow_cap; // the NIC's rate when the spec sets none

  int gpus() const { return spec.nodes * spec.gpus_per_node; }
  // The node-local index of the NIC that a node's GPU `local` uses: rail-optimised servers
  // (DGX, HGX) pair GPU i with NIC i * nics / gpus.
  int nic_of(int local) const { return local * spec.nics_per_node / spec.gpus_per_node; }
};

// How the platform is written: listed GPU by GPU in an XML file, or compact (a star whose nodes
// simgpt builds when it loads the file: no Floyd routing, so no bound on the nodes on its switch).
enum class PlatformForm { xml, compact };

// Throws InputError naming the option that is missing or inconsistent (a fat tree in compact
// form among them), LimitError past kMaxPlatformGpus GPUs (kMaxCompactPlatformGpus compact).
CheckedSpec check_spec(const PlatformSpec& spec, const GpuCatalog& catalog, PlatformForm form = PlatformForm::xml);

// The README's limit on the GPUs of one job: a larger platform could not be used whole.
inline constexpr long kMaxPlatformGpus = 65536;

// Zones joined on one switch (nodes on a star or a leaf, leaves on the spine). SimGrid's Floyd
// routing takes time growing with their cube when it loads the file: 1024 nodes of one GPU
// load in 0.9 s, 2048 in 5.6 s (2-core machine, SimGrid 3.32).
inline constexpr int kMaxZonesPerSwitch = 1024;

} // namespace simgpt::platform_gen
