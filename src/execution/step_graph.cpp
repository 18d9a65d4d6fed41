#include "execution/step_graph.hpp"

#include "execution/schedule.hpp"
#include "execution/step_graph/compute_streams.hpp"
#include "execution/step_graph/data_parallel_streams.hpp"
#include "execution/step_graph/gradient_sync.hpp"
#include "execution/step_graph/group_collectives.hpp"
#include "execution/step_graph/parallel_groups.hpp"
#include "execution/step_graph/stand_ins.hpp"
#include "execution/step_graph/zero_gathers.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace simgpt {
namespace {

using namespace step_graph;

class Builder {
public:
  Builder(const ExecutionPlan& plan, const Topology& topology, const StepGraphOptions& options)
      : plan_(plan), options_(options), collectives_(plan, topology, out_, options_.max_tasks),
        stand_ins_(find_stand_ins(plan, topology, options_, collectives_, out_.isolated)),
        streams_(out_.graph, options_, stand_ins_, plan.gpus()), dp_streams_(out_.graph, plan.gpus()),
        gathers_(plan, stand_ins_, streams_, dp_streams_, collectives_, out_.graph),
        gradients_(plan, stand_ins_, streams_, dp_streams_, collectives_, out_.graph) {
    out_.replicas_simulated = stand_ins_.replicas;
    out_.tensor_ranks_simulated = stand_ins_.first_rank_stands_in ? 1 : plan_.tp;
  }

  StepGraph build() {
    for (int s = 0; s < plan_.pp; ++s) {
      build_stage(s);
      gradients_.synchronise_and_update(s);
    }
    connect_transfers();
    order_after_sends();
    return std::move(out_);
  }

private:
  // One pass (forward or backward) of one micro-batch on virtual stage `v` of stage `s`, run by
  // the tensor-parallel groups of all the stage's replicas.
  struct Pass {
    int s = 0, v = 0, micro_batch = 0, chunk = 0;
    bool forward = true;
    std::vector<std::vector<int>> groups;
    Slot slot() const { return {forward ? Phase::forward : Phase::backward, s, micro_batch, chunk}; }
  };
  // Identifies one pass of one micro-batch on one GPU: (replica, virtual stage, micro-batch, tp rank, forward?).
  using StepKey = std::tuple<int, int, int, int, bool>;

  TaskGraph& g() { return out_.graph; }

  int replica_weight() const { return stand_ins_.replica_weight(); }
  bool stands_in(int t) const { return stand_ins_.stands_in(t); }

  // A collective on the compute streams of `gpus`: it starts when all have reached it, and
  // their next kernels wait for it.
  void blocking_collective(const std::vector<int>& gpus, CollectiveKind kind, double bytes) {
    if (auto isolated = stand_ins_.isolated_index.find(gpus); isolated != stand_ins_.isolated_index.end()) {
      // One task on the group's one stream: what all its GPUs wait for.
      streams_.flush(gpus.front());
      Task t;
      t.kind = Task::Kind::isolated_collective;
      t.phase = Phase::collective;
      t.collective = kind;
      t.gpu = gpus.front();
      t.peer = isolated->second;
      t.bytes = bytes;
      t.seconds = (ring_steps(kind, static_cast<int>(gpus.size())) - 1) * collectives_.rings(gpus).step_latency;
      streams_.append(gpus.front(), boost::add_vertex(t, g()));
      collectives_.count(gpus, kind, bytes, replica_weight());
      return;
    }
    for (int gpu : gpus)
      streams_.flush(gpu);
    CollectiveTasks c = collectives_.add(gpus, kind, bytes, CollectiveAlgorithm::ring, replica_weight());
    for (int gpu : gpus) {
      boost::add_edge(*streams_.tail(gpu), c.entry, g());
      streams_.tail(gpu) = c.exit;
    }
  }

  // One tensor-parallel block: Megatron's f/g operators. Without sequence parallelism the block's
  // output is all-reduced; with it, the input is all-gathered and the output reduce-scattered.
  // The vocabulary-parallel embedding has no input to gather (`gathers_input` false).
  void block(const std::vector<int>& group, double seconds, const Slot& slot, bool gathers_input = true) {
    const bool tp = group.size() > 1;
    if (tp && plan_.sequence_parallel && gathers_input)
      blocking_collective(group, CollectiveKind::allgather, plan_.activation_bytes);
    for (int gpu : group)
      streams_.run(gpu, seconds, slot);
    if (tp)
      blocking_collective(group, plan_.sequence_parallel ? CollectiveKind::reduce_scatter : CollectiveKind::allreduce,
                          plan_.activation_bytes);
  }

