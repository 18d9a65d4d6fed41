// Point-to-point messages on one (sender, receiver) connection under injected delay
// (execution/replay: streamed transfers; system/cluster: their TCP path).
#include "system/cluster.hpp"
#include "support/isolate.hpp"
#include "execution/replay.hpp"
#include "simgpt/simulate.hpp"

#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace simgpt;

namespace {

// Two nodes, one V100 each, joined by 1 Gbps NICs (25 us each way): a message's bytes take
// long enough on the wire for a burst's overlap to show.
std::string stream_platform() {
  static const std::string path = testing::scratch_file("stream_nodes", ".xml", R"(<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="gpu-0" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/><prop id="node" value="0"/></host>
<host id="gpu-1" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/><prop id="node" value="1"/></host>
<link id="nic-0" bandwidth="1Gbps" latency="25us" sharing_policy="SPLITDUPLEX"><prop id="role" value="nic"/></link>
<link id="nic-1" bandwidth="1Gbps" latency="25us" sharing_policy="SPLITDUPLEX"><prop id="role" value="nic"/></link>
<route src="gpu-0" dst="gpu-1" symmetrical="NO"><link_ctn id="nic-0" direction="UP"/><link_ctn id="nic-1" direction="DOWN"/></route>
<route src="gpu-1" dst="gpu-0" symmetrical="NO"><link_ctn id="nic-1" direction="UP"/><link_ctn id="nic-0" direction="DOWN"/></route>
</zone></platform>
)");
  return path;
}

constexpr double kDelay = 0.050;          // tc netem delay on each node's uplink
constexpr double kLatency = kDelay + 50e-6; // the route's one-way latency
constexpr double kRate = 1.25e8;          // 1 Gbps
constexpr double kBytes = 16.0 * (1 << 20);

struct Replayed {
  std::vector<double> start, finish; // per message
  double makespan = 0;
  double critical_path_s = 0; // the durations along the critical path, added up
};

// Replays `ready.size()` messages of kBytes from gpu-0 to gpu-1, each queued behind the previous
// one on the link as the step graph chains them (StepGraph's connect_transfers), message i
// ready at ready[i] (after a delay task that long; none when 0).
// `profile`'s p2p settings apply (by default none: no TCP window, no slow start).
Replayed replay_messages(const std::vector<double>& ready, const Profile& profile = {}) {
  auto out = run_isolated([&] {
    GpuCatalog catalog = GpuCatalog::load(default_data_paths().catalog());
    Cluster cluster(Platform::load(stream_platform()), catalog, NetworkWhatIf{kDelay, std::nullopt}, profile);
    TaskGraph g;
    std::vector<TaskId> messages;
    for (double at : ready) {
      Task t;
      t.kind = Task::Kind::transfer;
      t.phase = Task::Phase::activation;
      t.gpu = 0;
      t.peer = 1;
      t.bytes = kBytes;
      const TaskId m = boost::add_vertex(t, g);
      if (at > 0) {
        Task d;
        d.kind = Task::Kind::delay;
        d.seconds = at;
        boost::add_edge(boost::add_vertex(d, g), m, g);
      }
      if (!messages.empty())
        boost::add_edge(messages.back(), m, g);
      messages.push_back(m);
    }
    const Timeline timeline = replay(g, cluster);
    nlohmann::ordered_json j;
    for (TaskId m : messages) {
      j["start"].push_back(timeline.start[m]);
      j["finish"].push_back(timeline.finish[m]);
    }
    double path = 0;
    for (TaskId v : critical_path(g, timeline))
      path += timeline.finish[v] - timeline.start[v];
    j["makespan"] = timeline.makespan();
    j["path"] = path;
    return j;
  });
  Replayed r;
  r.start = out["start"].get<std::vector<double>>();
  r.finish = out["finish"].get<std::vector<double>>();
  r.makespan = out["makespan"].get<double>();
  r.critical_path_s = out["path"].get<double>();
  return r;
}

} // namespace

TEST_CASE("a stream of k back-to-back messages pays the delay about once") {
  constexpr int k = 8;
  const double wire = kBytes / kRate; // one message's bytes at the link's rate
  const double lone = replay_messages({0}).finish[0];
  // A lone message pays the one-way delay (and its connection's TCP start) on top of its bytes.
  REQUIRE(lone >= kLatency + wire);
  const Replayed burst = replay_messages(std::vector<double>(k, 0));
  REQUIRE(burst.finish.size() == static_cast<size_t>(k));
  // The burst pays the first message's fixed cost once, then each further message's bytes
  // follow the previous one's on the wire: the delay is paid once (fill and drain), not k times.
  CHECK(burst.finish.back() == Approx(lone + (k - 1) * wire).epsilon(1e-6));
  CHECK(burst.finish.back() - k * wire < 1.1 * (lone - wire));
  CHECK(burst.finish.back() < k * lone - (k - 1) * 0.9 * kDelay);
  // The messages still share the link's bandwidth: they arrive one wire time apart.
  for (int i = 1; i < k; ++i)
    CHECK(burst.finish[static_cast<size_t>(i)] - burst.finish[static_cast<size_t>(i - 1)] == Approx(wire).epsilon(1e-6));
  CHECK(burst.finish.back() >= kLatency + k * wire);
  // A queued message's time counts from the previous one's arrival, so the durations along the
  // critical path still add up to the step and the messages do not overlap in the reports.
  for (int i = 1; i < k; ++i)
    CHECK(burst.start[static_cast<size_t>(i)] == Approx(burst.finish[static_cast<size_t>(i - 1)]));
  CHECK(burst.critical_path_s == Approx(burst.makespan).epsilon(1e-9));
}

