// Point-to-point transfers between neighbouring virtual stages: each pass's input waits for its
// arrival, each pass's output is sent on, one flow per tensor rank, serialised per direction.
#pragma once

#include "execution/schedule.hpp"
#include "execution/step_graph/compute_streams.hpp"
#include "execution/step_graph/pass.hpp"
#include "execution/step_graph/stand_ins.hpp"

#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace simgpt::step_graph {

class PipelineTransfers {
  // Identifies one pass of one micro-batch on one GPU: (replica, virtual stage, micro-batch, tp rank, forward?).
  using StepKey = std::tuple<int, int, int, int, bool>;

  const ExecutionPlan& plan_;
  const Profile& profile_; // whether the framework's sends block the sender's stream
  const StandIns& stand_ins_;
  ComputeStreams& streams_;
  StepGraph& out_; // the graph, and its transfer counts
  // Per pass and GPU: where its output is ready to send, what its input's arrival is, and (a
  // blocking send) what the sender's stream waits for.
  std::map<StepKey, TaskId> send_, receive_, sent_;
  std::map<int, TaskId> last_send_; // per GPU: its last pipeline send

public:
  PipelineTransfers(const ExecutionPlan& plan, const Profile& profile, const StandIns& stand_ins,
                    ComputeStreams& streams, StepGraph& out)
      : plan_(plan), profile_(profile), stand_ins_(stand_ins), streams_(streams), out_(out) {}

  // Each GPU of the pass waits for its input from the neighbouring virtual stage.
  void await_inputs(const Pass& pass);

  // The pass's output goes to the neighbouring virtual stage (connect adds the flows).
  void send_outputs(const Pass& pass);

  // Point-to-point transfers between neighbouring virtual stages, serialised per direction.
  void connect();

  // Gradient synchronisations that start after the GPU's last pipeline send.
  void order_after_sends(const std::vector<std::pair<int, TaskId>>& after_sends);

private:
  // The flow of a tensor rank's slice from `src` to `dst` for the sender's `step` on stage s.
  TaskId add_transfer(int s, const PipelineStep& step, bool forward, int src, int dst);
};

} // namespace simgpt::step_graph
