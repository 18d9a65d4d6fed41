// NCCL's tuning model (execution/nccl_model) with the constants of profiles/collectives/
// nccl-2.18.3.yaml: latencies worked out by hand from NCCL 2.18.3's tuning.cc tables, and the
// protocol its predicted times pick at small and large sizes.
#include "execution/collective_timing.hpp"
#include "execution/nccl_model.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/simulate.hpp"

#include "support/time_units.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

NcclTuning tuning() { return load_profile(default_data_paths().profiles(), "nccl", "test").nccl; }

CollectiveShape allreduce(int ranks, int nodes, double bus_Bps = 300e9) {
  CollectiveShape s;
  s.kind = CollectiveKind::allreduce;
  s.ranks = ranks;
  s.nodes = nodes;
  s.bus_Bps = bus_Bps;
  return s;
}

using testing::us;

} // namespace

TEST_CASE("NCCL's latency: base plus hops by algorithm and protocol") {
  const NcclTuning t = tuning();
  REQUIRE(t.loaded());
  // One node of 8 on NVLink: ring LL 6.6 + 14 x 0.6; ring Simple 8.4 + 14 x 3.4; tree LL 6.8 + 2 x 7 x 0.6.
  const CollectiveShape one = allreduce(8, 1);
  CHECK(nccl_latency(t, one, NcclAlgorithm::ring, NcclProtocol::ll) == Approx(15.0 * us));
  CHECK(nccl_latency(t, one, NcclAlgorithm::ring, NcclProtocol::simple) == Approx(56.0 * us));
  CHECK(nccl_latency(t, one, NcclAlgorithm::tree, NcclProtocol::ll) == Approx(15.2 * us));
  // Two nodes of 8: 30 ring steps, 4 crossing nodes (2.7 us each for LL); the 26 others wait
  // for the host's 1 us network post (more than NVLink's 0.6).
  const CollectiveShape two = allreduce(16, 2);
  CHECK(nccl_latency(t, two, NcclAlgorithm::ring, NcclProtocol::ll) == Approx((6.6 + 26 * 1.0 + 4 * 2.7) * us));
  // Simple posts three times a step (3 us), still below NVLink's 3.4; 14 us a network step.
  CHECK(nccl_latency(t, two, NcclAlgorithm::ring, NcclProtocol::simple) == Approx((8.4 + 26 * 3.4 + 4 * 14) * us));
  // Tree: 2 x ((8 - 1) x 0.6 + log2(2) x 5.0) + 6.8.
  CHECK(nccl_latency(t, two, NcclAlgorithm::tree, NcclProtocol::ll) == Approx(25.2 * us));
  // 16 nodes: log2 16 = 4 network hops each way.
  CHECK(nccl_latency(t, allreduce(128, 16), NcclAlgorithm::tree, NcclProtocol::ll) == Approx(55.2 * us));
}

TEST_CASE("on AMD hosts NCCL posts a network step in 2 us and caps LL across nodes lower") {
  const NcclTuning t = tuning();
  CollectiveShape two = allreduce(16, 2);
  two.cpu = NcclCpu::amd;
  // getNetOverhead: 2 us on AMD x86, above NVLink's 0.6 us for the 26 steps within a node.
  CHECK(nccl_latency(t, two, NcclAlgorithm::ring, NcclProtocol::ll) == Approx((6.6 + 26 * 2.0 + 4 * 2.7) * us));
  // Simple posts three times: 6 us a step, above NVLink's 3.4.
  CHECK(nccl_latency(t, two, NcclAlgorithm::ring, NcclProtocol::simple) == Approx((8.4 + 26 * 6.0 + 4 * 14) * us));
  // llMaxBws' AMD row: 22.5 GB/s on two nodes, 19 on more (39 and 20.4 for other CPUs).
  CHECK(nccl_bus_bandwidth(t, two, NcclAlgorithm::ring, NcclProtocol::ll) == Approx(22.5e9));
  CollectiveShape four = allreduce(32, 4);
  four.cpu = NcclCpu::amd;
  CHECK(nccl_bus_bandwidth(t, four, NcclAlgorithm::ring, NcclProtocol::ll) == Approx(19e9));
  CHECK(nccl_bus_bandwidth(t, allreduce(16, 2), NcclAlgorithm::ring, NcclProtocol::ll) == Approx(39e9));
  CHECK(nccl_bus_bandwidth(t, allreduce(32, 4), NcclAlgorithm::ring, NcclProtocol::ll) == Approx(20.4e9));
  // One node: neither applies.
  CollectiveShape one = allreduce(8, 1);
  one.cpu = NcclCpu::amd;
  CHECK(nccl_latency(t, one, NcclAlgorithm::ring, NcclProtocol::ll) == Approx(15.0 * us));
}

