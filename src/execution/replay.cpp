#include "execution/replay.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>

#include "execution/collective.hpp"
#include "execution/tcp_connections.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <stdexcept>

namespace simgpt {
namespace {

namespace s4u = simgrid::s4u;

// Point-to-point messages stream over a long-lived connection per pair of peers: NCCL
// connects each pair once and its proxy keeps up to NCCL_STEPS (8) chunks of a send in flight
// on it, the next operation's steps continuing the same connection's step counter
// (NVIDIA/nccl src/transport/net.cc sendProxyProgress, src/transport/net_socket.cc);
// PyTorch's ProcessGroupNCCL caches one communicator per (low rank, high rank) pair for
// send/recv (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp getKeySendRecv), and Gloo one
// TCP pair per peer. On such a connection a message's bytes follow the previous message's
// onto the wire as soon as those have left: TCP does not wait a round trip per message, only
// the window (bytes in flight per round trip) bounds the rate, which SimGrid's TCP-gamma
// bound keeps (system/cluster). So a transfer is replayed as its bytes (a comm without the
// route's latency) and then that latency (a timer): a transfer queued behind it on the same
// (sender, receiver) link (StepGraph's connect_transfers chains them) starts when its bytes
// have left, and a burst of k messages pays the one-way delay once (pipeline fill and
// drain) while the messages still share the bandwidth. A lone message takes latency + bytes /
// rate as before, plus its TCP ramp when its connection starts or restarts (TcpConnections).
// Collective flows keep SimGrid's latency (their exit task adds the other ring steps').
bool streamed(const Task& t) { return t.kind == Task::Kind::transfer && !t.collective; }

using CollectiveKey = std::tuple<int, CollectiveKind, double>; // group, kind, bytes

CollectiveKey key_of(const Task& t) { return {t.peer, *t.collective, t.bytes}; }

// An isolated collective running its flows.
struct Running {
  double start = 0;
  size_t flows_left = 0;
  std::vector<s4u::CommPtr> comms;
};

class Replayer {
public:
  Replayer(const TaskGraph& g, Cluster& cluster, const std::vector<std::vector<Ring>>& isolated)
      : g_(g), cluster_(cluster), isolated_(isolated), tcp_(cluster), waiting_(boost::num_vertices(g)),
        live_(boost::num_vertices(g)) {
    timeline_.start.assign(boost::num_vertices(g), -1);
    timeline_.finish.assign(boost::num_vertices(g), -1);
    timeline_.folded.assign(folded_collectives(g).size(), -1);
    for (TaskId v = 0; v < boost::num_vertices(g); ++v)
      waiting_[v] = static_cast<int>(boost::in_degree(v, g));
  }

  Timeline run() {
    current() = this;
    // Those with no predecessors, found before any starts: a task of no time ends as it starts,
    // making others ready that must not start twice.
    std::vector<TaskId> first;
    for (TaskId v = 0; v < boost::num_vertices(g_); ++v)
      if (waiting_[v] == 0)
        first.push_back(v);
    for (TaskId v : first)
      start(v);
    cluster_.engine().run();
    current() = nullptr;
    for (double f : timeline_.finish)
      if (f < 0)
        throw std::logic_error("task graph has a cycle: some tasks never became ready");
    return std::move(timeline_);
  }

  static void on_completion(const s4u::Activity& activity) {
    Replayer* self = current();
    if (self == nullptr)
      return;
    const auto id = static_cast<TaskId>(reinterpret_cast<std::uintptr_t>(activity.get_data<void>()) - 1);
    if (self->g_[id].kind == Task::Kind::isolated_collective)
      self->flow_finished(id);
    else if (streamed(self->g_[id]))
      self->bytes_left(id);
    else
      self->finished(id, activity.get_start_time(), s4u::Engine::get_clock());
  }

private:
  static Replayer*& current() {
    static Replayer* replayer = nullptr;
    return replayer;
  }

