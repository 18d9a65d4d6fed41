#include "execution/step_graph/compute_streams.hpp"

#include "execution/step_graph/task_limit.hpp"

namespace simgpt::step_graph {

ComputeStreams::ComputeStreams(StepGraph& out, const StepGraphOptions& options, const StandIns& stand_ins, int gpus)
    : graph_(out.graph), options_(options), stand_ins_(stand_ins), pieces_(out.kernel_pieces),
      tail_(static_cast<size_t>(gpus)), waits_(static_cast<size_t>(gpus)), pending_(static_cast<size_t>(gpus)),
      traced_(static_cast<size_t>(gpus)) {
  for (int gpu : options.traced_gpus)
    traced_[static_cast<size_t>(stream(gpu))] = true;
}

Slot ComputeStreams::in_layer(const Slot& pass, int l, bool rerun) {
  Slot s = pass;
  s.layer = l;
  if (rerun)
    s.phase = Phase::recompute;
  return s;
}

void ComputeStreams::record(Pending& p, double seconds, const Slot& slot) {
  if (!p.pieces.empty() && p.pieces.back().phase == slot.phase && p.pieces.back().layer == slot.layer)
    p.pieces.back().seconds += seconds;
  else
    p.pieces.push_back({0, slot.phase, slot.layer, seconds});
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
    t.phase = p.slot.task_phase();
    t.gpu = gpu;
    t.stage = p.slot.stage;
    t.micro_batch = p.slot.micro_batch;
    t.chunk = p.slot.chunk;
    t.seconds = p.seconds;
    const TaskId id = boost::add_vertex(t, graph_);
    append(gpu, id);
    // A task of no kernels (what its stream's next kernels wait for) is labelled as the last ones.
    if (traced_[static_cast<size_t>(gpu)] && p.pieces.empty())
      p.pieces.push_back({0, p.slot.phase, p.slot.layer, 0});
    for (KernelPiece& piece : p.pieces) {
      piece.task = id;
      pieces_.push_back(piece);
    }
  }
  p.seconds = 0;
  p.pieces.clear();
  return *tail_[static_cast<size_t>(gpu)];
}

TaskId ComputeStreams::marker(Phase phase) {
  Task t;
  t.kind = Task::Kind::delay;
  t.phase = phase;
  return boost::add_vertex(t, graph_);
}

} // namespace simgpt::step_graph
