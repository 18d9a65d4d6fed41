#include "system/cluster.hpp"
#include "execution/collective.hpp"
#include "support/isolate.hpp"
#include "execution/replay.hpp"
#include "simgpt/simulate.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <string>

using namespace simgpt;

namespace {

constexpr double kNicBandwidth = 1.25e9; // 10 Gbps
constexpr double kNicLatency = 25e-6;

// `nodes` nodes of `per_node` GPUs; GPUs of a node share its NIC; intra-node links are fast.
// With `flow_cap_gbps`, a FATPIPE link caps each flow between nodes (a cloud's per-flow limit).
std::string cluster_platform(int nodes, int per_node, int flow_cap_gbps = 0) {
  // One file per test process: ctest runs test cases in parallel.
  const std::string path = "/tmp/simgpt_test_cluster_" + std::to_string(nodes) + "x" + std::to_string(per_node) + "_" +
                           std::to_string(flow_cap_gbps) + "_" + std::to_string(::getpid()) + ".xml";
  std::ofstream out(path);
  out << "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n";
  const int n = nodes * per_node;
  if (flow_cap_gbps > 0)
    out << "<link id=\"cap\" bandwidth=\"" << flow_cap_gbps << "Gbps\" latency=\"0\" sharing_policy=\"FATPIPE\"/>\n";
  for (int i = 0; i < n; ++i)
    out << "<host id=\"gpu-" << i << "\" speed=\"1Gf\"><prop id=\"gpu\" value=\"V100-SXM2-16GB\"/><prop id=\"node\" value=\""
        << i / per_node << "\"/></host>\n";
  for (int k = 0; k < nodes; ++k)
    out << "<link id=\"nic-" << k << "\" bandwidth=\"10Gbps\" latency=\"25us\" sharing_policy=\"SPLITDUPLEX\">"
        << "<prop id=\"role\" value=\"nic\"/></link>\n"
        << "<link id=\"bus-" << k << "\" bandwidth=\"1TBps\" latency=\"0\" sharing_policy=\"SPLITDUPLEX\"/>\n";
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b)
        continue;
      const int na = a / per_node, nb = b / per_node;
      out << "<route src=\"gpu-" << a << "\" dst=\"gpu-" << b << "\" symmetrical=\"NO\">";
      if (na == nb)
        out << "<link_ctn id=\"bus-" << na << "\" direction=\"UP\"/>";
      else
        out << "<link_ctn id=\"nic-" << na << "\" direction=\"UP\"/>" << (flow_cap_gbps > 0 ? "<link_ctn id=\"cap\"/>" : "")
            << "<link_ctn id=\"nic-" << nb << "\" direction=\"DOWN\"/>";
      out << "</route>\n";
    }
  out << "</zone></platform>\n";
  return path;
}

// Replays the given collectives (each on its own GPU group, all at once); returns each one's duration.
std::vector<double> run_collectives(const std::string& platform, CollectiveKind kind, CollectiveAlgorithm algorithm,
                                    const std::vector<std::vector<int>>& groups, double bytes) {
  auto result = run_isolated([&] {
    GpuCatalog catalog = GpuCatalog::load(default_data_paths().catalog());
    Cluster cluster(Platform::load(platform), catalog, {}, Profile{});
    TaskGraph g;
    std::vector<CollectiveTasks> tasks;
    for (const auto& group : groups)
      tasks.push_back(add_collective(g, kind, algorithm, cluster.rings(group), bytes,
                                     cluster.route_latency(group[0], group[1])));
    Timeline t = replay(g, cluster);
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& c : tasks)
      out.push_back(t.finish[c.exit] - t.finish[c.entry]);
    return out;
  });
  return result.get<std::vector<double>>();
}

// The rings Cluster::rings gives `group`: each ring's first GPU and share.
std::vector<std::pair<int, double>> ring_shapes(const std::string& platform, const std::vector<int>& group) {
  auto result = run_isolated([&] {
    GpuCatalog catalog = GpuCatalog::load(default_data_paths().catalog());
    Cluster cluster(Platform::load(platform), catalog, {}, Profile{});
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Ring& r : cluster.rings(group))
      out.push_back({r.gpus.front(), r.share});
    return out;
  });
  return result.get<std::vector<std::pair<int, double>>>();
}

} // namespace

TEST_CASE("a ring all-reduce over four nodes takes 2(n-1)/n S/B plus 2(n-1) latencies") {
  const double S = 256.0 * (1 << 20);
  const int n = 4;
  const double alpha = 2 * kNicLatency;
  const double analytical = 2.0 * (n - 1) / n * S / kNicBandwidth + 2 * (n - 1) * alpha;
  auto t = run_collectives(cluster_platform(4, 1), CollectiveKind::allreduce, CollectiveAlgorithm::ring,
                           {{0, 1, 2, 3}}, S);
  CHECK(t[0] == Approx(analytical).epsilon(0.01));
  // Reduce-scatter and all-gather move half of it.
  auto rs = run_collectives(cluster_platform(4, 1), CollectiveKind::reduce_scatter, CollectiveAlgorithm::ring,
                            {{0, 1, 2, 3}}, S);
  CHECK(rs[0] == Approx(1.0 * (n - 1) / n * S / kNicBandwidth + (n - 1) * alpha).epsilon(0.01));
}

