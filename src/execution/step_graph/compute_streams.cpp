#include "execution/step_graph/compute_streams.hpp"

#include "execution/step_graph/task_limit.hpp"

#include <stdexcept>

namespace simgpt::step_graph {

ComputeStreams::ComputeStreams(StepGraph& out, const StepGraphOptions& options, const StandIns& stand_ins, int gpus)
    : graph_(out.graph), options_(options), stand_ins_(stand_ins), pieces_(out.kernel_pieces),
      tail_(static_cast<size_t>(gpus)), waits_(static_cast<size_t>(gpus)), pending_(static_cast<size_t>(gpus)),
      traced_(static_cast<size_t>(gpus)), measured_(static_cast<size_t>(gpus)) {
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
  const bool after_fold = !p.folded.empty() && p.folded.back().pieces_before == static_cast<int>(p.pieces.size());
  if (!p.pieces.empty() && !after_fold && p.pieces.back().phase == slot.phase && p.pieces.back().layer == slot.layer)
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
  if (shares_stream && p.empty() && tail_[static_cast<size_t>(gpu)])
    return *tail_[static_cast<size_t>(gpu)];
  if (!p.empty() || !tail_[static_cast<size_t>(gpu)] || !waits_[static_cast<size_t>(gpu)].empty()) {
    std::vector<FoldedCollective>& folded = graph_[boost::graph_bundle].folded;
    Task t;
    t.kind = Task::Kind::compute;
    t.phase = p.slot.task_phase();
    t.gpu = gpu;
    t.stage = p.slot.stage;
    t.micro_batch = p.slot.micro_batch;
    t.chunk = p.slot.chunk;
    t.seconds = p.seconds;
    if (!p.folded.empty()) {
      t.entry = static_cast<long>(folded.size());
      p.folded.back().kernels_after_s = p.since_fold;
    }
    const TaskId id = boost::add_vertex(t, graph_);
    append(gpu, id);
    for (FoldedCollective& f : p.folded) {
      f.task = id;
      folded.push_back(f);
    }
    // A task of no kernels (what its stream's next kernels wait for, or collectives folded into
    // it alone) is labelled as the last ones.
    if (traced_[static_cast<size_t>(gpu)] && p.pieces.empty())
      p.pieces.push_back({0, p.slot.phase, p.slot.layer, 0});
    for (KernelPiece& piece : p.pieces) {
      piece.task = id;
      pieces_.push_back(piece);
    }
  }
  p.seconds = p.since_fold = 0;
  p.pieces.clear();
  p.folded.clear();
  return *tail_[static_cast<size_t>(gpu)];
}

void ComputeStreams::wait_for(int gpu, TaskId before) {
  const Pending& p = pending_[static_cast<size_t>(stream(gpu))];
  // Kernels after a folded collective would belong to the task that waits: the callers flush
  // the stream before they wait, so none are pending here.
  if (!p.folded.empty() && p.since_fold > 0)
    throw std::logic_error("a stream waits with kernels pending after a folded collective");
  if (!p.folded.empty())
    flush(gpu);
  waits_[static_cast<size_t>(stream(gpu))].push_back(before);
}

std::optional<TaskId> ComputeStreams::measured(int gpu, int group, CollectiveKind kind, double bytes) const {
  for (const Measured& m : measured_[static_cast<size_t>(stream(gpu))])
    if (m.group == group && m.kind == kind && m.bytes == bytes)
      return m.task;
  return std::nullopt;
}

void ComputeStreams::measures(int gpu, TaskId task, double bytes) {
  const Task& t = graph_[task];
  measured_[static_cast<size_t>(stream(gpu))].push_back({t.peer, *t.collective, bytes, task});
}

void ComputeStreams::fold(int gpu, TaskId measured, double exit_latency_s, double overlap_s, int chunks,
                          double beside_share) {
  Pending& p = pending_[static_cast<size_t>(stream(gpu))];
  if (!p.folded.empty())
    p.folded.back().kernels_after_s = p.since_fold;
  p.folded.push_back({.measured = measured,
                      .kernels_before_s = p.since_fold,
                      .exit_latency_s = exit_latency_s,
                      .overlap_s = overlap_s,
                      .chunks = chunks,
                      .beside_share = beside_share,
                      .pieces_before = static_cast<int>(p.pieces.size())});
  p.since_fold = 0;
}

TaskId ComputeStreams::marker(Phase phase) {
  Task t;
  t.kind = Task::Kind::delay;
  t.phase = phase;
  return boost::add_vertex(t, graph_);
}

} // namespace simgpt::step_graph