  // All replicas of stage s step through the schedule together, so that collectives across
  // replicas (ZeRO-3's gathers) can join their streams.
  void build_stage(int s) {
    Pass pass;
    pass.s = s;
    for (int d = 0; d < stand_ins_.replicas; ++d)
      pass.groups.push_back(tp_group(plan_, s, d));
    for (const PipelineStep& step : stage_schedule(plan_.schedule, s, plan_.pp, plan_.micro_batches, plan_.chunks)) {
      pass.v = step.chunk * plan_.pp + s;
      pass.forward = step.pass == PipelineStep::Pass::forward;
      pass.micro_batch = step.micro_batch;
      pass.chunk = step.chunk;
      begin_pass(pass);
      gathers_.begin_pass(s, pass.v, pass.forward);
      if (pass.forward)
        forward_kernels(pass);
      else
        backward_kernels(pass);
      end_pass(pass);
    }
  }

  void run_all(const Pass& pass, double seconds, const Slot& slot) {
    for (const std::vector<int>& group : pass.groups)
      for (int gpu : group)
        streams_.run(gpu, seconds, slot);
  }

  void block_all(const Pass& pass, double seconds, const Slot& slot, bool gathers_input = true) {
    for (const std::vector<int>& group : pass.groups)
      block(group, seconds, slot, gathers_input);
  }

  // Each GPU of the pass waits for its input from the neighbouring virtual stage, then pays the
  // framework's host time per micro-batch.
  void begin_pass(const Pass& pass) {
    const int V = plan_.pp * plan_.chunks;
    const bool receives = pass.forward ? pass.v > 0 : pass.v < V - 1;
    // In three rounds, so that a stream shared by an isolated group waits for all its GPUs'
    // inputs before the pass's first kernels.
    for (const std::vector<int>& group : pass.groups)
      for (int gpu : group)
        streams_.flush(gpu);
    if (receives)
      for (int d = 0; d < static_cast<int>(pass.groups.size()); ++d)
        for (int t = 0; t < plan_.tp; ++t) {
          // Ranks whose transfers are the first rank's arrive with it.
          if (stands_in(t)) {
            receive_[{d, pass.v, pass.micro_batch, t, pass.forward}] =
                receive_.at({d, pass.v, pass.micro_batch, 0, pass.forward});
            continue;
          }
          TaskId recv = streams_.marker(pass.forward ? Phase::activation : Phase::gradient);
          streams_.waits(pass.groups[static_cast<size_t>(d)][static_cast<size_t>(t)]).push_back(recv);
          receive_[{d, pass.v, pass.micro_batch, t, pass.forward}] = recv;
        }
    run_all(pass, plan_.microbatch_overhead_s, pass.slot());
  }

  void forward_kernels(const Pass& pass) {
    const StageCost& c = plan_.stages[static_cast<size_t>(pass.v)];
    const Slot slot = pass.slot();
    if (pass.v == 0) {
      gathers_.use_weights(c.embedding_bytes);
      block_all(pass, c.embedding_forward, slot, false);
    }
    for (int l = 0; l < c.layers; ++l) {
      gathers_.use_weights(plan_.layer.param_bytes);
      block_all(pass, plan_.layer.attention_forward, streams_.in_layer(slot, l));
      block_all(pass, plan_.layer.mlp_forward, streams_.in_layer(slot, l));
    }
    if (pass.v == plan_.pp * plan_.chunks - 1) {
      gathers_.use_weights(c.head_bytes);
      run_all(pass, c.head_forward, slot);
    }
  }

  // The backward runs the layers last to first (the order ZeRO-3's gathers follow too).
  void backward_kernels(const Pass& pass) {
    const StageCost& c = plan_.stages[static_cast<size_t>(pass.v)];
    const Slot slot = pass.slot();
    const int M = plan_.micro_batches;
    const bool last_backward = pass.micro_batch == M - 1;
    const bool rerun = plan_.recompute == Recompute::full && (plan_.recompute_last_micro_batch || pass.micro_batch < M - 1);
    if (pass.v == plan_.pp * plan_.chunks - 1) {
      gathers_.use_weights(c.head_bytes);
      run_all(pass, c.head_backward, slot);
      if (last_backward)
        gradients_.gradients_final(pass.groups, pass.s, c.head_bytes);
    }
    for (int l = c.layers - 1; l >= 0; --l) {
      gathers_.use_weights(plan_.layer.param_bytes);
      if (rerun) {
        block_all(pass, plan_.layer.attention_forward, streams_.in_layer(slot, l, true));
        block_all(pass, plan_.layer.mlp_forward, streams_.in_layer(slot, l, true));
      }
      block_all(pass, plan_.layer.mlp_backward, streams_.in_layer(slot, l));
      // Selective recompute's attention core (nothing to run without it: no task split for it).
      if (plan_.layer.recompute_core > 0)
        run_all(pass, plan_.layer.recompute_core, streams_.in_layer(slot, l, true));
      block_all(pass, plan_.layer.attention_backward, streams_.in_layer(slot, l));
      if (last_backward)
        gradients_.gradients_final(pass.groups, pass.s, plan_.layer.grad_bytes);
    }
    if (pass.v == 0) {
      gathers_.use_weights(c.embedding_bytes);
      run_all(pass, c.embedding_backward, slot);
      if (last_backward)
        gradients_.gradients_final(pass.groups, pass.s, c.embedding_bytes);
    }
  }

