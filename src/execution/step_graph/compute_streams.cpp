#include "execution/step_graph/compute_streams.hpp"

#include "execution/step_graph/task_limit.hpp"

namespace simgpt::step_graph {

Slot ComputeStreams::in_layer(const Slot& pass, int l, bool rerun) const {
  if (!options_.detailed)
    return pass;
  Slot s = pass;
  s.layer = l;
  if (rerun)
    s.phase = Phase::recompute;
  return s;
}

void ComputeStreams::append(int gpu, TaskId id) {
  const auto i = static_cast<size_t>(gpu);
  if (tail_[i])
    boost::add_edge(*tail_[i], id, graph_);
  for (TaskId w : waits_[i])
    boost::add_edge(w, id, graph_);
  waits_[i].clear();
  tail_[i] = id;
}

TaskId ComputeStreams::flush(int gpu) {
  check_task_limit(graph_, options_.max_tasks);
  const bool shares_stream = stream(gpu) != gpu;
  gpu = stream(gpu);
  Pending& p = pending_[static_cast<size_t>(gpu)];
  if (shares_stream && p.seconds <= 0 && tail_[static_cast<size_t>(gpu)])
    return *tail_[static_cast<size_t>(gpu)];
  if (p.seconds > 0 || !tail_[static_cast<size_t>(gpu)] || !waits_[static_cast<size_t>(gpu)].empty()) {
    Task t;
    t.kind = Task::Kind::compute;
    t.phase = p.slot.phase;
    t.gpu = gpu;
    t.stage = p.slot.stage;
    t.micro_batch = p.slot.micro_batch;
    t.chunk = p.slot.chunk;
    t.layer = p.slot.layer;
    t.seconds = p.seconds;
    append(gpu, boost::add_vertex(t, graph_));
  }
  p.seconds = 0;
  return *tail_[static_cast<size_t>(gpu)];
}

TaskId ComputeStreams::marker(Phase phase) {
  Task t;
  t.kind = Task::Kind::delay;
  t.phase = phase;
  return boost::add_vertex(t, graph_);
}

} // namespace simgpt::step_graph
