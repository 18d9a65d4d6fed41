// Collectives as point-to-point flows over the platform, so that groups sharing links slow
// each other. A collective enters the task graph as an entry task (all members arrived), its
// flows, and an exit task carrying the step latencies the flows do not already pay.
#pragma once

#include "execution/task_graph.hpp"
#include "system/rings.hpp"

#include <string>
#include <vector>

namespace simgpt {

enum class CollectiveAlgorithm {
  ring,  // NCCL's rings, one each way: each member sends half to the next and half to the previous;
         // bandwidth term 2(n-1)/n S for all-reduce
  direct // every member exchanges its shard with every other (sharded parameter server)
};

// The kind's name (name_of), as the step graph's report counts collectives.
inline const char* to_string(CollectiveKind k) { return name_of(k); }

// What a ring collective adds to its flows (execution/collective_timing): the latency its exit
// waits after them, and a factor on their bytes (a protocol slower than NCCL's Simple ring).
struct CollectiveTiming {
  double exit_latency_s = 0;
  double byte_factor = 1;
  bool from_table = false; // a GPU's kernel table's measured line, not the library's tuning model
};

struct CollectiveTasks {
  TaskId entry;
  TaskId exit;
};

// Adds a collective over `rings` (one or more rings over the same GPUs, shares summing to 1) on a
// buffer of `bytes` per GPU; each ring carries its share. All-reduce, reduce-scatter and
// all-gather run each ring both ways; broadcast and reduce run it as one chain from (to) its
// first GPU. Flows carry the bandwidth term; the exit adds (steps - 1) x `step_latency_s` (the first
// step's latency is paid by the flows themselves). Patel et al. / Thakur et al. 2005 give the
// ring costs: all-reduce 2(n-1) steps of S/n, reduce-scatter and all-gather n-1 steps of S/n,
// pipelined broadcast and reduce n-1 hops of S. An all-to-all, whatever the algorithm, sends S/n
// from every member to every other at once and adds ring_timing's latency (one step) at its exit;
// a ring shift sends each member's S to the next member, one step likewise.
CollectiveTasks add_collective(TaskGraph& g, CollectiveKind kind, CollectiveAlgorithm algorithm,
                               const std::vector<Ring>& rings, double bytes, double step_latency_s);
// The same with the ring algorithm's exit latency and byte factor given (`step_latency_s` then
// serves the direct algorithm only).
CollectiveTasks add_collective(TaskGraph& g, CollectiveKind kind, CollectiveAlgorithm algorithm,
                               const std::vector<Ring>& rings, double bytes, double step_latency_s,
                               const CollectiveTiming& ring_timing);
// Makes collective `c`'s exit wait at least `seconds` after its entry, beside its flows (a
// kernel-driven exchange's own rate: ExecutionPlan::dispatch_rate); returns that wait's task.
TaskId add_collective_floor(TaskGraph& g, const CollectiveTasks& c, CollectiveKind kind, double seconds);

// The ring algorithm's steps: 2(n-1) for all-reduce, n-1 for the others; an all-to-all or a ring
// shift takes one.
int ring_steps(CollectiveKind kind, int members);

// One point-to-point flow of a collective.
struct CollectiveFlow {
  int from = -1, to = -1;
  double bytes = 0;
};

// The flows of a ring collective, as add_collective lays them out (all start together once every
// member has arrived), and the latency its exit adds after them: (steps - 1) x `step_latency_s`.
struct RingCollective {
  std::vector<CollectiveFlow> flows;
  double exit_latency_s = 0;
};
RingCollective ring_collective(CollectiveKind kind, const std::vector<Ring>& rings, double bytes, double step_latency_s);

// The flows of a collective replayed whole on a compute stream (Task::Kind::isolated_collective:
// a ring collective of a tensor-parallel group, an all-to-all of a folded expert-parallel group),
// as add_collective lays them out with the ring algorithm; `bytes` are what its flows carry.
std::vector<CollectiveFlow> isolated_collective_flows(CollectiveKind kind, const std::vector<Ring>& rings, double bytes);

// The flows of any collective as add_collective lays them out, in phases (each phase's flows start
// together once the one before has ended: two for the direct algorithm's all-reduce, one
// otherwise), and the latency its exit adds after the last phase. What the closed-form estimate
// (estimate/) prices without a task graph.
struct CollectiveFlows {
  std::vector<std::vector<CollectiveFlow>> phases;
  double exit_latency_s = 0;
};
CollectiveFlows collective_flows(CollectiveKind kind, CollectiveAlgorithm algorithm, const std::vector<Ring>& rings,
                                 double bytes, double step_latency_s, const CollectiveTiming& ring_timing);

// Bytes each member sends for one collective (for reports): the bandwidth term above.
double bytes_sent_per_member(CollectiveKind kind, int members, double bytes);

} // namespace simgpt
