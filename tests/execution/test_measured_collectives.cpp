// A collective the GPU's kernel table measured (KernelTable::CollectiveLine) takes the line's time
// over one node's NVLink in place of NCCL's tuning model: its call, its ring steps and its bytes at
// the measured bus bandwidth, the flows' byte factor scaled so that the links NCCL detects carry
// them at that bandwidth. Elsewhere (a smaller buffer, a rank count or an op the table lacks, two
// nodes, a collective library the profile does not load, an exchange the library does not run)
// NCCL's model as before.
#include "execution/collective_timing.hpp"
#include "system/kernel_table.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/simulate.hpp"

#include "support/time_units.hpp"

#include <catch2/catch.hpp>

#include <memory>

using namespace simgpt;

namespace {

using testing::us;

// One NVSwitch node of `per_node` GPUs a node, 900 GB/s ports of which NCCL's copies reach 0.8,
// 1 us routes; every GPU with `table`.
class NodeTopology : public Topology {
public:
  NodeTopology(const KernelTable* table, int per_node = 8) : table_(table), per_node_(per_node) {}
  std::vector<Ring> rings(const std::vector<int>& gpus) const override { return {Ring{gpus, 1}}; }
  double route_latency(int, int) const override { return latency; }
  int node_of(int gpu) const override { return gpu / per_node_; }
  double compute_capability(int) const override { return 10.0; }
  double route_bandwidth(int, int) const override { return bandwidth; }
  double route_detected_bandwidth(int, int) const override { return 900e9; }
  double route_payload_factor(int, int) const override { return 0.8; }
  const KernelTable* kernel_table(int) const override { return table_; }
  double latency = 1 * us, bandwidth = 900e9;

private:
  const KernelTable* table_;
  int per_node_;
};

std::vector<Ring> ring_of(int n) {
  std::vector<int> gpus;
  for (int i = 0; i < n; ++i)
    gpus.push_back(i);
  return {Ring{gpus, 1}};
}

KernelTable table() {
  using Line = KernelTable::CollectiveLine;
  return KernelTable::from_rows({}, {},
                                {{{"all_gather", 8}, Line{650e9, 9 * us, 23 * us, 1 << 20}},
                                 {{"all_reduce", 8}, Line{720e9, 5 * us, 22 * us, 1 << 20}},
                                 {{"all_to_all", 4}, Line{575e9, 7 * us, 19 * us, 1 << 20}}});
}

// The time a ring collective's timing gives a buffer over one ring of `n` whose ports run at
// `rate` for its payload: the bytes each rank sends (x the byte factor) at that rate, the route's
// latency the flows pay, and the exit's latency.
double seconds(const CollectiveTiming& t, double wire_fraction, double bytes, double rate = 0.8 * 900e9) {
  return wire_fraction * bytes * t.byte_factor / rate + 1 * us + t.exit_latency_s;
}

} // namespace

TEST_CASE("a measured collective takes the line's call, ring steps and bus bandwidth over one node's NVLink") {
  const Profile profile = load_profile(default_data_paths().profiles(), "megatron", "test");
  REQUIRE(profile.nccl.loaded());
  const KernelTable t = table();
  const NodeTopology topology(&t);
  const double bytes = 64.0 * (1 << 20);
  // All-gather over 8: 23 us + 7 steps x 9 us + 7/8 of the buffer at 650 GB/s.
  const CollectiveTiming gather = collective_timing(profile, topology, ring_of(8), CollectiveKind::allgather, bytes);
  CHECK(gather.byte_factor == Approx(0.8 * 900e9 / 650e9));
  CHECK(seconds(gather, 7.0 / 8, bytes) == Approx(23 * us + 7 * 9 * us + 7.0 / 8 * bytes / 650e9));
  // All-reduce: twice the steps and the bytes.
  const CollectiveTiming reduce = collective_timing(profile, topology, ring_of(8), CollectiveKind::allreduce, bytes);
  CHECK(seconds(reduce, 14.0 / 8, bytes) == Approx(22 * us + 14 * 5 * us + 14.0 / 8 * bytes / 720e9));
  // All-to-all over 4: n - 1 sends, (n - 1) / n of the buffer.
  const CollectiveTiming exchange = collective_timing(profile, topology, ring_of(4), CollectiveKind::all_to_all, bytes);
  CHECK(seconds(exchange, 3.0 / 4, bytes) == Approx(19 * us + 3 * 7 * us + 3.0 / 4 * bytes / 575e9));
}

