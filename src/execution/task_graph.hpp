// The task graph: every compute kernel group, transfer and collective of one training step,
// with the dependencies between them (data, and the order of each CUDA/NCCL stream) as edges.
#pragma once

#include "simgpt/core/enum_names.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <optional>
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

// 56 bytes: a step has millions of tasks, so the enums are one byte each.
struct Task {
  enum class Kind : std::uint8_t {
    compute,  // kernels on one GPU's compute stream
    transfer, // one point-to-point flow over the platform's route
    delay,    // a fixed time that uses no resource (collective step latencies, joins)
    // A whole collective over a group whose links no other communication of the step uses
    // (StepGraph::isolated): `collective` says which, `peer` indexes the group, `gpu` is its
    // first member, `bytes` the buffer per member, `seconds` the step latencies after its flows.
    isolated_collective
  };
  enum class Phase : std::uint8_t {
    forward,
    backward,
    recompute, // the forward rerun in the backward: a trace's piece of a backward task (StepGraph::kernel_pieces)
    optimizer,
    activation, // pipeline transfers
    gradient,
    collective
  };
  Kind kind = Kind::compute;
  Phase phase = Phase::forward;
  std::optional<CollectiveKind> collective; // a collective's entry, flows and exit: which collective
  int gpu = -1;  // compute: the GPU; transfer: the sender
  int peer = -1; // transfer: the receiver
  int stage = -1;
  int micro_batch = -1;
  int chunk = 0;
  double seconds = 0; // compute or delay time
  double bytes = 0;   // transfer payload
  long entry = -1;    // a collective's exit task: its entry task (the collective's start)
};
static_assert(sizeof(Task) <= 56, "a step has millions of tasks: keep Task small");
// As a trace's slices and a critical path's tasks name them.
inline constexpr EnumName<Task::Phase> kTaskPhaseNames[] = {
    {Task::Phase::forward, "forward"},       {Task::Phase::backward, "backward"},
    {Task::Phase::recompute, "recompute"},   {Task::Phase::optimizer, "optimizer"},
    {Task::Phase::activation, "activations"}, {Task::Phase::gradient, "gradients"},
    {Task::Phase::collective, "collective"}};
constexpr std::span<const EnumName<Task::Phase>> enum_names(Task::Phase) { return kTaskPhaseNames; }

// Edges stored in vectors (not lists): a step has millions of them.
using TaskGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task, boost::no_property,
                                        boost::no_property, boost::vecS>;
using TaskId = TaskGraph::vertex_descriptor;

// When each task ran, indexed by TaskId.
struct Timeline {
  std::vector<double> start;
  std::vector<double> finish;
  double makespan() const;
};

// The predecessor of `v` that finished last (the first of them on a tie): what `v` waited for.
// nullopt when `v` has none.
std::optional<TaskId> last_finished_predecessor(const TaskGraph& g, const Timeline& t, TaskId v);

// The chain of dependencies that sets the step time: the longest path through the graph, each
// task weighted by its replayed duration (finish - start), first task first. Chains whose
// lengths differ by less than a billionth of the step are equally long (times equal on paper
// can differ in their last bits after the replay); of those, the one through the lowest task ids.
std::vector<TaskId> critical_path(const TaskGraph& g, const Timeline& t);

} // namespace simgpt
