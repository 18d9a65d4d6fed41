// The task graph: every compute kernel group, transfer and collective of one training step,
// with the dependencies between them (data, and the order of each CUDA/NCCL stream) as edges.
#pragma once

#include "simgpt/core/enum_names.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

namespace simgpt {

enum class CollectiveKind : std::uint8_t { allreduce, reduce_scatter, allgather, broadcast, reduce, all_to_all, ring_shift };
// Names as reports count collectives by kind; labels as a trace's slices show them.
inline constexpr EnumName<CollectiveKind> kCollectiveKindNames[] = {
    {CollectiveKind::allreduce, "allreduce", "all-reduce"},
    {CollectiveKind::reduce_scatter, "reducescatter", "reduce-scatter"},
    {CollectiveKind::allgather, "allgather", "all-gather"},
    {CollectiveKind::broadcast, "broadcast"},
    {CollectiveKind::reduce, "reduce"},
    {CollectiveKind::all_to_all, "alltoall", "all-to-all"},
    {CollectiveKind::ring_shift, "ringshift", "ring shift"}};
constexpr std::span<const EnumName<CollectiveKind>> enum_names(CollectiveKind) { return kCollectiveKindNames; }

// The parallel dimension a transfer or collective serves, as Megatron-LM's parallel_state names
// its groups: tensor (tp, with sequence parallelism's gathers), context (cp), expert (ep: the
// token dispatch), data (dp: gradients and sharded weights, the expert-data-parallel group's
// too) and pipeline (pp: activations and their gradients between stages).
enum class CommDimension : std::uint8_t { none, tp, cp, ep, dp, pp, host };
inline constexpr EnumName<CommDimension> kCommDimensionNames[] = {
    {CommDimension::none, "none"},
    {CommDimension::tp, "tp", "tensor-parallel"},
    {CommDimension::cp, "cp", "context-parallel"},
    {CommDimension::ep, "ep", "expert-parallel"},
    {CommDimension::dp, "dp", "data-parallel"},
    {CommDimension::pp, "pp", "pipeline"},
    {CommDimension::host, "host", "to and from host memory"}};
constexpr std::span<const EnumName<CommDimension>> enum_names(CommDimension) { return kCommDimensionNames; }

// 56 bytes: a step has millions of tasks, so the enums are one byte each.
struct Task {
  enum class Kind : std::uint8_t {
    compute,  // kernels on one GPU's compute stream
    transfer, // one point-to-point flow over the platform's route
    delay,    // a fixed time that uses no resource (collective step latencies, joins)
    // A whole collective over a group whose links no other communication of the step uses
    // (StepGraph::isolated): `collective` says which, `peer` indexes the group, `gpu` is its
    // first member, `bytes` what its flows carry per member, `seconds` the step latencies after
    // its flows. A tensor- or expert-parallel group's runs on its first member's compute stream,
    // a data-parallel group's on the data-parallel stream (on_compute_stream).
    isolated_collective
  };
  enum class Phase : std::uint8_t {
    forward,
    backward,
    recompute, // the forward rerun in the backward: a trace's piece of a backward task (StepGraph::kernel_pieces)
    optimizer,
    activation, // pipeline transfers
    gradient,
    collective,
    offload // activations copied to the host's memory and back (training.cpu_offload_layers)
  };
  Kind kind = Kind::compute;
  Phase phase = Phase::forward;
  std::optional<CollectiveKind> collective; // a collective's entry, flows and exit: which collective
  CommDimension dimension = CommDimension::none; // a transfer's or collective's task: the dimension it serves
  // An isolated collective whose flows may meet other traffic (an all-to-all beside the weights'
  // first all-gathers): it runs its flows, and neither takes nor gives the time of those like it.
  bool unmeasured = false;
  int gpu = -1;  // compute: the GPU; transfer: the sender
  int peer = -1; // transfer: the receiver; an offloaded layer's copy: 0 to the host, 1 back
  int stage = -1;
  int micro_batch = -1;
  int chunk = 0;
  // An isolated collective: the least time its flows take, however fast the links (a kernel-driven
  // exchange's own rate: ExecutionPlan::dispatch_rate); 0: none. A float fills the padding before
  // `seconds`, keeping Task at 56 bytes.
  float flow_floor_s = 0;
  double seconds = 0; // compute or delay time
  double bytes = 0;   // transfer payload
  // A collective's exit task: its entry task (the collective's start). A compute task that holds
  // folded collectives: the index of its first in TaskGraph's FoldedCollectives (the others follow it).
  long entry = -1;
};
// Whether an isolated collective holds its first member's compute stream (a tensor- or
// expert-parallel group's), not the data-parallel stream.
inline bool on_compute_stream(const Task& t) {
  return t.kind == Task::Kind::isolated_collective && t.dimension != CommDimension::dp;
}

static_assert(sizeof(Task) <= 56, "a step has millions of tasks: keep Task small");

// The dimension a communication task serves: its own mark, or for a pipeline transfer's marker
// (which carries none) pp.
constexpr CommDimension communication_dimension(const Task& task) {
  if (task.dimension == CommDimension::none &&
      (task.phase == Task::Phase::activation || task.phase == Task::Phase::gradient))
    return CommDimension::pp;
  return task.dimension;
}
// As a trace's slices and a critical path's tasks name them.
inline constexpr EnumName<Task::Phase> kTaskPhaseNames[] = {
    {Task::Phase::forward, "forward"},       {Task::Phase::backward, "backward"},
    {Task::Phase::recompute, "recompute"},   {Task::Phase::optimizer, "optimizer"},
    {Task::Phase::activation, "activations"}, {Task::Phase::gradient, "gradients"},
    {Task::Phase::collective, "collective"}, {Task::Phase::offload, "offload"}};
constexpr std::span<const EnumName<Task::Phase>> enum_names(Task::Phase) { return kTaskPhaseNames; }

// A collective folded into the compute task around it: one of an isolated group's collectives
// (Task::Kind::isolated_collective) after the first of its kind (group, kind, bytes) on the
// group's stream. Its links carry nothing else, so its flows take the time the first one's took
// (replay.hpp), and nothing but the stream's next kernels waits for it: it needs no task of its
// own. A step of Megatron's 1T model has some 400,000 of them.
struct FoldedCollective {
  std::size_t task = 0;        // the compute task that holds it
  std::size_t measured = 0;    // the isolated_collective task whose flows it takes as long as
  // The task's kernels between the collective folded before it (or the task's start) and it, and
  // between it and the next (or the task's end): each summed as a task of its own would be.
  double kernels_before_s = 0, kernels_after_s = 0;
  double exit_latency_s = 0; // its step latencies after its flows (Task::seconds of an isolated_collective)
  // Overlapped with a GEMM of `overlap_s` in `chunks` pieces (tp_comm_overlap): the stream waits
  // for one chunk and for what the GEMM does not cover, max(t / chunks, t - overlap_s), not t.
  // chunks 0: on a stream of its own beside that much computation (moe_a2a_overlap), the computation
  // slowed by the SMs the collective's kernel holds (a share s of them) while it runs:
  // max(s t, t - overlap_s).
  double overlap_s = 0;
  int chunks = 1;
  double beside_share = 0; // chunks 0: the share of the GPU's SMs the collective's kernel takes from the computation
  int pieces_before = 0;       // the task's kernel pieces before it, on a traced stream (StepGraph::kernel_pieces)
};

// The seconds a collective of `whole` seconds holds its stream when it overlaps `overlap_s` of
// computation: what the computation does not cover, and at least `floor` (tp_comm_overlap: one of
// its chunks; moe_a2a_overlap: what the SMs it takes cost the computation); whole without overlap.
inline double overlapped_hold_s(double whole, double overlap_s, double floor) {
  return overlap_s > 0 ? std::max(floor, whole - overlap_s) : whole;
}

// The graph's own data: its collectives folded into compute tasks, by task, in the order they run.
struct FoldedCollectives {
  std::vector<FoldedCollective> folded;
};

// Edges stored in vectors (not lists): a step has millions of them.
using TaskGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task, boost::no_property,
                                        FoldedCollectives, boost::vecS>;
using TaskId = TaskGraph::vertex_descriptor;

inline const std::vector<FoldedCollective>& folded_collectives(const TaskGraph& g) {
  return g[boost::graph_bundle].folded;
}

// When each task ran, indexed by TaskId.
struct Timeline {
  std::vector<double> start;
  std::vector<double> finish;
  // What each folded collective's flows took (its exit latencies follow), indexed as the
  // graph's FoldedCollectives.
  std::vector<double> folded;
  double makespan() const;
};

// A piece of a compute task's time: kernels, or a collective folded into it (its index in the
// graph's FoldedCollectives).
struct TaskPart {
  double start = 0, finish = 0;
  long folded = -1; // -1: kernels
};

// Calls kernels(from, to) for each run of compute task v's kernels and collective(index, from, to)
// for each collective folded into it (its index in the graph's FoldedCollectives), in the order
// they run from `start`, the collectives' flows taking `flow_seconds` (indexed as the graph's
// FoldedCollectives; none given: no time); returns the task's end. Kernels and collectives are
// added in the order they run, as the tasks they would be otherwise end one after the other. A
// task that holds none (or is no compute task) is one run of kernels.
template <class Kernels, class Collective>
double walk_task_parts(const TaskGraph& g, TaskId v, double start, std::span<const double> flow_seconds,
                       Kernels kernels, Collective collective) {
  const Task& task = g[v];
  const std::vector<FoldedCollective>& folded = folded_collectives(g);
  if (task.kind != Task::Kind::compute || task.entry < 0) {
    kernels(start, start + task.seconds);
    return start + task.seconds;
  }
  if (static_cast<std::size_t>(task.entry) >= folded.size() || folded[static_cast<std::size_t>(task.entry)].task != v)
    throw std::logic_error("a compute task names folded collectives that are not its own");
  double at = start;
  auto i = static_cast<std::size_t>(task.entry);
  for (; i < folded.size() && folded[i].task == v; ++i) {
    const double end = at + folded[i].kernels_before_s;
    kernels(at, end);
    const double whole = (flow_seconds.empty() ? 0 : flow_seconds[i]) + folded[i].exit_latency_s; // as an isolated collective's timer
    const double floor = folded[i].chunks > 0 ? whole / folded[i].chunks : whole * folded[i].beside_share;
    at = end + overlapped_hold_s(whole, folded[i].overlap_s, floor);
    collective(i, end, at);
  }
  const double end = at + folded[i - 1].kernels_after_s;
  kernels(at, end);
  return end;
}

// When a compute task that starts at `start` ends, its folded collectives' flows taking
// `flow_seconds` (indexed as the graph's FoldedCollectives): its kernels and collectives added in
// the order they run, as the tasks they would be otherwise end one after the other.
double task_end(const TaskGraph& g, TaskId v, double start, const std::vector<double>& flow_seconds);

// A compute task's kernels and folded collectives in the order they ran, parts of no time left
// out; the task whole (one part of kernels, of no time or not) when it holds none.
std::vector<TaskPart> task_parts(const TaskGraph& g, const Timeline& t, TaskId v);

// The predecessor of `v` that finished last (the first of them on a tie): what `v` waited for.
// nullopt when `v` has none.
std::optional<TaskId> last_finished_predecessor(const TaskGraph& g, const Timeline& t, TaskId v);

// The chain of dependencies that sets the step time: the longest path through the graph, each
// task weighted by its replayed duration (finish - start), first task first. Chains whose
// lengths differ by less than a billionth of the step are equally long (times equal on paper
// can differ in their last bits after the replay); of those, the one through the lowest task ids.
std::vector<TaskId> critical_path(const TaskGraph& g, const Timeline& t);

} // namespace simgpt
