// Each GPU's compute stream as the graph records it: kernels in the order they run, merged into
// tasks, each task after the stream's last one and after whatever the stream was told to wait for.
#pragma once

#include "execution/step_graph.hpp"
#include "execution/step_graph/stand_ins.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace simgpt::step_graph {

using Phase = Task::Phase;

// Whose kernels these are: a task's labels, and the layer (-1: none, the embedding, head or
// optimizer) and phase (the forward rerun by recompute has its own) that a trace draws.
struct Slot {
  Phase phase = Phase::forward;
  int stage = -1, micro_batch = -1, chunk = 0, layer = -1;
  // A task's phase: the rerun runs within its backward's task.
  Phase task_phase() const { return phase == Phase::recompute ? Phase::backward : phase; }
  // Kernels of one pass merge into one task, whatever their layers.
  bool same_task(const Slot& o) const {
    return task_phase() == o.task_phase() && micro_batch == o.micro_batch && chunk == o.chunk;
  }
};

class ComputeStreams {
  // Kernels appended to a stream and not yet made a task; on a traced stream, also per layer.
  struct Pending {
    double seconds = 0;
    Slot slot;
    std::vector<KernelPiece> pieces;
    std::vector<FoldedCollective> folded; // collectives between its kernels
    double since_fold = 0;                // its kernels after the last of them, summed from 0
    bool empty() const { return seconds <= 0 && folded.empty(); }
  };
  // An isolated collective that ran its flows on a stream: what later ones like it fold into.
  struct Measured {
    int group;
    CollectiveKind kind;
    double bytes; // the buffer's (the task's `bytes` are its flows')
    TaskId task;
  };

  TaskGraph& graph_;
  const StepGraphOptions& options_;
  const StandIns& stand_ins_;
  std::vector<KernelPiece>& pieces_;        // StepGraph::kernel_pieces
  std::vector<std::optional<TaskId>> tail_; // per stream: its last task
  std::vector<std::vector<TaskId>> waits_;  // per stream: what its next task waits for
  std::vector<Pending> pending_;            // per stream
  std::vector<bool> traced_;                // per stream: whether it records its kernels per layer
  std::vector<std::vector<Measured>> measured_; // per stream

public:
  ComputeStreams(StepGraph& out, const StepGraphOptions& options, const StandIns& stand_ins, int gpus);

  // Appends `seconds` of kernels to a GPU's stream; consecutive kernels of one pass merge into
  // one task until something must synchronise with them (flush).
  void run(int gpu, double seconds, const Slot& slot) {
    if (stream(gpu) != gpu)
      return; // the group's first GPU runs the same kernels for all of it
    Pending& p = pending_[static_cast<size_t>(gpu)];
    if (!p.empty() && !p.slot.same_task(slot))
      flush(gpu);
    p.seconds += seconds;
    p.since_fold += seconds;
    p.slot = slot;
    if (traced_[static_cast<size_t>(gpu)] && seconds > 0)
      record(p, seconds, slot);
  }

  // The slot of layer `l`'s kernels within a pass; `rerun`: the forward recompute reruns before
  // the layer's backward.
  static Slot in_layer(const Slot& pass, int l, bool rerun = false);

  int stream(int gpu) const { return stand_ins_.stream(gpu); }
  std::optional<TaskId>& tail(int gpu) { return tail_[static_cast<size_t>(stream(gpu))]; }

  // The GPU's next kernels wait for `before`. Kernels and collectives folded after them that are
  // pending make a task of their own first, as they would before the collective's own task
  // (callers flush before they wait: no kernels may follow the last folded collective).
  void wait_for(int gpu, TaskId before);

  // The isolated collective (Task::Kind::isolated_collective) on the GPU's stream whose flows a
  // like one (the same isolated group, kind and buffer bytes) would take as long as; nullopt
  // before the stream has run one (measures).
  std::optional<TaskId> measured(int gpu, int group, CollectiveKind kind, double bytes) const;
  // The isolated collective `task` of a buffer of `bytes`, appended to the GPU's stream, runs its flows.
  void measures(int gpu, TaskId task, double bytes);
  // Folds a collective like `measured` into the stream's pending task, after its kernels so far.
  // Overlapped with `overlap_s` of GEMM in `chunks` pieces, it holds the stream only for what that
  // does not cover (FoldedCollective::overlap_s).
  // chunks 0: beside the computation from a stream of its own, taking `beside_share` of its SMs.
  void fold(int gpu, TaskId measured, double exit_latency_s, double overlap_s = 0, int chunks = 1,
            double beside_share = 0);

  // Appends a task to the GPU's stream after its tail and whatever it was told to wait for.
  void append(int gpu, TaskId id);

  // Ends the current merged task; returns the stream's tail.
  //
  // For a GPU of an isolated group other than the first, with no kernels pending, the stream's
  // tail is where its work so far ends: what the stream was told to wait for belongs to the
  // next kernels, so no task is made for it.
  TaskId flush(int gpu);

  // A task that takes no time, for others to wait for (a transfer's arrival, a send's end).
  TaskId marker(Phase phase);

private:
  // Adds kernels to the pending task's last piece when they are of its layer and phase.
  static void record(Pending& p, double seconds, const Slot& slot);
};

} // namespace simgpt::step_graph
