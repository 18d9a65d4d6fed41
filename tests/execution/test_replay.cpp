#include "system/cluster.hpp"
#include "simgpt/core/error.hpp"
#include "support/isolate.hpp"
#include "execution/replay.hpp"
#include "simgpt/simulate.hpp"

#include "support/two_node_platform.hpp"

#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

using namespace simgpt;

namespace {

using testing::two_node_platform;

// Replays transfers from gpu-0 to gpu-1, `count` of them at once, and returns their finish times.
std::vector<double> transfer_times(const NetworkWhatIf& network, double bytes, int count = 1,
                                   double efficiency = 1.0) {
  const std::string platform = two_node_platform();
  auto result = run_isolated([&] {
    GpuCatalog catalog = GpuCatalog::load(default_data_paths().catalog());
    Profile profile;
    profile.bandwidth_efficiency = efficiency;
    Cluster cluster(Platform::load(platform), catalog, network, profile);
    TaskGraph g;
    for (int i = 0; i < count; ++i) {
      Task t;
      t.kind = Task::Kind::transfer;
      t.gpu = 0;
      t.peer = 1;
      t.bytes = bytes;
      boost::add_vertex(t, g);
    }
    Timeline timeline = replay(g, cluster);
    return nlohmann::ordered_json(timeline.finish);
  });
  return result.get<std::vector<double>>();
}

} // namespace

TEST_CASE("a transfer between two nodes takes latency plus size over bandwidth") {
  const double bytes = 64.0 * (1 << 20);
  const double base = transfer_times({}, bytes)[0];
  CHECK(base == Approx(50e-6 + bytes / 1.25e9).epsilon(1e-6));
  // tc netem on the sender: its delay adds once, its rate caps the flow.
  NetworkWhatIf slow{0.010, 1e9 / 8};
  CHECK(transfer_times(slow, bytes)[0] == Approx(50e-6 + 0.010 + bytes / 1.25e8).epsilon(1e-6));
  // The payload gets the protocol's share of the link rate.
  CHECK(transfer_times({}, bytes, 1, 0.976)[0] == Approx(50e-6 + bytes / (1.25e9 * 0.976)).epsilon(1e-6));
}

TEST_CASE("transfers sharing one NIC share its bandwidth") {
  const double bytes = 16.0 * (1 << 20);
  auto both = transfer_times({}, bytes, 2);
  REQUIRE(both.size() == 2);
  CHECK(both[0] == Approx(50e-6 + 2 * bytes / 1.25e9).epsilon(1e-6));
  CHECK(both[1] == Approx(both[0]));
}

TEST_CASE("a platform that does not load is an input error, not a crash") {
  const std::string path = testing::scratch_path("broken", ".xml");
  std::ofstream(path) << "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\"><host id=\"gpu-0\"";
  auto attempt = [&] {
    run_isolated([&] {
      GpuCatalog catalog = GpuCatalog::load(default_data_paths().catalog());
      Cluster cluster(Platform::load(path), catalog, {}, Profile{});
      return nlohmann::ordered_json();
    });
  };
  CHECK_THROWS_AS(attempt(), InputError);
}
