// ZeRO-3 (FSDP) sharded weights: every unit (embedding, each layer, head) is all-gathered across
// the data-parallel replicas before each use, forward and backward (recompute reuses the backward's
// gather).
#pragma once

#include "execution/step_graph/compute_streams.hpp"
#include "execution/step_graph/data_parallel_streams.hpp"
#include "execution/step_graph/group_collectives.hpp"
#include "execution/step_graph/stand_ins.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace simgpt::step_graph {

// Whether the plan shards weights across data-parallel replicas (ZeRO-3 with more than one).
inline bool zero3(const ExecutionPlan& plan) { return plan.zero >= 3 && plan.dp > 1; }

// Whether the forward waits for weights all-gathered unit by unit: ZeRO-3's, or the sharded
// optimizer's updated weights under overlap_param_gather (Megatron-core's
// distributed_data_parallel.py: each bucket's all-gather dispatched from the forward pre-hook of
// its first module, the next bucket's issued ahead), gathered once and kept.
inline bool gathers_weights(const ExecutionPlan& plan) {
  return zero3(plan) || (plan.overlap_param_gather && plan.dp > 1);
}
inline bool keeps_gathered(const ExecutionPlan& plan) { return plan.zero3_keep_gathered || plan.zero < 3; }

class ZeroGathers {
  // A unit's weights on one GPU, as its gather moves them: the routed experts' among them are
  // sharded over the expert-data-parallel group, not all data-parallel replicas.
  struct Unit {
    double bytes = 0, expert_bytes = 0;
  };
  // One unit's gathers on one tensor rank's data-parallel group: the dense weights' exit (none
  // where it has none), and per replica d the exit of its expert-data-parallel group's (empty:
  // no expert gathers), each GPU waiting for its own group's only.
  struct Exits {
    std::optional<TaskId> dense;
    std::vector<TaskId> experts;
  };
  // The gathers of the pass being built.
  struct GatherPass {
    int stage = -1;
    std::vector<Unit> bytes;              // per unit, in order of use
    std::vector<std::vector<Exits>> done; // per issued unit, per tensor rank
    size_t used = 0;                       // units whose compute has started
    bool held = false;                     // the weights stay gathered from an earlier pass
  };

  const ExecutionPlan& plan_;
  const StandIns& stand_ins_;
  ComputeStreams& streams_;
  DataParallelStreams& dp_streams_;
  GroupCollectives& collectives_;
  TaskGraph& graph_;
  GatherPass pass_;
  std::vector<bool> gathered_; // per virtual stage: kept gathered (ExecutionPlan::zero3_keep_gathered)
  // align_param_gather: per virtual stage, its units' gathers issued ahead of its first forward
  // (per unit, per tensor rank); empty where none were.
  std::vector<std::vector<std::vector<Exits>>> issued_;
  int forwards_ = 0; // the stage's forward passes begun so far
  bool issued_in_pass_ = false; // the current pass began by issuing a chunk's gathers (align_param_gather)

public:
  ZeroGathers(const ExecutionPlan& plan, const StandIns& stand_ins, ComputeStreams& streams,
              DataParallelStreams& dp_streams, GroupCollectives& collectives, TaskGraph& graph)
      : plan_(plan), stand_ins_(stand_ins), streams_(streams), dp_streams_(dp_streams), collectives_(collectives),
        graph_(graph) {}

  // Stage s's schedule begins. Under align_param_gather the all-gathers of its first two model
  // chunks are issued now, each chunk's at once (Megatron-Core's forward_backward_pipelining_with_
  // interleaving: param_sync_func of chunks 0 and 1 before the first micro-batch).
  void begin_stage(int s);

  // A pass on virtual stage v of stage s lists its units' bytes in order of use: reversed in the
  // backward. Under align_param_gather, the forward that brings the rank to virtual micro-batch
  // (c - 1) x pp first issues chunk c's all-gathers (c from 2; Megatron launches them "at the same
  // time across the pipeline-parallel group": the rank's forward index plus its pipeline rank).
  void begin_pass(int s, int v, bool forward);
  // Whether the current pass began by issuing a later chunk's all-gathers (align_param_gather).
  bool issued_in_pass() const { return issued_in_pass_; }

  // Before the next unit's compute: its gather must be done; the gathers of the next
  // `zero3_prefetch_layers` units are issued now, as that compute starts. DeepSpeed ZeRO-3
  // (deepspeed/runtime/zero/partitioned_param_coordinator.py, fetch_sub_module) all-gathers the
  // current submodule's parameters, then prefetches the next ones in the recorded trace, up to
  // stage3_prefetch_bucket_size elements, on its own all-gather stream; PyTorch FSDP
  // (torch/distributed/fsdp: forward_prefetch, BackwardPrefetch.BACKWARD_PRE) issues the next
  // unit's all-gather before the current unit's (gradient) computation, on a separate stream, and
  // limit_all_gathers' rate limiter keeps the gathered weights of only the current and the next
  // unit alive (the CPU waits for the free of the unit two back). Depth 0: each gather is issued
  // at its own use and blocks the compute stream. The pass's first gather is always exposed.
  void use_weights(double bytes);

private:
  // Issues the pass's next gather on each member's data-parallel NCCL stream: after the member's
  // compute stream reached this point (what the CPU has issued, and FSDP's rate limiter) and
  // after the collectives issued before it on that stream.
  void issue_gather();
  // Issues one unit's gather on stage s's data-parallel groups, its routed experts' on the
  // expert-data-parallel groups: per tensor rank, their exits.
  std::vector<Exits> gather(int s, const Unit& unit);
  // Virtual stage v's units with weights, in the order a forward (or, reversed, a backward) uses them.
  std::vector<Unit> units(int v, bool forward) const;
  // align_param_gather: issues all of virtual stage v's gathers now.
  void issue_chunk(int s, int v);
};

} // namespace simgpt::step_graph