TEST_CASE("two all-reduces sharing each node's NIC take about twice as long as one") {
  const double S = 64.0 * (1 << 20);
  const std::string platform = cluster_platform(2, 2);
  auto alone = run_collectives(platform, CollectiveKind::allreduce, CollectiveAlgorithm::ring, {{0, 2}}, S);
  auto shared = run_collectives(platform, CollectiveKind::allreduce, CollectiveAlgorithm::ring, {{0, 2}, {1, 3}}, S);
  CHECK(shared[0] == Approx(2 * alone[0]).epsilon(0.02));
  CHECK(shared[1] == Approx(shared[0]));
}

TEST_CASE("a per-flow cap bounds each flow while concurrent flows share the whole NIC") {
  const double S = 64.0 * (1 << 20);
  const std::string platform = cluster_platform(2, 4, 4); // 10 Gbps NICs, 4 Gbps per flow
  auto alone = run_collectives(platform, CollectiveKind::allreduce, CollectiveAlgorithm::ring, {{0, 4}}, S);
  auto four = run_collectives(platform, CollectiveKind::allreduce, CollectiveAlgorithm::ring,
                              {{0, 4}, {1, 5}, {2, 6}, {3, 7}}, S);
  // Two members: each sends S across, alone at the 4 Gbps cap, four at a time a quarter of the NIC.
  CHECK(alone[0] == Approx(S / 0.5e9).epsilon(0.01));
  CHECK(four[0] == Approx(4 * S / kNicBandwidth).epsilon(0.01));
}

TEST_CASE("the direct (sharded parameter server) all-reduce moves the ring's volume in two phases") {
  const double S = 64.0 * (1 << 20);
  const int n = 4;
  auto t = run_collectives(cluster_platform(4, 1), CollectiveKind::allreduce, CollectiveAlgorithm::direct,
                           {{0, 1, 2, 3}}, S);
  // Each phase: every NIC sends (n-1) shards of S/n.
  CHECK(t[0] == Approx(2.0 * (n - 1) / n * S / kNicBandwidth).epsilon(0.01));
}

TEST_CASE("an all-to-all sends (n-1)/n of each member's buffer, all at once, in one step") {
  const double S = 64.0 * (1 << 20);
  const int n = 4;
  auto t = run_collectives(cluster_platform(4, 1), CollectiveKind::all_to_all, CollectiveAlgorithm::ring,
                           {{0, 1, 2, 3}}, S);
  // Each NIC sends n-1 shards of S/n at once: the direct exchange's one phase, one latency.
  CHECK(t[0] == Approx((n - 1.0) / n * S / kNicBandwidth + 2 * kNicLatency).epsilon(0.01));
  CHECK(bytes_sent_per_member(CollectiveKind::all_to_all, n, S) == Approx(0.75 * S));
  CHECK(ring_steps(CollectiveKind::all_to_all, n) == 1);
}

TEST_CASE("a ring shift sends each member's buffer to the next member in one step") {
  const double S = 64.0 * (1 << 20);
  auto t = run_collectives(cluster_platform(4, 1), CollectiveKind::ring_shift, CollectiveAlgorithm::ring,
                           {{0, 1, 2, 3}}, S);
  // Each NIC sends S and receives S at once: S / B and one route's latency.
  CHECK(t[0] == Approx(S / kNicBandwidth + 2 * kNicLatency).epsilon(0.01));
  CHECK(bytes_sent_per_member(CollectiveKind::ring_shift, 4, S) == Approx(S));
}

TEST_CASE("on a hybrid cube-mesh NCCL's rings use every NVLink: an 8-GPU all-reduce runs at 150 GB/s per GPU") {
  const std::string platform = default_data_paths().find("platforms/p3_16xlarge.xml");
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  auto rings = ring_shapes(platform, all);
  // The double-NVLink cycle (50 GB/s a hop) and the single-NVLink cycle (25 GB/s).
  REQUIRE(rings.size() == 2);
  CHECK(rings[0].second == Approx(2.0 / 3));
  CHECK(rings[1].second == Approx(1.0 / 3));
  const double S = 256.0 * (1 << 20);
  auto t = run_collectives(platform, CollectiveKind::allreduce, CollectiveAlgorithm::ring, {all}, S);
  // Each GPU sends 2(n-1)/n S over its six links, 6 x 25 GB/s; 14 steps of 1 us latency.
  CHECK(t[0] == Approx(2.0 * 7 / 8 * S / 150e9 + 14e-6).epsilon(0.01));
}

TEST_CASE("rings over a 4-GPU NVLink group use all its links whatever order the group is listed in") {
  const std::string platform = default_data_paths().find("platforms/p3_16xlarge.xml");
  // GPUs 0-3: links 0-3, 1-2 and 2-3 doubled, 0-1, 0-2 and 1-3 single: 100 GB/s out of each GPU,
  // two rings at 25 GB/s each way. A ring starts at the group's first GPU.
  for (const auto& group : {std::vector<int>{0, 1, 2, 3}, {0, 1, 3, 2}, {1, 0, 2, 3}, {3, 2, 1, 0}}) {
    auto rings = ring_shapes(platform, group);
    REQUIRE(rings.size() == 2);
    for (const auto& [first, share] : rings) {
      CHECK(first == group.front());
      CHECK(share == Approx(0.5));
    }
  }
  // GPU 4's only link into the group is to GPU 0: no NVLink cycle, one ring as before.
  CHECK(ring_shapes(platform, {0, 1, 2, 3, 4}).size() == 1);
  const double S = 256.0 * (1 << 20);
  auto t = run_collectives(platform, CollectiveKind::allreduce, CollectiveAlgorithm::ring, {{1, 0, 3, 2}}, S);
  CHECK(t[0] == Approx(2.0 * 3 / 4 * S / 100e9 + 6e-6).epsilon(0.01));
}
