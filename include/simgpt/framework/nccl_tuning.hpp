// NCCL's own cost model of a collective call (the tuning tables NCCL uses to pick an algorithm
// and a protocol per call): base latencies, per-hop latencies by link kind, protocol bandwidth
// factors. The values live in a data file (profiles/collectives/<library>.yaml, with their
// source); a profile names it with `collectives.library`. execution/nccl_model applies them.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace simgpt {

// NCCL's algorithms and protocols in the order of its tables (src/include/devcomm.h: TREE, RING;
// LL, LL128, SIMPLE).
enum class NcclAlgorithm { tree, ring };
enum class NcclProtocol { ll, ll128, simple };
// The kinds of hop NCCL's latency table distinguishes (tuning.cc: NCCL_HW_NVLINK, _PCI, _NET).
enum class NcclHop { nvlink, pci, net };
// The GPU generations NCCL's per-architecture tables distinguish (compute capability 7.x, 8.x, 9.x).
enum class NcclArch { volta, ampere, hopper };
// The host CPUs NCCL's tuning tells apart (ncclTopoCpuType's vendor): AMD x86, and the others
// (Intel x86 and the rest), which share its figures.
enum class NcclCpu { other, amd };

inline constexpr int kNcclAlgorithms = 2, kNcclProtocols = 3, kNcclHops = 3, kNcclArchs = 3, kNcclCpus = 2;
// NCCL's tree correction is tabulated per power of two from 64 B to 256 MiB.
inline constexpr int kNcclCorrectionSizes = 23;

const char* name_of(NcclAlgorithm a);
const char* name_of(NcclProtocol p);

struct NcclTuning {
  std::string library; // e.g. nccl-2.18.3; empty: no tuning, collectives pay route latency + step overhead
  std::string file;    // the data file it was read from
  // Latency of a call, before any hop (baseLat), per algorithm and protocol, seconds.
  double base_latency_s[kNcclAlgorithms][kNcclProtocols] = {};
  // Latency of one step over a hop of each kind (hwLat), per algorithm and protocol, seconds.
  double hop_latency_s[kNcclHops][kNcclAlgorithms][kNcclProtocols] = {};
  // The host's cost of posting one network step (getNetOverhead), per NcclCpu; Simple posts
  // `simple_net_posts` times.
  double net_overhead_s[kNcclCpus] = {};
  double simple_net_posts = 1;
  // Ring Simple all-reduce across nodes: latency factor once each rank's chunk passes 64 B
  // ("plateau effect of ring"), before Ampere and from Ampere on.
  double ring_plateau[2] = {1, 1};
  // Protocol and algorithm factors on the Simple ring's bus bandwidth.
  double ring_ll = 1, ring_ll_other = 1;   // all-reduce, reduce or across nodes; the others on one node
  double ring_ll128 = 1, ring_ll128_one_gpu_per_node = 1;
  double tree = 1, tree_ll = 1, tree_ll128_one_node = 1, tree_ll128 = 1;
  // LL's bandwidth ceiling, bytes/s: on one node by architecture, on two nodes and on more by NcclCpu.
  double ll_max_one_node_Bps[kNcclArchs] = {};
  double ll_max_two_nodes_Bps[kNcclCpus] = {}, ll_max_more_nodes_Bps[kNcclCpus] = {};
  // Tree bandwidth correction per protocol and power-of-two size (64 B, 128 B, ... 256 MiB).
  std::array<std::array<double, kNcclCorrectionSizes>, kNcclProtocols> tree_correction{};
  // The part of an NVLink's rate NCCL's copies reach (topo.h: NCCL counts 20 GB/s of each link's
  // 25 GB/s a direction); flows over NVLink-only routes carry their bytes at this fraction.
  double nvlink_share = 1;
  // The most distinct rings a collective runs over (the ring graph search's maxChannels; its
  // channels beyond are copies of them over the same GPUs); 0: no bound.
  int ring_channels = 0;

  bool loaded() const { return !library.empty(); }
};

// Reads collectives/<library>.yaml from the first of the profile folders `dirs` that has it (each
// quantity checked against its unit and range); throws InputError naming `where` when none has it.
NcclTuning load_nccl_tuning(const std::vector<std::string>& dirs, const std::string& library,
                            const std::string& where);

} // namespace simgpt
