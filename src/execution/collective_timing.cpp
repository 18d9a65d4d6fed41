#include "execution/collective_timing.hpp"

#include "system/kernel_table.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

namespace simgpt {

double ring_hop_latency(const Topology& topology, const std::vector<Ring>& rings) {
  double latency = 0;
  for (const Ring& r : rings)
    for (size_t i = 0; i < r.gpus.size(); ++i)
      latency = std::max(latency, topology.route_latency(r.gpus[i], r.gpus[(i + 1) % r.gpus.size()]));
  return latency;
}

CollectiveShape collective_shape(const Topology& topology, const std::vector<Ring>& rings, CollectiveKind kind) {
  CollectiveShape s;
  s.kind = kind;
  const std::vector<int>& members = rings.front().gpus;
  s.ranks = static_cast<int>(members.size());
  std::set<int> nodes;
  double capability = std::numeric_limits<double>::infinity();
  for (int gpu : members) {
    nodes.insert(topology.node_of(gpu));
    capability = std::min(capability, topology.compute_capability(gpu));
  }
  s.nodes = static_cast<int>(nodes.size());
  s.arch = nccl_arch(capability); // NCCL tunes for the oldest GPU of the communicator
  // Each rank tunes with its own host's CPU (ncclTopoCpuType); a group's nodes are taken alike.
  s.cpu = topology.host_cpu(members.front()) == HostCpu::amd ? NcclCpu::amd : NcclCpu::other;
  s.channels = static_cast<int>(rings.size());
  // The Simple ring's bus bandwidth: each ring runs at its slowest hop and carries its share, so
  // the collective's is the least of rate / share over the rings (the rings' summed rate when
  // shares follow rates). Only NCCL's choice of protocol reads it; the flows time the bytes.
  s.bus_Bps = s.detected_bus_Bps = std::numeric_limits<double>::infinity();
  for (const Ring& r : rings) {
    double slowest = std::numeric_limits<double>::infinity(), detected = slowest;
    for (size_t i = 0; i < r.gpus.size(); ++i) {
      const int a = r.gpus[i], b = r.gpus[(i + 1) % r.gpus.size()];
      slowest = std::min(slowest, topology.route_bandwidth(a, b));
      detected = std::min(detected, topology.route_detected_bandwidth(a, b));
      const bool same_node = topology.node_of(a) == topology.node_of(b);
      if (same_node && topology.route_over_pcie(a, b))
        s.intra = NcclHop::pci;
      double& wire = same_node ? s.intra_wire_s : s.inter_wire_s;
      wire = std::max(wire, topology.route_latency(a, b));
    }
    s.bus_Bps = std::min(s.bus_Bps, slowest / std::max(r.share, 1e-9));
    s.detected_bus_Bps = std::min(s.detected_bus_Bps, detected / std::max(r.share, 1e-9));
  }
  if (!(s.bus_Bps < std::numeric_limits<double>::infinity()))
    s.bus_Bps = 0;
  if (!(s.detected_bus_Bps < std::numeric_limits<double>::infinity()))
    s.detected_bus_Bps = 0;
  return s;
}

namespace {

const char* table_op(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::allgather: return "all_gather";
  case CollectiveKind::reduce_scatter: return "reduce_scatter";
  case CollectiveKind::allreduce: return "all_reduce";
  case CollectiveKind::all_to_all: return "all_to_all";
  default: return nullptr;
  }
}

// A collective whose GPUs' kernel table holds its line (KernelTable::CollectiveLine): NCCL over
// one node's NVLink as measured on that GPU, in place of NCCL's own tuning model, whose latency
// counts a call's hops but not what its medium sizes fall short of the bus bandwidth by (the
// nccl-tests-ndv4 table: 17-33% too fast from 2 to 32 MB on one A100 node). The flows carry the
// bytes at the measured bus bandwidth where the links run at the rate NCCL detects (a
// network.bandwidth what-if slows them as it does any flow), and the exit adds the line's call
// and steps beyond the route latency the flows pay; a step waits at least for the route's own
// latency where the platform's is longer (network.delay), as in nccl_latency. `hop`: the route
// latency the flows pay (ring_hop_latency).
std::optional<CollectiveTiming> measured_timing(const Profile& profile, const Topology& topology,
                                                const std::vector<Ring>& rings, CollectiveKind kind, double bytes,
                                                double hop) {
  const char* op = table_op(kind);
  const std::vector<int>& members = rings.front().gpus;
  const KernelTable* table = topology.kernel_table(members.front());
  if (!op || !table || !profile.nccl.loaded())
    return std::nullopt;
  for (int gpu : members)
    if (topology.kernel_table(gpu) != table)
      return std::nullopt;
  const int n = static_cast<int>(members.size());
  const KernelTable::CollectiveLine* line = table->collective(op, n);
  if (!line || bytes < line->from_bytes)
    return std::nullopt;
  const CollectiveShape shape = collective_shape(topology, rings, kind);
  if (shape.nodes != 1 || shape.intra != NcclHop::nvlink || !(shape.detected_bus_Bps > 0))
    return std::nullopt;
  double payload = std::numeric_limits<double>::infinity();
  for (const Ring& r : rings)
    for (size_t i = 0; i < r.gpus.size(); ++i)
      payload = std::min(payload, topology.route_payload_factor(r.gpus[i], r.gpus[(i + 1) % r.gpus.size()]));
  // The line's steps are a ring's, the all-to-all's n - 1 sends among them (KernelTable::CollectiveLine),
  // not the one step NCCL's latency model gives a grouped send (ring_steps).
  const int steps = kind == CollectiveKind::allreduce ? 2 * (n - 1) : n - 1;
  CollectiveTiming timing;
  timing.from_table = true;
  timing.byte_factor = payload * shape.detected_bus_Bps / line->bus_Bps;
  timing.exit_latency_s = std::max(0.0, line->call_s + steps * std::max(line->step_s, shape.intra_wire_s) - hop);
  return timing;
}

} // namespace