TEST_CASE("a message sent after its connection idled pays the delay again") {
  const double wire = kBytes / kRate;
  const double lone = replay_messages({0}).finish[0];
  // The second message is ready long after the first has arrived: nothing overlaps its latency.
  const Replayed late = replay_messages({0, 2.0});
  CHECK(late.finish[0] == Approx(lone));
  CHECK(late.finish[1] - 2.0 >= kLatency + wire);
  CHECK(late.finish[1] - 2.0 <= lone + 1e-9);
  // Ready while the first one's bytes are still on the wire: it waits only for those.
  const Replayed soon = replay_messages({0, 0.1});
  CHECK(soon.finish[1] == Approx(lone + wire).epsilon(1e-6));
}

TEST_CASE("a streamed message shares its NIC with a collective's flow as SimGrid shares any two flows") {
  // A pipeline message (its bytes without the route's latency, execution/replay) and a
  // collective's flow (latency included) leave gpu-0 at once: CM02 weighs both by their route's
  // latency, so they share the NIC equally and end together (the message, whose latency comes
  // after its bytes, one latency apart at most). Weighted 1 instead of 1 / latency, the message
  // would get a twenty-thousandth of the link until the flow ended.
  auto out = run_isolated([&] {
    GpuCatalog catalog = GpuCatalog::load(default_data_paths().catalog());
    Cluster cluster(Platform::load(stream_platform()), catalog, NetworkWhatIf{}, Profile{});
    TaskGraph g;
    Task t;
    t.kind = Task::Kind::transfer;
    t.gpu = 0;
    t.peer = 1;
    t.bytes = kBytes;
    boost::add_vertex(t, g);
    t.collective = CollectiveKind::allreduce;
    boost::add_vertex(t, g);
    return nlohmann::ordered_json(replay(g, cluster).finish);
  });
  const auto finish = out.get<std::vector<double>>();
  REQUIRE(finish.size() == 2);
  CHECK(finish[0] == Approx(2 * kBytes / kRate + 50e-6).epsilon(1e-3));
  CHECK(finish[1] == Approx(finish[0]).epsilon(1e-3));
}

TEST_CASE("a connection through a NIC ramps its TCP window up when it starts and after idling") {
  // One socket of 10 segments of 8949 bytes (the gloo profile's p2p.tcp_initial_window): on a
  // 1 Gbps route with a 100.1 ms round trip the window must grow to 12.5 MB, doubling each round trip.
  Profile tcp;
  tcp.tcp_initial_window_bytes = 89490;
  const double wire = kBytes / kRate;
  const double rtt = 2 * kLatency;
  const double bdp = kRate * rtt;
  const double ramp = std::log2(bdp / 89490) * rtt - (bdp - 89490) / kRate;
  const Replayed lone = replay_messages({0}, tcp);
  CHECK(lone.finish[0] == Approx(ramp + kLatency + wire).epsilon(1e-6));
  // Back to back, the second message finds the window open: no second ramp.
  const Replayed burst = replay_messages({0, 0}, tcp);
  CHECK(burst.finish[1] == Approx(lone.finish[0] + wire).epsilon(1e-6));
  // Ready at 2 s, the connection has idled since the first message's bytes left: the window is
  // halved once per retransmission timeout (a round trip + TCP_RTO_MIN, 200 ms) past the first
  // (Linux's tcp_cwnd_restart), and the second message ramps up again from there.
  const Replayed late = replay_messages({0, 2.0}, tcp);
  const double idle = 2.0 - (lone.finish[0] - kLatency);
  const double window = bdp / std::exp2(std::ceil(idle / (rtt + 0.200)) - 1);
  REQUIRE(window > 89490);
  const double ramp_again = std::log2(bdp / window) * rtt - (bdp - window) / kRate;
  CHECK(late.finish[1] - 2.0 == Approx(ramp_again + kLatency + wire).epsilon(1e-6));
  CHECK(ramp_again > 0);
  CHECK(ramp_again < ramp);
  // Without an initial window (a profile that does not model TCP) there is no ramp.
  CHECK(replay_messages({0}).finish[0] == Approx(kLatency + wire).epsilon(1e-6));
}