TEST_CASE("NCCL's choice: LL for small buffers, Simple for large, trees across many nodes") {
  const NcclTuning t = tuning();
  const NcclChoice small = choose_nccl(t, allreduce(8, 1), 1024);
  CHECK(small.algorithm == NcclAlgorithm::ring);
  CHECK(small.protocol == NcclProtocol::ll);
  CHECK(small.latency_s == Approx(15.0 * us));
  // LL's bus bandwidth is a quarter of Simple's (below its 87.7 GB/s ceiling): 4x the bytes.
  CHECK(small.byte_factor == Approx(4.0));
  const NcclChoice large = choose_nccl(t, allreduce(8, 1), 1 << 30);
  CHECK(large.algorithm == NcclAlgorithm::ring);
  CHECK(large.protocol == NcclProtocol::simple);
  CHECK(large.byte_factor == Approx(1.0));
  const NcclChoice wide = choose_nccl(t, allreduce(128, 16, 200e9), 4096);
  CHECK(wide.algorithm == NcclAlgorithm::tree);
  CHECK(wide.protocol == NcclProtocol::ll);
  // Reduce-scatter runs rings only, and LL128 needs NVLink.
  CollectiveShape rs = allreduce(8, 1);
  rs.kind = CollectiveKind::reduce_scatter;
  CHECK(choose_nccl(t, rs, 1024).algorithm == NcclAlgorithm::ring);
  CollectiveShape pcie = allreduce(4, 1, 12e9);
  pcie.intra = NcclHop::pci;
  CHECK(nccl_bus_bandwidth(t, pcie, NcclAlgorithm::ring, NcclProtocol::ll128) == 0);
  CHECK(choose_nccl(t, pcie, 4 << 20).protocol != NcclProtocol::ll128);
}

TEST_CASE("NCCL's generations from the compute capability") {
  CHECK(nccl_arch(7.0) == NcclArch::volta);
  CHECK(nccl_arch(8.0) == NcclArch::ampere);
  CHECK(nccl_arch(9.0) == NcclArch::hopper);
  CHECK(nccl_arch(0) == NcclArch::volta);
}

TEST_CASE("a route slower than NCCL's fabric bounds each step by its own latency") {
  const NcclTuning t = tuning();
  CollectiveShape fast = allreduce(4, 4, 1e9); // one GPU a node
  CollectiveShape delayed = fast;
  delayed.inter_wire_s = 10e-3; // a 10 ms netem delay between nodes
  for (NcclAlgorithm a : {NcclAlgorithm::ring, NcclAlgorithm::tree})
    for (NcclProtocol p : {NcclProtocol::ll, NcclProtocol::simple}) {
      // Every crossing step waits the 10 ms: ring 2 x 4 of them (NCCL's count), tree 2 x log2 4.
      const int crossing = a == NcclAlgorithm::ring ? 8 : 4;
      CHECK(nccl_latency(t, delayed, a, p) == Approx(t.base_latency_s[static_cast<int>(a)][static_cast<int>(p)] +
                                                     crossing * 10e-3));
      CHECK(nccl_latency(t, fast, a, p) < 1e-3);
    }
}