CollectiveTiming collective_timing(const Profile& profile, const Topology& topology, const std::vector<Ring>& rings,
                                   CollectiveKind kind, double bytes, bool library) {
  CollectiveTiming timing;
  const int n = rings.empty() ? 0 : static_cast<int>(rings.front().gpus.size());
  if (n < 2)
    return timing;
  const double hop = ring_hop_latency(topology, rings);
  if (library)
    if (std::optional<CollectiveTiming> measured = measured_timing(profile, topology, rings, kind, bytes, hop))
      return *measured;
  if (!profile.nccl.loaded()) {
    timing.exit_latency_s = (ring_steps(kind, n) - 1) * (hop + profile.collective_step_overhead_s);
    return timing;
  }
  if (kind == CollectiveKind::all_to_all || kind == CollectiveKind::ring_shift) {
    // Point-to-point operations are outside NCCL's collective tuning (tuning.cc prices collectives
    // only); their sends run the Simple protocol past NCCL_P2P_LL_THRESHOLD (16 KiB, src/enqueue.cc),
    // so one ring step of Simple stands for the call's latency, and the flows carry its bytes as
    // they are.
    const CollectiveShape shape = collective_shape(topology, rings, kind);
    timing.exit_latency_s =
        std::max(0.0, nccl_latency(profile.nccl, shape, NcclAlgorithm::ring, NcclProtocol::simple) - hop);
    return timing;
  }
  const NcclChoice choice = choose_nccl(profile.nccl, collective_shape(topology, rings, kind), bytes);
  // NCCL's latency counts every hop; the flows already paid one route's latency.
  timing.exit_latency_s = std::max(0.0, choice.latency_s - hop);
  timing.byte_factor = choice.byte_factor;
  return timing;
}

std::vector<Ring> library_rings(std::vector<Ring> rings, const NcclTuning& library) {
  const auto most = static_cast<size_t>(library.ring_channels);
  if (most == 0 || rings.size() <= most)
    return rings;
  rings.resize(most);
  double kept = 0;
  for (const Ring& r : rings)
    kept += r.share;
  for (Ring& r : rings)
    r.share /= kept;
  return rings;
}

GroupRings group_rings(const Profile& profile, const Topology& topology, const std::vector<int>& gpus) {
  GroupRings group{library_rings(topology.rings(gpus), profile.nccl), 0};
  for (const Ring& r : group.rings)
    for (size_t i = 0; i < r.gpus.size(); ++i)
      group.step_latency = std::max(group.step_latency, topology.route_latency(r.gpus[i], r.gpus[(i + 1) % r.gpus.size()]));
  group.step_latency += profile.collective_step_overhead_s;
  return group;
}

} // namespace simgpt