TEST_CASE("a network what-if slows a measured collective's flows, its delay its steps") {
  const Profile profile = load_profile(default_data_paths().profiles(), "megatron", "test");
  const KernelTable t = table();
  NodeTopology topology(&t);
  const double bytes = 64.0 * (1 << 20);
  const CollectiveTiming nominal = collective_timing(profile, topology, ring_of(8), CollectiveKind::allgather, bytes);
  // network.bandwidth halves the wire, not what NCCL detects: the byte factor stays, the flows
  // run at half the rate.
  topology.bandwidth = 450e9;
  const CollectiveTiming slowed = collective_timing(profile, topology, ring_of(8), CollectiveKind::allgather, bytes);
  CHECK(slowed.byte_factor == Approx(nominal.byte_factor));
  CHECK(seconds(slowed, 7.0 / 8, bytes, 0.8 * 450e9) - seconds(nominal, 7.0 / 8, bytes) ==
        Approx(7.0 / 8 * bytes / 650e9));
  // network.delay: each step waits for the route's 20 us, more than the line's 9.
  topology.latency = 20 * us;
  const CollectiveTiming delayed = collective_timing(profile, topology, ring_of(8), CollectiveKind::allgather, bytes);
  CHECK(delayed.exit_latency_s + 20 * us == Approx(23 * us + 7 * 20 * us));
}

TEST_CASE("outside a measured line's reach a collective keeps NCCL's model") {
  const Profile profile = load_profile(default_data_paths().profiles(), "megatron", "test");
  const KernelTable t = table();
  const NodeTopology measured(&t), unmeasured(nullptr);
  const auto same = [&](const NodeTopology& a, int n, CollectiveKind kind, double bytes, int per_node = 8) {
    const CollectiveTiming x = collective_timing(profile, a, ring_of(n), kind, bytes);
    const CollectiveTiming y = collective_timing(profile, NodeTopology(nullptr, per_node), ring_of(n), kind, bytes);
    return x.byte_factor == y.byte_factor && x.exit_latency_s == y.exit_latency_s;
  };
  const double bytes = 64.0 * (1 << 20);
  CHECK_FALSE(same(measured, 8, CollectiveKind::allgather, bytes));
  // Below the smallest size measured, over a rank count or of an op the table lacks.
  CHECK(same(measured, 8, CollectiveKind::allgather, 512 * 1024));
  CHECK(same(measured, 4, CollectiveKind::allgather, bytes));
  CHECK(same(measured, 8, CollectiveKind::reduce_scatter, bytes));
  // Over two nodes of 4: the line is of one node's NVLink.
  const NodeTopology two_nodes(&t, 4);
  CHECK(same(two_nodes, 8, CollectiveKind::allgather, bytes, 4));
  // An exchange the library does not run (a flex dispatcher's kernels): NCCL's line is not its.
  const CollectiveTiming flex = collective_timing(profile, measured, ring_of(4), CollectiveKind::all_to_all, bytes, false);
  const CollectiveTiming nccl = collective_timing(profile, unmeasured, ring_of(4), CollectiveKind::all_to_all, bytes);
  CHECK(flex.exit_latency_s == nccl.exit_latency_s);
  CHECK(flex.byte_factor == nccl.byte_factor);
  // A profile without NCCL: the line is NCCL's, and the profile's own step model stays.
  Profile plain = profile;
  plain.nccl = NcclTuning{};
  REQUIRE_FALSE(plain.nccl.loaded());
  const CollectiveTiming x = collective_timing(plain, measured, ring_of(8), CollectiveKind::allgather, bytes);
  const CollectiveTiming y = collective_timing(plain, unmeasured, ring_of(8), CollectiveKind::allgather, bytes);
  CHECK(x.exit_latency_s == y.exit_latency_s);
  CHECK(x.byte_factor == y.byte_factor);
}