  void start(TaskId v) {
    const Task& t = g_[v];
    void* tag = reinterpret_cast<void*>(static_cast<std::uintptr_t>(v) + 1);
    if ((t.kind == Task::Kind::delay || (t.kind == Task::Kind::compute && t.entry < 0)) && t.seconds <= 0) {
      // A marker, join or stream position of no time ends as it starts: no timer (three in five
      // of a 1F1B step's tasks), in the order they became ready.
      instant_.push_back(v);
      if (instant_.size() == 1)
        for (size_t i = 0; i < instant_.size(); ++i) {
          const double now = s4u::Engine::get_clock();
          finished(instant_[i], now, now);
        }
      if (instant_.front() == v)
        instant_.clear();
      return;
    }
    if (t.kind == Task::Kind::delay || t.kind == Task::Kind::compute) {
      // A fixed time: a kernel timer, fired by the engine's main loop. Compute tasks are timers
      // too (their kernels and the collectives folded into them, whose times are known when they
      // start): a GPU's stream runs one task at a time (the step graph chains them), so an Exec
      // activity would share nothing, and SimGrid 3.32 scans every running activity when one ends.
      const double now = s4u::Engine::get_clock();
      simgrid::kernel::timer::Timer::set(t.kind == Task::Kind::compute ? end_of(v, now) : now + t.seconds,
                                         [this, v, now] { finished(v, now, s4u::Engine::get_clock()); });
      return;
    }
    if (t.kind == Task::Kind::isolated_collective) {
      start_isolated(v);
      return;
    }
    if (!streamed(t)) {
      live_[v] = start_flow(t.gpu, t.peer, t.bytes, tag);
      return;
    }
    const double ramp = tcp_.message_starts(t.gpu, t.peer, t.bytes, s4u::Engine::get_clock());
    if (ramp <= 0) {
      live_[v] = start_flow(t.gpu, t.peer, t.bytes, tag, false);
      return;
    }
    // The sockets ramp up before the message goes at the route's rate; its time counts from now.
    const double now = s4u::Engine::get_clock();
    ramp_start_[v] = now;
    simgrid::kernel::timer::Timer::set(now + ramp, [this, v, tag] {
      live_[v] = start_flow(g_[v].gpu, g_[v].peer, g_[v].bytes, tag, false);
    });
  }

  // When compute task v, starting now, ends: its folded collectives each as long as the first
  // like it on its stream, which ran before it there.
  double end_of(TaskId v, double now) {
    const Task& t = g_[v];
    const std::vector<FoldedCollective>& folded = folded_collectives(g_);
    if (t.entry >= 0)
      for (auto i = static_cast<size_t>(t.entry); i < folded.size() && folded[i].task == v; ++i) {
        const auto measured = flow_seconds_.find(key_of(g_[folded[i].measured]));
        if (measured == flow_seconds_.end())
          throw std::logic_error("a folded collective started before the collective it takes as long as");
        timeline_.folded[i] = measured->second;
      }
    return task_end(g_, v, now, timeline_.folded);
  }

  s4u::CommPtr start_flow(int from, int to, double bytes, void* tag, bool with_latency = true) {
    s4u::CommPtr comm = s4u::Comm::sendto_init(cluster_.gpus()[static_cast<size_t>(from)].host,
                                               cluster_.gpus()[static_cast<size_t>(to)].host);
    comm->set_payload_size(static_cast<uint64_t>(bytes));
    comm->set_data(tag);
    // SimGrid starts a host-to-host comm at once (its model's communicate() runs in start()),
    // so the factor applies to this comm alone.
    cluster_.set_flow_latency(with_latency);
    comm->start();
    cluster_.set_flow_latency(true);
    return comm;
  }

  bool same_stream(TaskId v, TaskId w) const {
    const Task& a = g_[v];
    const Task& b = g_[w];
    return streamed(a) && streamed(b) && a.gpu == b.gpu && a.peer == b.peer;
  }

  double route_latency(int from, int to) {
    auto [at, added] = latency_.try_emplace({from, to}, 0.0);
    if (added)
      at->second = cluster_.route_latency(from, to);
    return at->second;
  }

  // A streamed transfer's last byte has left its sender: the next message on its link may go;
  // the receiver has it one route latency later.
  void bytes_left(TaskId v) {
    const Task& t = g_[v];
    tcp_.message_left(t.gpu, t.peer, s4u::Engine::get_clock());
    for (auto [e, end] = boost::out_edges(v, g_); e != end; ++e) {
      TaskId w = boost::target(*e, g_);
      if (same_stream(v, w) && --waiting_[w] == 0)
        start(w);
    }
    const double now = s4u::Engine::get_clock();
    simgrid::kernel::timer::Timer::set(now + route_latency(t.gpu, t.peer), [this, v] {
      // Its time is counted from what it waited for last (the previous message's arrival when
      // it was queued behind it), so a chain of tasks on the critical path adds up to the step
      // (task_graph's critical_path) and a burst's messages do not overlap in the reports.
      const double now = s4u::Engine::get_clock();
      double start = live_[v] ? live_[v]->get_start_time() : now;
      if (auto ramp = ramp_start_.find(v); ramp != ramp_start_.end()) {
        start = ramp->second;
        ramp_start_.erase(ramp);
      }
      for (auto [e, end] = boost::in_edges(v, g_); e != end; ++e) {
        const double f = timeline_.finish[boost::source(*e, g_)];
        start = std::max(start, f < 0 ? now : f);
      }
      finished(v, std::min(start, now), now);
    });
  }

