#include "execution/step_graph/pipeline_transfers.hpp"

#include "simgpt/framework/profile.hpp"

#include <optional>
#include <stdexcept>

namespace simgpt::step_graph {

void PipelineTransfers::await_inputs(const Pass& pass) {
  for (int d = 0; d < static_cast<int>(pass.groups.size()); ++d)
    for (int t = 0; t < plan_.tp; ++t) {
      // Ranks whose transfers are the first rank's arrive with it.
      if (stand_ins_.stands_in(t)) {
        receive_[slot({d, pass.v, pass.micro_batch, t, pass.forward})] =
            receive_[slot({d, pass.v, pass.micro_batch, 0, pass.forward})];
        continue;
      }
      TaskId recv = streams_.marker(pass.forward ? Phase::activation : Phase::gradient);
      streams_.wait_for(pass.groups[static_cast<size_t>(d)][static_cast<size_t>(t)], recv);
      receive_[slot({d, pass.v, pass.micro_batch, t, pass.forward})] = recv;
    }
}

void PipelineTransfers::send_outputs(const Pass& pass) {
  const int V = plan_.pp * plan_.chunks;
  for (int d = 0; d < static_cast<int>(pass.groups.size()); ++d)
    for (int t = 0; t < plan_.tp; ++t) {
      const int gpu = pass.groups[static_cast<size_t>(d)][static_cast<size_t>(t)];
      const StepKey key{d, pass.v, pass.micro_batch, t, pass.forward};
      send_[slot(key)] = streams_.flush(gpu);
      if (profile_.p2p_blocking && (pass.forward ? pass.v < V - 1 : pass.v > 0) && !stand_ins_.stands_in(t)) {
        // The sender's stream waits for its send to complete before going on.
        TaskId sent = streams_.marker(pass.forward ? Phase::activation : Phase::gradient);
        streams_.wait_for(gpu, sent);
        sent_[slot(key)] = sent;
      }
    }
}

void PipelineTransfers::connect() {
  const int V = plan_.pp * plan_.chunks;
  std::map<std::pair<int, int>, TaskId> last_on_link;
  // Issue order on each link follows the sender's schedule: walk senders' steps in order.
  for (int s = 0; s < plan_.pp; ++s)
    for (int d = 0; d < stand_ins_.replicas; ++d)
      for (const PipelineStep& step : stage_schedule(plan_.schedule, s, plan_.pp, plan_.micro_batches, plan_.chunks, plan_.flushes,
                                                       plan_.interleaved_all_warmup)) {
        const bool forward = step.pass == PipelineStep::Pass::forward;
        const int v = step.chunk * plan_.pp + s;
        const int to = forward ? v + 1 : v - 1;
        if (to < 0 || to >= V)
          continue;
        std::optional<TaskId> first_rank; // the first tensor rank's transfer
        for (int t = 0; t < plan_.tp; ++t) {
          const StepKey from_key{d, v, step.micro_batch, t, forward};
          const TaskId producer = send_[slot(from_key)];
          const TaskId consumer = receive_[slot({d, to, step.micro_batch, t, forward})];
          if (producer == kNone || consumer == kNone)
            throw std::logic_error("a pipeline transfer's pass was never scheduled");
          const int src = plan_.gpu(s, d, t), dst = plan_.gpu(to % plan_.pp, d, t);
          if (src != dst) {
            out_.p2p_transfers += stand_ins_.replica_weight();
            out_.p2p_bytes += stand_ins_.replica_weight() * plan_.activation_bytes / plan_.tp;
            CollectiveCount& pp = out_.communication[CommDimension::pp];
            pp.count += stand_ins_.replica_weight();
            pp.first_gpu += src == 0 || dst == 0 ? 1 : 0;
            pp.bytes += stand_ins_.replica_weight() * plan_.activation_bytes / plan_.tp;
          }
          if (src != dst && first_rank && stand_ins_.first_rank_stands_in) {
            // The first rank's transfer, receive and send markers stand for this rank's.
            last_send_[static_cast<size_t>(src)] = *first_rank;
            continue;
          }
          TaskId done = producer;
          if (src != dst) {
            done = add_transfer(s, step, forward, src, dst);
            boost::add_edge(producer, done, out_.graph);
            auto link = std::make_pair(src, dst);
            if (auto prev = last_on_link.find(link); prev != last_on_link.end())
              boost::add_edge(prev->second, done, out_.graph);
            last_on_link[link] = done;
            first_rank = done;
          }
          boost::add_edge(done, consumer, out_.graph);
          if (src != dst)
            last_send_[static_cast<size_t>(src)] = done;
          if (!sent_.empty() && sent_[slot(from_key)] != kNone)
            boost::add_edge(done, sent_[slot(from_key)], out_.graph);
        }
      }
}

TaskId PipelineTransfers::add_transfer(int s, const PipelineStep& step, bool forward, int src, int dst) {
  Task x;
  x.kind = Task::Kind::transfer;
  x.phase = forward ? Phase::activation : Phase::gradient;
  x.dimension = CommDimension::pp;
  x.gpu = src;
  x.peer = dst;
  x.stage = s;
  x.micro_batch = step.micro_batch;
  x.chunk = step.chunk;
  // Megatron's scatter-gather: each tensor rank sends its 1/tp slice.
  x.bytes = plan_.activation_bytes / plan_.tp;
  return boost::add_vertex(x, out_.graph);
}

void PipelineTransfers::order_after_sends(const std::vector<std::pair<int, TaskId>>& after_sends) {
  for (const auto& [gpu, entry] : after_sends)
    if (last_send_[static_cast<size_t>(gpu)] != kNone)
      boost::add_edge(last_send_[static_cast<size_t>(gpu)], entry, out_.graph);
}

} // namespace simgpt::step_graph