TEST_CASE("NCCL chooses from its tables and the detected link speed, and the wire's delay and rate then cost") {
  const NcclTuning t = tuning();
  // 16 nodes of one GPU (DT-FM's data-parallel group of 16 p3.2xlarge), a 10 Gbps NIC that tc
  // netem limits to 1 Gbps and delays by 50 ms.
  CollectiveShape nominal = allreduce(16, 16, 1.25e9);
  nominal.arch = NcclArch::volta;
  CollectiveShape netem = nominal;
  netem.bus_Bps = 0.125e9;
  netem.detected_bus_Bps = 1.25e9;
  netem.inter_wire_s = 50e-3;
  for (double bytes : {1536.0, 1.2e6, 4.7e6, 64e6}) {
    const NcclChoice a = choose_nccl(t, nominal, bytes), b = choose_nccl(t, netem, bytes);
    CHECK(a.algorithm == b.algorithm);
    CHECK(a.protocol == b.protocol);
    // What the delay adds is its excess over NCCL's own hops, every crossing step once: the ring's
    // plateau factor (NCCL's correction of its software's steps) does not multiply it.
    const double crossing = b.algorithm == NcclAlgorithm::ring ? 32 : 8;
    CHECK(b.latency_s - a.latency_s ==
          Approx(nccl_latency(t, netem, b.algorithm, b.protocol) - nccl_latency(t, nominal, b.algorithm, b.protocol)));
    CHECK(b.latency_s - a.latency_s == Approx(crossing * 50e-3).epsilon(0.01));
  }
  // Tiny buffers take the tree (8 crossing steps, not the ring's 32), megabytes the ring: by
  // NCCL's own times, whatever the 50 ms would make faster.
  CHECK(choose_nccl(t, netem, 1536).algorithm == NcclAlgorithm::tree);
  CHECK(choose_nccl(t, netem, 4.7e6).algorithm == NcclAlgorithm::ring);
  // With the rate limit visible to it, NCCL would weigh bandwidth more and latency less: the
  // detected rate is what it decides by.
  CollectiveShape seen = netem;
  seen.detected_bus_Bps = 0;
  bool differs = false;
  for (double bytes = 1024; bytes < 1e9; bytes *= 2)
    differs = differs || choose_nccl(t, seen, bytes).algorithm != choose_nccl(t, netem, bytes).algorithm;
  CHECK(differs);
}

TEST_CASE("NCCL 2.18.3 runs a collective over at most 16 distinct rings, the shares of those it keeps rescaled") {
  const NcclTuning t = tuning();
  // src/init.cc: ringGraph.maxChannels = MAXCHANNELS/2, MAXCHANNELS 32.
  CHECK(t.ring_channels == 16);
  // Rails over two nodes of 64 GPUs (an NVL72 rack's trays as one node): one ring per member.
  std::vector<Ring> rails;
  for (int c = 0; c < 64; ++c) {
    Ring r{{}, 1.0 / 64};
    for (int node = 0; node < 2; ++node)
      for (int k = 0; k < 64; ++k)
        r.gpus.push_back(node * 64 + (c + k) % 64);
    rails.push_back(r);
  }
  const std::vector<Ring> kept = library_rings(rails, t);
  REQUIRE(kept.size() == 16);
  double shares = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    CHECK(kept[i].gpus == rails[i].gpus);
    CHECK(kept[i].share == Approx(1.0 / 16));
    shares += kept[i].share;
  }
  CHECK(shares == Approx(1.0));
  // Fewer rings than that (a DGX's 8 rails), or no bound: all of them, unchanged.
  const std::vector<Ring> eight(rails.begin(), rails.begin() + 8);
  CHECK(library_rings(eight, t).size() == 8);
  CHECK(library_rings(eight, t)[3].share == Approx(1.0 / 64));
  CHECK(library_rings(rails, NcclTuning{}).size() == 64);
}
