// Data-parallel gradient synchronisation and the optimizer step: where each GPU's gradients
// become final, ZeRO-3's reduce-scatters as they do, the other modes' all-reduces or
// reduce-scatters after the backward (or in overlapped buckets), then each stage's optimizer
// step and a sharded optimizer's gather of the new weights.
#pragma once

#include "execution/step_graph/compute_streams.hpp"
#include "execution/step_graph/data_parallel_streams.hpp"
#include "execution/step_graph/group_collectives.hpp"
#include "execution/step_graph/stand_ins.hpp"

#include <utility>
#include <vector>

namespace simgpt::step_graph {

class GradientSync {
  // Gradients of `bytes` per GPU are final once the stream reaches `ready`.
  struct GradientPoint {
    TaskId ready;
    double bytes;
    double weight_bytes; // what the optimizer's all-gather moves for these gradients' weights
    const std::vector<double>* tensors; // each tensor's bytes (collectives.dp_per_tensor), or null
  };

  const ExecutionPlan& plan_;
  const Profile& profile_; // whether the framework overlaps gradient buckets with the backward
  const StandIns& stand_ins_;
  ComputeStreams& streams_;
  DataParallelStreams& dp_streams_;
  GroupCollectives& collectives_;
  TaskGraph& graph_;
  std::vector<std::vector<GradientPoint>> points_;  // per GPU, in the order the backward makes them
  // Under expert parallelism, the routed experts' gradients, which the expert-data-parallel group
  // reduces (the replicas holding the same experts: dp / ep of them).
  std::vector<std::vector<GradientPoint>> expert_points_;
  std::vector<std::pair<int, TaskId>> after_sends_; // (GPU, collective entry): starts after the GPU's last pipeline send
  std::map<int, TaskId> last_reduce_scatter_;       // per GPU: the entry of its last reduce-scatter

public:
  GradientSync(const ExecutionPlan& plan, const Profile& profile, const StandIns& stand_ins, ComputeStreams& streams,
               DataParallelStreams& dp_streams, GroupCollectives& collectives, TaskGraph& graph)
      : plan_(plan), profile_(profile), stand_ins_(stand_ins), streams_(streams), dp_streams_(dp_streams), collectives_(collectives),
        graph_(graph), points_(static_cast<size_t>(plan.gpus())), expert_points_(static_cast<size_t>(plan.gpus())) {}

  // A unit's (a layer's, the embedding's, the head's) bytes per GPU: its gradients, and its
  // weights as the optimizer's all-gather moves them; the routed experts' among each.
  struct UnitBytes {
    double grads = 0, expert_grads = 0;
    double weights = 0, expert_weights = 0;
  };
  // The last micro-batch's gradients of `unit` are final on every replica's group: ZeRO-3
  // reduce-scatters them now, other modes in synchronise_gradients. The experts' (with ep > 1)
  // are synchronised over the expert-data-parallel group. `tensors`, when not empty, splits the
  // dense bytes into the calls of collectives.dp_per_tensor.
  void gradients_final(const std::vector<std::vector<int>>& groups, int s, const UnitBytes& unit,
                       const std::vector<double>& tensors = {});

  // A micro-batch's backward before the last made `bytes` of a unit's gradients on stage s: under
  // ZeRO-3 with zero3_reduce_every_micro_batch they are reduce-scattered into the shards now;
  // otherwise they accumulate until the last.
  void gradients_accumulated(int s, double bytes, double expert_bytes = 0);

  // Data-parallel gradient synchronisation of stage s, then the optimizer step.
  // All tensor ranks' synchronisations come before any optimizer step: in an isolated group the
  // ranks share one stream, whose optimizer waits for every rank's gradients.
  void synchronise_and_update(int s);

  // The gradient synchronisations that start after their GPU's last pipeline send
  // (PipelineTransfers::order_after_sends).
  const std::vector<std::pair<int, TaskId>>& after_sends() const { return after_sends_; }

private:
  // Gradients of `bytes` per GPU are final once the stream reaches this point.
  void grad_point(const std::vector<int>& group, double bytes, double weight_bytes,
                  std::vector<std::vector<GradientPoint>>& points, const std::vector<double>* tensors = nullptr);

  // ZeRO-3 reduce-scatters a unit's gradients as soon as its backward is done (FSDP's
  // post-backward hook, DeepSpeed's reduce_and_partition_stream), on the stream of the gathers.
  // The gradients wait for their GPU's last gradient point, or with `stream_tail` for its compute
  // stream as it stands.
  void reduce_scatter_now(int s, double bytes, double expert_bytes, bool stream_tail = false);

  // Synchronises the gradients `points` hold (by the members' first GPU's points) over `members`.
  void synchronise_gradients(const std::vector<int>& members, const std::vector<std::vector<GradientPoint>>& points);

  // ZeRO-3: the reduce-scatters were issued during the backward (reduce_scatter_now); the
  // optimizer waits for the data-parallel stream, whose last collective is the last reduce-scatter.
  void await_reduce_scatters(const std::vector<int>& members);

  // Tensor rank t's optimizer step on stage s, over the gradients its data-parallel group synchronised.
  void update(int s, int t, const std::vector<int>& group);
};

} // namespace simgpt::step_graph
