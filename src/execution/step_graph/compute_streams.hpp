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

// Whose kernels these are: a task's labels. `layer` is -1 outside a detailed graph.
struct Slot {
  Phase phase = Phase::forward;
  int stage = -1, micro_batch = -1, chunk = 0, layer = -1;
  bool same_task(const Slot& o) const {
    return phase == o.phase && micro_batch == o.micro_batch && chunk == o.chunk && layer == o.layer;
  }
};

class ComputeStreams {
  // Kernels appended to a stream and not yet made a task.
  struct Pending {
    double seconds = 0;
    Slot slot;
  };

  TaskGraph& graph_;
  const StepGraphOptions& options_;
  const StandIns& stand_ins_;
  std::vector<std::optional<TaskId>> tail_; // per stream: its last task
  std::vector<std::vector<TaskId>> waits_;  // per stream: what its next task waits for
  std::vector<Pending> pending_;            // per stream

public:
  ComputeStreams(TaskGraph& graph, const StepGraphOptions& options, const StandIns& stand_ins, int gpus)
      : graph_(graph), options_(options), stand_ins_(stand_ins), tail_(static_cast<size_t>(gpus)),
        waits_(static_cast<size_t>(gpus)), pending_(static_cast<size_t>(gpus)) {}

  // Appends `seconds` of kernels to a GPU's stream; consecutive kernels of one slot merge into
  // one task until something must synchronise with them (flush).
  void run(int gpu, double seconds, const Slot& slot) {
    if (stream(gpu) != gpu)
      return; // the group's first GPU runs the same kernels for all of it
    Pending& p = pending_[static_cast<size_t>(gpu)];
    if (p.seconds > 0 && !p.slot.same_task(slot))
      flush(gpu);
    p.seconds += seconds;
    p.slot = slot;
  }

  // The slot of layer `l`'s kernels within a pass; `rerun`: the forward recompute reruns before
  // the layer's backward. Both labels only in a detailed graph, so that the default graph merges
  // as it always has.
  Slot in_layer(const Slot& pass, int l, bool rerun = false) const;

  int stream(int gpu) const { return stand_ins_.stream(gpu); }
  std::optional<TaskId>& tail(int gpu) { return tail_[static_cast<size_t>(stream(gpu))]; }
  std::vector<TaskId>& waits(int gpu) { return waits_[static_cast<size_t>(stream(gpu))]; }

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
};

} // namespace simgpt::step_graph
