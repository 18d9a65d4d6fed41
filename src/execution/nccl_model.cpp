#include "execution/nccl_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace simgpt {

namespace {

int idx(NcclAlgorithm a) { return static_cast<int>(a); }
int idx(NcclProtocol p) { return static_cast<int>(p); }
int idx(NcclHop h) { return static_cast<int>(h); }
int idx(NcclCpu c) { return static_cast<int>(c); }

bool two_phase(CollectiveKind k) { return k == CollectiveKind::allreduce; }
bool chain(CollectiveKind k) { return k == CollectiveKind::broadcast || k == CollectiveKind::reduce; }

// Ring steps of the call, and how many of them cross nodes (tuning.cc: nsteps, nInterSteps).
// An all-to-all (or a ring shift) is one step of concurrent sends and receives (NCCL's grouped point-to-point), across
// nodes when its group spans them.
int ring_steps_of(const CollectiveShape& s) {
  if (s.kind == CollectiveKind::all_to_all || s.kind == CollectiveKind::ring_shift)
    return 1;
  return two_phase(s.kind) ? 2 * (s.ranks - 1) : chain(s.kind) ? s.ranks : s.ranks - 1;
}
int inter_steps_of(const CollectiveShape& s) {
  if (s.kind == CollectiveKind::all_to_all || s.kind == CollectiveKind::ring_shift)
    return s.nodes > 1 ? 1 : 0;
  if (two_phase(s.kind))
    return s.nodes > 1 ? 2 * s.nodes : 0;
  return chain(s.kind) ? s.nodes : s.nodes - 1;
}

int floor_log2(double x) { return x < 2 ? 0 : static_cast<int>(std::floor(std::log2(x))); }

double ll_ceiling(const NcclTuning& t, const CollectiveShape& s) {
  if (s.nodes == 1)
    return t.ll_max_one_node_Bps[static_cast<int>(s.arch)];
  return (s.nodes == 2 ? t.ll_max_two_nodes_Bps : t.ll_max_more_nodes_Bps)[idx(s.cpu)];
}

// NCCL's algorithm bandwidth: the bus bandwidth over the bytes each rank's links carry per
// byte of buffer (ring: 2(n-1)/n for all-reduce; tree: 2, from both halves of the double tree),
// with the tree's correction for medium sizes.
double algorithm_bandwidth(const NcclTuning& t, const CollectiveShape& s, NcclAlgorithm a, NcclProtocol p,
                           double bytes) {
  const double bus = nccl_bus_bandwidth(t, s, a, p);
  if (a == NcclAlgorithm::ring)
    return bus * s.ranks / ring_steps_of(s);
  const int size = floor_log2(bytes / 64);
  const double correction = size < kNcclCorrectionSizes ? t.tree_correction[static_cast<size_t>(idx(p))][static_cast<size_t>(size)] : 1;
  return bus * 0.5 * correction;
}

} // namespace

NcclArch nccl_arch(double compute_capability) {
  return compute_capability >= 9 ? NcclArch::hopper : compute_capability >= 8 ? NcclArch::ampere : NcclArch::volta;
}

double nccl_latency(const NcclTuning& t, const CollectiveShape& s, NcclAlgorithm a, NcclProtocol p) {
  double latency = t.base_latency_s[idx(a)][idx(p)];
  // NCCL's per-hop latencies were measured on its usual fabrics; a step waits at least for its
  // route's own latency where the platform's is longer.
  double intra = std::max(t.hop_latency_s[idx(s.intra)][idx(a)][idx(p)], s.intra_wire_s);
  const double inter = std::max(t.hop_latency_s[idx(NcclHop::net)][idx(a)][idx(p)], s.inter_wire_s);
  if (a == NcclAlgorithm::tree) // up and down the tree: the chain inside a node, log2 of the nodes between
    return latency + 2 * ((s.ranks / s.nodes - 1) * intra + floor_log2(s.nodes) * inter);
  const int steps = ring_steps_of(s);
  if (chain(s.kind)) // a pipelined chain pays a hop per rank, of the slowest kind it crosses
    return latency + steps * (s.nodes > 1 ? inter : intra);
  // Across nodes every step waits for the host to post its network operations.
  if (s.nodes > 1)
    intra = std::max(intra, t.net_overhead_s[idx(s.cpu)] * (p == NcclProtocol::simple ? t.simple_net_posts : 1));
  const int crossing = inter_steps_of(s);
  // NCCL counts 2 x nodes crossing steps for an all-reduce: with one GPU a node that is more than
  // the ring's steps, whose rest (none) would count negative.
  return latency + std::max(0, steps - crossing) * intra + crossing * inter;
}

