// Point-to-point transfers between neighbouring virtual stages: each pass's input waits for its
// arrival, each pass's output is sent on, one flow per tensor rank, serialised per direction.
#pragma once

#include "execution/schedule.hpp"
#include "execution/step_graph/compute_streams.hpp"
#include "execution/step_graph/pass.hpp"
#include "execution/step_graph/stand_ins.hpp"

#include <utility>
#include <vector>

namespace simgpt::step_graph {

class PipelineTransfers {
  // Identifies one pass of one micro-batch on one GPU.
  struct StepKey {
    int replica, v, micro_batch, rank;
    bool forward;
  };
  static constexpr TaskId kNone = ~TaskId{0};

  const ExecutionPlan& plan_;
  const Profile& profile_; // whether the framework's sends block the sender's stream
  const StandIns& stand_ins_;
  ComputeStreams& streams_;
  StepGraph& out_; // the graph, and its transfer counts
  // Per pass and GPU (indexed by slot()): where its output is ready to send, what its input's
  // arrival is, and (a blocking send) what the sender's stream waits for; kNone where none. Flat
  // arrays: a step has a million passes and GPUs at scale, and a tree per key cost a tenth of
  // the graph's build.
  std::vector<TaskId> send_, receive_, sent_;
  std::vector<TaskId> last_send_; // per GPU: its last pipeline send

public:
  PipelineTransfers(const ExecutionPlan& plan, const Profile& profile, const StandIns& stand_ins,
                    ComputeStreams& streams, StepGraph& out)
      : plan_(plan), profile_(profile), stand_ins_(stand_ins), streams_(streams), out_(out),
        send_(slots(), kNone), receive_(slots(), kNone), sent_(profile.p2p_blocking ? slots() : 0, kNone),
        last_send_(static_cast<size_t>(plan.gpus()), kNone) {}

  // Each GPU of the pass waits for its input from the neighbouring virtual stage.
  void await_inputs(const Pass& pass);

  // The pass's output goes to the neighbouring virtual stage (connect adds the flows).
  void send_outputs(const Pass& pass);

  // Point-to-point transfers between neighbouring virtual stages, serialised per direction.
  void connect();

  // Gradient synchronisations that start after the GPU's last pipeline send.
  void order_after_sends(const std::vector<std::pair<int, TaskId>>& after_sends);

private:
  size_t slots() const {
    return static_cast<size_t>(stand_ins_.replicas) * static_cast<size_t>(plan_.pp * plan_.chunks) *
           static_cast<size_t>(plan_.micro_batches) * static_cast<size_t>(plan_.tp) * 2;
  }
  size_t slot(const StepKey& k) const {
    return (((static_cast<size_t>(k.replica) * static_cast<size_t>(plan_.pp * plan_.chunks) + static_cast<size_t>(k.v)) *
                 static_cast<size_t>(plan_.micro_batches) +
             static_cast<size_t>(k.micro_batch)) *
                static_cast<size_t>(plan_.tp) +
            static_cast<size_t>(k.rank)) *
               2 +
           (k.forward ? 1 : 0);
  }

  // The flow of a tensor rank's slice from `src` to `dst` for the sender's `step` on stage s.
  TaskId add_transfer(int s, const PipelineStep& step, bool forward, int src, int dst);
};

} // namespace simgpt::step_graph
