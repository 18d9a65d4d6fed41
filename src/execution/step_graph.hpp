// Builds the task graph of one training step from an execution plan and the framework's profile
// (its host time per pass, recompute, pipeline sends and collectives): each GPU's compute
// stream in schedule order, tensor-parallel collectives inside layers, pipeline transfers
// between stages, data-parallel gradient synchronisation and the optimizer step.
#pragma once

#include "execution/collective.hpp"
#include "execution/plan.hpp"
#include "execution/task_graph.hpp"
#include "simgpt/system/platform.hpp"

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace simgpt {

class KernelTable;

// What the graph builder needs to know of the network.
class Topology {
public:
  virtual ~Topology() = default;
  virtual std::vector<Ring> rings(const std::vector<int>& gpus) const = 0;
  virtual double route_latency(int a, int b) const = 0;
  // Identifiers of the links on the route from a to b that flows share (FATPIPE links, which cap
  // each flow but are never used up, left out); nullopt when unknown, as nothing can then be
  // proved to use links alone.
  virtual std::optional<std::vector<const void*>> shared_links(int, int) const { return std::nullopt; }
  // The bandwidth and latency of every link on the route from a to b, in order (what makes two
  // routes alike); nullopt when unknown.
  virtual std::optional<std::vector<double>> route_signature(int, int) const { return std::nullopt; }
  // What NCCL's tuning asks of a group (execution/nccl_model): each GPU's node and compute
  // capability, the narrowest bandwidth of a route (0: unknown) and whether it crosses PCIe.
  // Defaults: one node of Ampere GPUs on NVLink, bandwidth unknown.
  virtual int node_of(int) const { return 0; }
  virtual double compute_capability(int) const { return 8.0; }
  virtual double route_bandwidth(int, int) const { return 0; }
  // The bandwidth NCCL's topology detection sees on the route (before a network.bandwidth
  // what-if, which it cannot see); by default the route's own.
  virtual double route_detected_bandwidth(int a, int b) const { return route_bandwidth(a, b); }
  virtual bool route_over_pcie(int, int) const { return false; }
  // The GPU's host CPU (the platform's `cpu` property); NCCL's tuning reads its vendor.
  virtual HostCpu host_cpu(int) const { return HostCpu::unspecified; }
  // The share of the route's rate a flow's payload gets (the platform's transport and the
  // collective library's copies over NVLink: Cluster::flow_route); 1 by default.
  virtual double route_payload_factor(int, int) const { return 1; }
  // The GPU's measured table (its collectives' lines: system/kernel_table.hpp); none by default.
  virtual const KernelTable* kernel_table(int) const { return nullptr; }
  // Links that other jobs on the same fabric use (their flows share them): no collective on them
  // runs alone. None by default.
  virtual const std::vector<const void*>& foreign_links() const {
    static const std::vector<const void*> none;
    return none;
  }
};

struct CollectiveCount {
  int count = 0;      // over all groups
  int first_gpu = 0;  // those GPU 0 takes part in: what one rank runs, as frameworks count them
  double bytes = 0; // bytes each member sends, summed over collectives and members
  int from_table = 0; // of `count`, those a kernel table's measured line priced (CollectiveTiming::from_table)
};

// Kernels of one layer (or of none: the embedding, head, optimizer and the framework's host time
// per pass) and phase within a compute task, in the order they run: what a trace draws of the
// task. A task's pieces' seconds sum to its own; a task of no time has one piece, labelled as
// the stream's last kernels before it.
struct KernelPiece {
  TaskId task = 0;
  Task::Phase phase = Task::Phase::forward; // recompute: the forward rerun within a backward task
  int layer = -1;                           // within its model chunk; -1: none
  double seconds = 0;
};

struct StepGraph {
  TaskGraph graph;
  std::map<std::string, CollectiveCount> collectives; // by kind, per step
  std::map<CommDimension, CollectiveCount> communication; // the same collectives by the dimension they serve
  int p2p_transfers = 0;
  double p2p_bytes = 0;
  // The rings of each group whose collectives run alone on their links, indexed by the `peer` of
  // their Task::Kind::isolated_collective tasks.
  std::vector<std::vector<Ring>> isolated;
  // What a symmetric graph simulates (StepGraphOptions::symmetric): the data-parallel replicas
  // whose streams and pipeline transfers it holds, and the tensor ranks whose pipeline transfers
  // and data-parallel collectives it holds (all of them otherwise).
  int replicas_simulated = 0;
  int tensor_ranks_simulated = 0;
  // The members of each simulated expert-parallel group when they run as one stream, its
  // all-to-alls replayed whole (StandIns::expert_groups_folded); 0 otherwise.
  int expert_group_folded = 0;
  // Per GPU: the GPU whose compute tasks run its kernels: its own, or a stand-in's (its isolated
  // tensor-parallel group's first GPU, the first replica's in a symmetric graph).
  std::vector<int> compute_stream;
  // The pieces of the compute tasks on the streams of StepGraphOptions::traced_gpus, by task.
  std::vector<KernelPiece> kernel_pieces;

  // A step is filled where it stays (`fill` is given it) and is never copied or moved: Boost
  // 1.74's adjacency_list has no move constructor, so a move would copy the graph (Megatron's 1T
  // step: 650,000 edge lists, a tenth of its build).
  explicit StepGraph(const std::function<void(StepGraph&)>& fill) { fill(*this); }
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;
};

// What a task costs at most, with its edges, its times and what the reports derive from them
// (peak RSS over tasks, measured): Llama 3.1 405B on 256 GB200s (Megatron-Bridge's 25.11 row, 384
// micro-batches, every replica simulated) 6.66 GB for 22 million tasks, 300 bytes each; a full
// replay of DeepSeek-V3 on 256 B200s 1.28 GB for 4.0 million, 320; GPT-3 175B on 16,384 H100s in
// full 655 MB for 1.25 million, 380 beyond the 180 MB its platform and the rest take.
inline constexpr double kTaskBytes = 400;

// The tasks half the machine's memory holds at kTaskBytes each (24 GiB: 32 million), the other
// half left to the platform, SimGrid and the rest; 20 million where the memory is unknown.
size_t tasks_in_half_memory();

// Consecutive kernels on a stream merge into one task until something must synchronise with
// them (fewer tasks to replay), and the forward rerun by recompute merges into the backward. The
// streams of `traced_gpus` also record what each task holds per layer (StepGraph::kernel_pieces),
// which a trace draws: the same tasks, so a traced step replays as an untraced one, to the bit.
//
// A tensor-parallel group whose links no other communication of the step uses (inside an
// NVSwitch node, say) has its GPUs' compute streams as one stream, that of its first GPU: the
// GPUs run the same kernels between collectives that join them all, so they stay in lockstep.
// Its first collective of each kind and size is one task, replayed whole (replay.hpp); the later
// ones take as long, so each folds into the compute task around it (FoldedCollective), which
// runs on until something else must synchronise with the stream. The same times, with a tenth
// of the tasks of every GPU's stream and flow (`isolate_collectives` false keeps those); folding
// alone takes Megatron's 1T step from 1.05 to 0.32 million tasks.
//
// A symmetric graph simulates the first data-parallel replica only, when the replicas' pipeline
// transfers use disjoint, alike links (each replica on its own nodes): the others run the same
// kernels and transfers at the same times. Their data-parallel collectives keep every flow, so a
// NIC the first replica shares with them still carries all of its load. Tensor ranks whose
// pipeline and gradient flows use disjoint, alike links (a rail-optimised node: a NIC per GPU)
// send their pipeline transfers and synchronise their gradients as the first rank does, so only
// its flows are replayed. Both are
// approximations only where replicas or ranks are not in lockstep; reports count every replica's
// and rank's collectives and transfers as the full graph does.
struct StepGraphOptions {
  std::vector<int> traced_gpus;
  bool isolate_collectives = true;
  bool symmetric = false;
  // The most tasks a step may have: as many as half the machine's memory holds
  // (tasks_in_half_memory), past which the graph is refused, not built until the machine runs
  // out of memory.
  size_t max_tasks = tasks_in_half_memory();
  // Per GPU of the job, the factor its kernels take longer (workload conditions; empty: none).
  // A stream that runs several GPUs' kernels (an isolated tensor-parallel group's) goes at its
  // slowest member's pace: they meet at every collective of every layer. Not with `symmetric`,
  // whose stand-ins assume alike replicas.
  std::vector<double> gpu_slowdown;
};

// The shared links (Topology::shared_links) the step's communication crosses: its tensor-parallel
// rings, data-parallel collectives, pipeline transfers and expert- and context-parallel exchanges,
// each once. What another job on the same fabric must not take for its own (foreign_links).
std::vector<const void*> communication_links(const ExecutionPlan& plan, const Profile& profile,
                                             const Topology& topology);

// The step graph would have more than StepGraphOptions::max_tasks tasks: `tasks` it reached, or
// projected from its first passes (`projected`), and the replicas its graph simulated.
struct StepGraphTooLarge : std::runtime_error {
  StepGraphTooLarge(const std::string& what, size_t tasks, size_t max_tasks, bool projected)
      : std::runtime_error(what), tasks(tasks), max_tasks(max_tasks), projected(projected) {}
  size_t tasks = 0;
  size_t max_tasks = 0;
  bool projected = false;
  int replicas_simulated = 0;
};

StepGraph build_step_graph(const ExecutionPlan& plan, const Profile& profile, const Topology& topology,
                           const StepGraphOptions& options = {});

} // namespace simgpt