double nccl_bus_bandwidth(const NcclTuning& t, const CollectiveShape& s, NcclAlgorithm a, NcclProtocol p) {
  if (a == NcclAlgorithm::tree && s.kind != CollectiveKind::allreduce)
    return 0; // NCCL 2.18 runs trees for all-reduce only
  if (p == NcclProtocol::ll128 && s.intra != NcclHop::nvlink)
    return 0; // LL128 is enabled only over NVLink
  const double bus = s.bus_Bps;
  const double per_node = static_cast<double>(s.ranks) / s.nodes;
  if (a == NcclAlgorithm::ring) {
    switch (p) {
    case NcclProtocol::ll: {
      const bool quarter = s.nodes > 1 || s.kind == CollectiveKind::allreduce || s.kind == CollectiveKind::reduce;
      return std::min(ll_ceiling(t, s), bus * (quarter ? t.ring_ll : t.ring_ll_other));
    }
    case NcclProtocol::ll128: return bus * (per_node < 2 ? t.ring_ll128_one_gpu_per_node : t.ring_ll128);
    case NcclProtocol::simple: return bus;
    }
  }
  const double tree = bus * t.tree;
  switch (p) {
  case NcclProtocol::ll: return std::min(tree * t.tree_ll, ll_ceiling(t, s));
  case NcclProtocol::ll128: return tree * (s.nodes == 1 ? t.tree_ll128_one_node : t.tree_ll128);
  case NcclProtocol::simple: return tree;
  }
  return 0;
}

// NCCL picks the pair from its own tables (tuning.cc, ncclTopoGetAlgoTime) and the bandwidth its
// topology search detected: it knows the links' kinds and speeds, not a delay or a rate limit
// added on the wire (tc netem, a WAN), which then slow the chosen pair without moving the choice.
NcclChoice choose_nccl(const NcclTuning& t, const CollectiveShape& s, double bytes) {
  CollectiveShape tables = s;
  tables.intra_wire_s = tables.inter_wire_s = 0;
  if (s.detected_bus_Bps > 0)
    tables.bus_Bps = s.detected_bus_Bps;
  NcclChoice best;
  double best_tuned = std::numeric_limits<double>::infinity();
  const double simple_ring = algorithm_bandwidth(t, s, NcclAlgorithm::ring, NcclProtocol::simple, bytes);
  for (NcclAlgorithm a : {NcclAlgorithm::tree, NcclAlgorithm::ring})
    for (NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
      if (s.bus_Bps > 0 && nccl_bus_bandwidth(t, s, a, p) <= 0)
        continue;
      if (s.bus_Bps <= 0 && ((a == NcclAlgorithm::tree && s.kind != CollectiveKind::allreduce) ||
                             (p == NcclProtocol::ll128 && s.intra != NcclHop::nvlink)))
        continue;
      // Ring Simple all-reduce across nodes once each rank's share of a channel reaches 64 B.
      const bool plateau = a == NcclAlgorithm::ring && p == NcclProtocol::simple && s.nodes > 1 &&
                           two_phase(s.kind) && bytes / (std::max(1, s.channels) * s.ranks) >= 64;
      const double factor = plateau ? t.ring_plateau[s.arch == NcclArch::volta ? 0 : 1] : 1.0;
      const double hops = nccl_latency(t, tables, a, p); // NCCL's own per-hop figures, no wire
      const double tuned_latency = hops * factor;
      const double tuned_bandwidth = tables.bus_Bps > 0 ? algorithm_bandwidth(t, tables, a, p, bytes) : 0;
      const double tuned = tuned_latency + (tuned_bandwidth > 0 ? bytes / tuned_bandwidth : 0);
      if (tuned < best_tuned) {
        best_tuned = tuned;
        // What the pair costs on these links and wires: NCCL's latency (the plateau is its own
        // measured correction, of its software's steps) and what the wires' latency adds beyond
        // its hops.
        const double bandwidth = s.bus_Bps > 0 ? algorithm_bandwidth(t, s, a, p, bytes) : 0;
        const double latency = tuned_latency + (nccl_latency(t, s, a, p) - hops);
        best = {a, p, latency, latency + (bandwidth > 0 ? bytes / bandwidth : 0),
                bandwidth > 0 ? simple_ring / bandwidth : 1};
      }
    }
  return best;
}

} // namespace simgpt
