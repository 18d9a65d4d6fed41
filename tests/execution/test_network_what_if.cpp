// The network what-if (`network.delay`, `network.bandwidth`) models `tc netem delay D rate R` on
// each node's outgoing inter-node interface: it slows what leaves a node, never what stays in it.
#include "support/isolate.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/framework/nccl_tuning.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/system/platform.hpp"
#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

// Two nodes of two V100s: an NVLink inside each node, a 10 Gbps NIC per node between them.
std::string two_by_two() {
  static const std::string path = [] {
    std::string xml = R"(<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="gpu-0" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/><prop id="node" value="0"/></host>
<host id="gpu-1" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/><prop id="node" value="0"/></host>
<host id="gpu-2" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/><prop id="node" value="1"/></host>
<host id="gpu-3" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/><prop id="node" value="1"/></host>
<link id="nvlink-0" bandwidth="25GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
<link id="nvlink-1" bandwidth="25GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
<link id="nic-0" bandwidth="10Gbps" latency="25us" sharing_policy="SPLITDUPLEX"><prop id="role" value="nic"/></link>
<link id="nic-1" bandwidth="10Gbps" latency="25us" sharing_policy="SPLITDUPLEX"><prop id="role" value="nic"/></link>
<route src="gpu-0" dst="gpu-1"><link_ctn id="nvlink-0" direction="UP"/></route>
<route src="gpu-2" dst="gpu-3"><link_ctn id="nvlink-1" direction="UP"/></route>
)";
    for (const std::string a : {"0", "1"})
      for (const std::string b : {"2", "3"})
        xml += "<route src=\"gpu-" + a + "\" dst=\"gpu-" + b + "\" symmetrical=\"NO\"><link_ctn id=\"nic-0\" " +
               "direction=\"UP\"/><link_ctn id=\"nic-1\" direction=\"DOWN\"/></route>\n" + "<route src=\"gpu-" + b +
               "\" dst=\"gpu-" + a + "\" symmetrical=\"NO\"><link_ctn id=\"nic-1\" " +
               "direction=\"UP\"/><link_ctn id=\"nic-0\" direction=\"DOWN\"/></route>\n";
    return testing::scratch_file("two_by_two", ".xml", xml + "</zone></platform>\n");
  }();
  return path;
}

double transfer_s(int from, int to, double bytes, const NetworkWhatIf& network, bool nccl = false) {
  return run_isolated([&] {
           const DataPaths data = default_data_paths();
           Profile profile;
           if (nccl)
             profile.nccl = load_nccl_tuning(data.profiles(), "nccl-2.18.3", "test");
           return nlohmann::ordered_json(simulate_transfer(Platform::load(two_by_two()), from, to, bytes, network,
                                                           profile, load_catalog(data)));
         })
      .get<double>();
}

} // namespace

TEST_CASE("network.delay is paid once by what leaves a node, in either direction, and not inside a node") {
  const double bytes = 64e6;
  const NetworkWhatIf delayed{.delay_s = 0.010, .bandwidth_Bps = std::nullopt};
  // Inside a node: unchanged.
  CHECK(transfer_s(0, 1, bytes, delayed) == Approx(transfer_s(0, 1, bytes, {})).epsilon(1e-9));
  CHECK(transfer_s(3, 2, bytes, delayed) == Approx(transfer_s(3, 2, bytes, {})).epsilon(1e-9));
  // Between nodes: one delay each way (the sender's egress), not two (ingress is not delayed).
  // The profile sets no TCP window, so the delay cannot lower the rate.
  CHECK(transfer_s(0, 2, bytes, delayed) - transfer_s(0, 2, bytes, {}) == Approx(0.010).epsilon(1e-6));
  CHECK(transfer_s(3, 1, bytes, delayed) - transfer_s(3, 1, bytes, {}) == Approx(0.010).epsilon(1e-6));
}

TEST_CASE("network.bandwidth caps what leaves a node, not what stays in it") {
  const double bytes = 64e6;
  const NetworkWhatIf capped{.delay_s = std::nullopt, .bandwidth_Bps = 1e9 / 8}; // 1 Gbps
  CHECK(transfer_s(0, 1, bytes, capped) == Approx(transfer_s(0, 1, bytes, {})).epsilon(1e-9));
  // 64 MB at 1 Gbps, plus the route's 50 us.
  CHECK(transfer_s(0, 2, bytes, capped) == Approx(bytes / (1e9 / 8) + 50e-6).epsilon(1e-6));
}

TEST_CASE("under NCCL, what crosses NVLink moves at NCCL's part of the link's rate, a NIC's flows do not") {
  const double bytes = 64e6;
  // nccl-2.18.3.yaml: 20 of each NVLink's 25 GB/s. The route's 1 us latency is paid either way.
  CHECK(transfer_s(0, 1, bytes, {}, true) - 1e-6 == Approx((transfer_s(0, 1, bytes, {}) - 1e-6) * 25 / 20).epsilon(1e-6));
  CHECK(transfer_s(0, 2, bytes, {}, true) == Approx(transfer_s(0, 2, bytes, {})).epsilon(1e-9));
}
