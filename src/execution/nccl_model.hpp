// How NCCL prices one collective call, and which algorithm and protocol it therefore runs: the
// sums of NCCL 2.18.3's own tuning model (NVIDIA/nccl v2.18.3-1, src/graph/tuning.cc,
// ncclTopoTuneModel and ncclTopoGetAlgoTime), applied to a group's shape with the constants of
// the profile's tuning file (framework/nccl_tuning). Written for simgpt from that description;
// no NCCL code is copied.
#pragma once

#include "execution/task_graph.hpp"
#include "simgpt/framework/nccl_tuning.hpp"

namespace simgpt {

// What NCCL's tuning knows of a collective's group.
struct CollectiveShape {
  CollectiveKind kind = CollectiveKind::allreduce;
  int ranks = 2;
  int nodes = 1;
  NcclHop intra = NcclHop::nvlink; // the hops between GPUs of a node
  NcclArch arch = NcclArch::ampere;
  NcclCpu cpu = NcclCpu::other; // the hosts' CPU vendor, as NCCL's tuning tells them apart
  double bus_Bps = 0; // the Simple ring's bus bandwidth over the group's links; 0: unknown
  // The same from the links' detected rates (what NCCL's topology search finds: a NIC's speed,
  // not a tc netem rate limit on it); 0: as bus_Bps. NCCL chooses its pair from it.
  double detected_bus_Bps = 0;
  int channels = 1;   // rings the collective is spread over
  // The slowest route latency of a hop within a node and of one between nodes (0: none): a step
  // cannot finish before its data crossed the wire, so on a slower fabric than NCCL's tables
  // assume (a netem delay, a WAN) the wire's latency bounds each step.
  double intra_wire_s = 0, inter_wire_s = 0;
};

struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  double latency_s = 0;   // NCCL's latency for the call, hops included
  double predicted_s = 0; // latency + bytes / the pair's bandwidth (0 bandwidth term when unknown)
  // The Simple ring's algorithm bandwidth over the pair's: what the ring flows' bytes are scaled
  // by so that they take as long as the chosen protocol's bandwidth term.
  double byte_factor = 1;
};

NcclArch nccl_arch(double compute_capability);

// NCCL's latency of one call with the given algorithm and protocol (before the ring plateau).
double nccl_latency(const NcclTuning& t, const CollectiveShape& s, NcclAlgorithm a, NcclProtocol p);

// NCCL's bus bandwidth for the pair, from the Simple ring's; 0 when the pair does not run.
double nccl_bus_bandwidth(const NcclTuning& t, const CollectiveShape& s, NcclAlgorithm a, NcclProtocol p);

// The pair NCCL predicts fastest for `bytes` per GPU, with its latency and bandwidth factor.
NcclChoice choose_nccl(const NcclTuning& t, const CollectiveShape& s, double bytes);

} // namespace simgpt
