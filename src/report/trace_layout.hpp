// What a trace of a replayed step draws, and where: each GPU's compute slices, its pipeline
// sends and receives, and its share of every collective, each on a track (a thread of the GPU's
// process in the trace). Internal: it reads the task graph; report/trace writes it out.
#pragma once

#include "execution/task_graph.hpp"
#include "execution/plan.hpp"

#include <array>
#include <cstdint>
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
  enum class Role : std::uint8_t { compute, send, receive, collective };
  Role role = Role::compute;
  TaskId task = 0;   // compute: its task; send, receive: the transfer; collective: its exit
  int gpu = 0;       // the GPU whose track it is on
  int track = 0;     // index into TraceLayout::tracks
  std::int64_t start_ns = 0, end_ns = 0;
  int members = 0;   // collective: its GPUs
  double bytes = 0;  // collective: what this GPU sends over the whole collective
};

struct TraceTrack {
  int gpu = 0;
  int tid = 0;       // the thread id, from 1 in display order, unique over all GPUs' processes
                     // (no viewer need tell threads of equal ids in different processes apart)
  std::string name;  // "compute", "p2p send to GPU 2", "tensor-parallel collectives (GPUs 0-3)"
};

struct TraceLayout {
  std::vector<TraceSlice> slices; // by track, then time
  std::vector<TraceTrack> tracks; // by GPU, then tid
  // Per GPU, the thread id its process-wide events (its name, its memory counter) name: one of its
  // own tracks', so that no thread id is shared between processes.
  std::vector<int> process_tids;
};

// One slice per compute task that takes time, per pipeline transfer on the sender (send) and
// the receiver (receive), and per collective on each member (from its entry's start to its
// exit's finish). Slices of one kind that could overlap on a GPU (sends to different peers,
// collectives of different groups, or concurrent ones of a group) go on separate tracks: every
// track's slices are disjoint in time, which both viewers draw reliably.
TraceLayout lay_out_trace(const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan);

} // namespace simgpt