  // The first of its kind runs its flows; a repeat that is a task of its own (graphs built by hand:
  // the step graph folds them into compute tasks) waits as long as it did. An unmeasured one runs
  // its flows and is no measure.
  void start_isolated(TaskId v) {
    const Task& t = g_[v];
    const double now = s4u::Engine::get_clock();
    if (auto known = t.unmeasured ? flow_seconds_.end() : flow_seconds_.find(key_of(t)); known != flow_seconds_.end()) {
      simgrid::kernel::timer::Timer::set(now + known->second + t.seconds,
                                         [this, v, now] { finished(v, now, s4u::Engine::get_clock()); });
      return;
    }
    const std::vector<CollectiveFlow> flows =
        isolated_collective_flows(*t.collective, isolated_.at(static_cast<size_t>(t.peer)), t.bytes);
    Running& running = running_[v];
    running.start = now;
    running.flows_left = flows.size();
    void* tag = reinterpret_cast<void*>(static_cast<std::uintptr_t>(v) + 1);
    for (const CollectiveFlow& flow : flows)
      running.comms.push_back(start_flow(flow.from, flow.to, flow.bytes, tag));
    if (flows.empty())
      all_flows_done(v);
  }

  void flow_finished(TaskId v) {
    if (--running_.at(v).flows_left == 0)
      all_flows_done(v);
  }

  // The step latencies follow the flows; the comms are released with the task, once SimGrid no
  // longer signals them.
  void all_flows_done(TaskId v) {
    const Task& t = g_[v];
    const double start = running_.at(v).start, now = s4u::Engine::get_clock();
    // Flows that beat the exchange's own rate wait for it (Task::flow_floor_s).
    const double flows = std::max(now - start, static_cast<double>(t.flow_floor_s));
    if (!t.unmeasured)
      flow_seconds_.emplace(key_of(t), flows);
    simgrid::kernel::timer::Timer::set(start + flows + t.seconds, [this, v, start] {
      running_.erase(v);
      finished(v, start, s4u::Engine::get_clock());
    });
  }

  void finished(TaskId v, double start_time, double now) {
    timeline_.start[v] = start_time;
    timeline_.finish[v] = now;
    // SimGrid is still signalling this activity: release it on the next completion instead (not
    // on a task of no time that ends within this one's: SimGrid would signal a freed activity).
    if (live_[v]) {
      graveyard_.clear();
      graveyard_.push_back(std::move(live_[v]));
    }
    for (auto [e, end] = boost::out_edges(v, g_); e != end; ++e) {
      TaskId w = boost::target(*e, g_);
      if (same_stream(v, w))
        continue; // released when v's bytes left (bytes_left)
      if (--waiting_[w] == 0)
        start(w);
    }
  }

  const TaskGraph& g_;
  Cluster& cluster_;
  const std::vector<std::vector<Ring>>& isolated_;
  std::map<TaskId, Running> running_;              // isolated collectives running their flows
  std::map<CollectiveKey, double> flow_seconds_;  // what their flows took
  std::map<std::pair<int, int>, double> latency_; // route latency per (sender, receiver)
  TcpConnections tcp_; // the point-to-point messages' connections
  std::map<TaskId, double> ramp_start_; // streamed transfers ramping up: when they became ready
  std::vector<TaskId> instant_; // tasks of no time ending now, first first
  std::vector<int> waiting_;
  std::vector<s4u::ActivityPtr> live_;
  std::vector<s4u::ActivityPtr> graveyard_;
  Timeline timeline_;
};

} // namespace

Timeline replay(const TaskGraph& g, Cluster& cluster, const std::vector<std::vector<Ring>>& isolated) {
  static const bool connected = [] {
    s4u::Activity::on_completion_cb(&Replayer::on_completion);
    return true;
  }();
  (void)connected;
  return Replayer(g, cluster, isolated).run();
}

} // namespace simgpt
