// What a ring collective pays beyond its flows' bandwidth term: the latency its exit task adds
// after the flows, and a factor on the flows' bytes for a protocol that moves its payload slower
// than NCCL's Simple ring. With the profile's collective library loaded (collectives.library),
// NCCL's own tuning model decides both (execution/nccl_model); without it, each of the ring's
// steps but the first (which the flows pay) costs the slowest hop's route latency plus the
// profile's collectives.step_overhead.
#pragma once

#include "execution/collective.hpp"
#include "execution/nccl_model.hpp"
#include "execution/step_graph.hpp"
#include "simgpt/framework/profile.hpp"

#include <vector>

namespace simgpt {

// The shape NCCL's tuning sees of a collective over `rings` (all over the same GPUs).
CollectiveShape collective_shape(const Topology& topology, const std::vector<Ring>& rings, CollectiveKind kind);

// The slowest route latency between neighbours on the rings: what the flows themselves pay.
double ring_hop_latency(const Topology& topology, const std::vector<Ring>& rings);

// A group's rings (NCCL's over its links) and the latency of one step of the direct algorithm
// over them: the slowest ring's slowest hop, plus the profile's collectives.step_overhead. The
// same every time for a group: the step graph and the estimate each search it once.
struct GroupRings {
  std::vector<Ring> rings;
  double step_latency = 0;
};
GroupRings group_rings(const Profile& profile, const Topology& topology, const std::vector<int>& gpus);

// The first `library.ring_channels` of `rings` (all where it is 0 or they are fewer), their
// shares scaled to sum to 1 again: the rings the collective library runs (its ring search stops
// at that many; NcclTuning::ring_channels).
std::vector<Ring> library_rings(std::vector<Ring> rings, const NcclTuning& library);

// `library` false: an exchange the collective library does not run (a flex dispatcher's own
// kernels, DeepEP's or Hybrid-EP's), which no measured line of the library's prices.
CollectiveTiming collective_timing(const Profile& profile, const Topology& topology, const std::vector<Ring>& rings,
                                   CollectiveKind kind, double bytes, bool library = true);

} // namespace simgpt
