// What a trace of a replayed step draws, and where: each drawn GPU's compute slices (per layer),
// its pipeline sends and receives, and its share of every collective, each on a track (a thread
// of the GPU's process in the trace). Internal: it reads the step graph; report/trace writes it
// out. A GPU whose work a stand-in simulated is drawn with the stand-in's times
// (report/trace_stand_ins.hpp).
#pragma once

#include "execution/plan.hpp"
#include "execution/step_graph.hpp"
#include "execution/task_graph.hpp"
#include "simgpt/report/trace_selection.hpp"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace simgpt {

// Times in the trace are whole nanoseconds, rounded once from the timeline's seconds: a slice
// that starts when the previous one ends starts exactly there, so tracks never overlap after
// rounding.
std::int64_t trace_ns(double seconds);

// Per GPU: its stage, data-parallel replica and tensor rank.
std::vector<std::array<int, 3>> gpu_ranks(const ExecutionPlan& plan);

struct TraceSlice {
  enum class Role : std::uint8_t { compute, send, receive, collective, copy };
  Role role = Role::compute;
  Task::Phase phase = Task::Phase::forward; // compute: its kernels' (recompute: within a backward task)
  int layer = -1;                           // compute: its kernels' layer within their model chunk; -1: none
  TaskId task = 0;   // compute: its task; send, receive: the transfer; collective: its exit, the
                     // isolated collective, or the compute task it is folded into; copy: the copy
                     // of a layer's activations to or from the host's memory (activation offloading)
  long folded = -1;  // collective: its index in the graph's FoldedCollectives; -1: not folded
  int gpu = 0;       // the GPU whose track it is on
  int peer = -1;     // send: the GPU it goes to; receive: the GPU it comes from
  int track = 0;     // index into TraceLayout::tracks
  std::int64_t start_ns = 0, end_ns = 0;
  int members = 0;   // collective: its GPUs
  double bytes = 0;  // collective: what this GPU sends over the whole collective
};

struct TraceTrack {
  int gpu = 0;
  int tid = 0;       // the thread id, from 1 in display order, unique over all GPUs' processes
                     // (no viewer need tell threads of equal ids in different processes apart)
  std::string name;  // "compute", "p2p send to GPU 2", "tensor-parallel collectives (GPUs 0-3)", "host copies"
};

struct TraceLayout {
  std::vector<int> gpus;          // the GPUs drawn, ascending
  std::vector<TraceSlice> slices; // by track, then time
  std::vector<TraceTrack> tracks; // by GPU, then tid
  // Per GPU of the job, the thread id its process-wide events (its name, its memory counter)
  // name: one of its own tracks', so that no thread id is shared between processes; -1 for a GPU
  // not drawn.
  std::vector<int> process_tids;
};

// The slices a trace of `gpus` (ascending) over the whole step draws, counted on the step's graph
// before it is replayed.
size_t count_trace_slices(const StepGraph& step, const ExecutionPlan& plan, const std::vector<int>& gpus);

// One slice per piece of a compute task (StepGraph::kernel_pieces) that takes time, per pipeline
// transfer on the sender (send) and the receiver (receive), and per collective on each member
// (from its entry's start to its exit's finish), for the GPUs `gpus` (ascending) and the slices
// that overlap `window`. Slices of one kind that could overlap on a GPU (sends to different
// peers, collectives of different groups, or concurrent ones of a group) go on separate tracks:
// every track's slices are disjoint in time, which both viewers draw reliably. Throws
// TraceTooLarge as soon as more than `max_slices` are drawn.
TraceLayout lay_out_trace(const StepGraph& step, const Timeline& t, const ExecutionPlan& plan,
                          const std::vector<int>& gpus, const TraceWindow& window, size_t max_slices);

struct TraceTooLarge : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace simgpt