  // The pass's output goes to the neighbouring virtual stage (connect_transfers adds the flows).
  void end_pass(const Pass& pass) {
    const int V = plan_.pp * plan_.chunks;
    for (int d = 0; d < static_cast<int>(pass.groups.size()); ++d)
      for (int t = 0; t < plan_.tp; ++t) {
        const int gpu = pass.groups[static_cast<size_t>(d)][static_cast<size_t>(t)];
        const StepKey key{d, pass.v, pass.micro_batch, t, pass.forward};
        send_[key] = streams_.flush(gpu);
        if (plan_.blocking_p2p && (pass.forward ? pass.v < V - 1 : pass.v > 0) && !stands_in(t)) {
          // The sender's stream waits for its send to complete before going on.
          TaskId sent = streams_.marker(pass.forward ? Phase::activation : Phase::gradient);
          streams_.waits(gpu).push_back(sent);
          sent_[key] = sent;
        }
      }
  }

  // Point-to-point transfers between neighbouring virtual stages, serialised per direction.
  void connect_transfers() {
    const int V = plan_.pp * plan_.chunks;
    std::map<std::pair<int, int>, TaskId> last_on_link;
    // Issue order on each link follows the sender's schedule: walk senders' steps in order.
    for (int s = 0; s < plan_.pp; ++s)
      for (int d = 0; d < stand_ins_.replicas; ++d)
        for (const PipelineStep& step : stage_schedule(plan_.schedule, s, plan_.pp, plan_.micro_batches, plan_.chunks)) {
          const bool forward = step.pass == PipelineStep::Pass::forward;
          const int v = step.chunk * plan_.pp + s;
          const int to = forward ? v + 1 : v - 1;
          if (to < 0 || to >= V)
            continue;
          std::optional<TaskId> first_rank; // the first tensor rank's transfer
          for (int t = 0; t < plan_.tp; ++t) {
            const StepKey from_key{d, v, step.micro_batch, t, forward};
            const TaskId producer = send_.at(from_key);
            const TaskId consumer = receive_.at({d, to, step.micro_batch, t, forward});
            const int src = plan_.gpu(s, d, t), dst = plan_.gpu(to % plan_.pp, d, t);
            if (src != dst) {
              out_.p2p_transfers += replica_weight();
              out_.p2p_bytes += replica_weight() * plan_.activation_bytes / plan_.tp;
            }
            if (src != dst && first_rank && stand_ins_.first_rank_stands_in) {
              // The first rank's transfer, receive and send markers stand for this rank's.
              last_send_[src] = *first_rank;
              continue;
            }
            TaskId done = producer;
            if (src != dst) {
              Task x;
              x.kind = Task::Kind::transfer;
              x.phase = forward ? Phase::activation : Phase::gradient;
              x.gpu = src;
              x.peer = dst;
              x.stage = s;
              x.micro_batch = step.micro_batch;
              x.chunk = step.chunk;
              // Megatron's scatter-gather: each tensor rank sends its 1/tp slice.
              x.bytes = plan_.activation_bytes / plan_.tp;
              done = boost::add_vertex(x, g());
              boost::add_edge(producer, done, g());
              auto link = std::make_pair(src, dst);
              if (auto prev = last_on_link.find(link); prev != last_on_link.end())
                boost::add_edge(prev->second, done, g());
              last_on_link[link] = done;
              first_rank = done;
            }
            boost::add_edge(done, consumer, g());
            if (src != dst)
              last_send_[src] = done;
            if (auto sent = sent_.find(from_key); sent != sent_.end())
              boost::add_edge(done, sent->second, g());
          }
        }
  }

  // Gradient synchronisations that start after the GPU's last pipeline send.
  void order_after_sends() {
    for (const auto& [gpu, entry] : gradients_.after_sends())
      if (auto send = last_send_.find(gpu); send != last_send_.end())
        boost::add_edge(send->second, entry, g());
  }

  const ExecutionPlan& plan_;
  const StepGraphOptions options_;
  StepGraph out_;
  GroupCollectives collectives_;
  const StandIns stand_ins_;
  ComputeStreams streams_;
  DataParallelStreams dp_streams_;
  ZeroGathers gathers_;
  GradientSync gradients_;
  std::map<int, TaskId> last_send_;
  std::map<StepKey, TaskId> send_, receive_, sent_;
};

} // namespace

StepGraph build_step_graph(const ExecutionPlan& plan, const Topology& topology, const StepGraphOptions& options) {
  return Builder(plan, topology, options).build();
}

} // namespace simgpt
