#include "execution/replay.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cstdint>
#include <stdexcept>

namespace simgpt {
namespace {

namespace s4u = simgrid::s4u;

class Replayer {
public:
  Replayer(const TaskGraph& g, Cluster& cluster)
      : g_(g), cluster_(cluster), waiting_(boost::num_vertices(g)), live_(boost::num_vertices(g)) {
    timeline_.start.assign(boost::num_vertices(g), -1);
    timeline_.finish.assign(boost::num_vertices(g), -1);
    for (TaskId v = 0; v < boost::num_vertices(g); ++v)
      waiting_[v] = static_cast<int>(boost::in_degree(v, g));
  }

  Timeline run() {
    current() = this;
    for (TaskId v = 0; v < boost::num_vertices(g_); ++v)
      if (waiting_[v] == 0)
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
    const auto id = reinterpret_cast<std::uintptr_t>(activity.get_data<void>()) - 1;
    self->finished(static_cast<TaskId>(id), activity.get_start_time(), s4u::Engine::get_clock());
  }

private:
  static Replayer*& current() {
    static Replayer* replayer = nullptr;
    return replayer;
  }

  void start(TaskId v) {
    const Task& t = g_[v];
    void* tag = reinterpret_cast<void*>(static_cast<std::uintptr_t>(v) + 1);
    if (t.kind == Task::Kind::delay || t.kind == Task::Kind::compute) {
      // A fixed time: a kernel timer, fired by the engine's main loop. Compute tasks are timers
      // too: a GPU's stream runs one task at a time (the step graph chains them), so an Exec
      // activity would share nothing, and SimGrid 3.32 scans every running activity when one ends.
      const double now = s4u::Engine::get_clock();
      simgrid::kernel::timer::Timer::set(now + t.seconds, [this, v, now] { finished(v, now, s4u::Engine::get_clock()); });
      return;
    }
    s4u::Host* host = cluster_.gpus()[static_cast<size_t>(t.gpu)].host;
    {
      s4u::Host* peer = cluster_.gpus()[static_cast<size_t>(t.peer)].host;
      s4u::CommPtr comm = s4u::Comm::sendto_init(host, peer);
      comm->set_payload_size(static_cast<uint64_t>(t.bytes));
      comm->set_data(tag);
      live_[v] = comm;
      comm->start();
    }
  }

  void finished(TaskId v, double start_time, double now) {
    timeline_.start[v] = start_time;
    timeline_.finish[v] = now;
    // SimGrid is still signalling this activity: release it on the next completion instead.
    graveyard_.clear();
    graveyard_.push_back(std::move(live_[v]));
    for (auto [e, end] = boost::out_edges(v, g_); e != end; ++e) {
      TaskId w = boost::target(*e, g_);
      if (--waiting_[w] == 0)
        start(w);
    }
  }

  const TaskGraph& g_;
  Cluster& cluster_;
  std::vector<int> waiting_;
  std::vector<s4u::ActivityPtr> live_;
  std::vector<s4u::ActivityPtr> graveyard_;
  Timeline timeline_;
};

} // namespace

Timeline replay(const TaskGraph& g, Cluster& cluster) {
  static const bool connected = [] {
    s4u::Activity::on_completion_cb(&Replayer::on_completion);
    return true;
  }();
  (void)connected;
  return Replayer(g, cluster).run();
}

} // namespace simgpt
