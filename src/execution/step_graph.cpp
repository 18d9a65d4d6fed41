#include "execution/step_graph.hpp"

#include "core/machine_memory.hpp"
#include "execution/schedule.hpp"
#include "execution/step_graph/compute_streams.hpp"
#include "execution/step_graph/data_parallel_streams.hpp"
#include "execution/step_graph/gradient_sync.hpp"
#include "execution/step_graph/group_collectives.hpp"
#include "execution/step_graph/parallel_groups.hpp"
#include "execution/step_graph/pass.hpp"
#include "execution/step_graph/pipeline_transfers.hpp"
#include "execution/step_graph/stand_ins.hpp"
#include "execution/step_graph/routes.hpp"
#include "execution/step_graph/slowdown.hpp"
#include "execution/step_graph/task_limit.hpp"
#include "execution/step_graph/zero_gathers.hpp"
#include "simgpt/framework/profile.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace simgpt {
namespace {

using namespace step_graph;

// Walks each stage's schedule and lays each pass's kernels on the compute streams, with the
// tensor-parallel collectives inside its layers; the parts it holds add what joins the passes.
class StepBuilder {
  const ExecutionPlan& plan_;
  const Profile& profile_;
  const StepGraphOptions options_;
  StepGraph& out_;
  GroupCollectives collectives_;
  const StandIns stand_ins_;
  ComputeStreams streams_;
  DataParallelStreams dp_streams_;
  ZeroGathers gathers_;
  GradientSync gradients_;
  PipelineTransfers transfers_;
  TaskProjection projection_;
  // Activation offloading: per GPU, its copy stream's last copy, and the current micro-batch's
  // copy of each offloaded layer out (after its forward) and back (before its backward).
  std::vector<std::optional<TaskId>> copy_tail_;
  std::vector<std::vector<TaskId>> copied_out_, copied_in_;

public:
  StepBuilder(const ExecutionPlan& plan, const Profile& profile, const Topology& topology,
              const StepGraphOptions& options, StepGraph& out)
      : plan_(plan), profile_(profile), options_(options), out_(out),
        collectives_(profile, topology, out_, options_.max_tasks),
        stand_ins_(find_stand_ins(plan, topology, options_, collectives_, out_.isolated)),
        streams_(out_, options_, stand_ins_, plan.gpus()), dp_streams_(out_.graph, plan.gpus()),
        gathers_(plan, stand_ins_, streams_, dp_streams_, collectives_, out_.graph),
        gradients_(plan, profile, stand_ins_, streams_, dp_streams_, collectives_, out_.graph),
        transfers_(plan, profile, stand_ins_, streams_, out_), projection_(options_.max_tasks),
        copy_tail_(static_cast<size_t>(plan.gpus())),
        copied_out_(static_cast<size_t>(plan.gpus()), std::vector<TaskId>(static_cast<size_t>(plan.offload_layers))),
        copied_in_(copied_out_) {
    collectives_.replay_whole(stand_ins_.whole_index);
    out_.replicas_simulated = stand_ins_.replicas;
    out_.tensor_ranks_simulated = stand_ins_.first_rank_stands_in ? 1 : plan_.tp;
    out_.expert_group_folded = stand_ins_.expert_groups_folded ? plan_.ep : 0;
    for (int gpu = 0; gpu < plan.gpus(); ++gpu)
      out_.compute_stream.push_back(stand_ins_.stream(gpu));
  }

  // Refused past the limit: with the tasks it would need, as projected, and the replicas simulated.
  void build() try {
    for (int s = 0; s < plan_.pp; ++s) {
      build_stage(s);
      gradients_.synchronise_and_update(s);
    }
    transfers_.connect();
    transfers_.order_after_sends(gradients_.after_sends());
  } catch (StepGraphTooLarge& e) {
    projection_.project(e);
    e.replicas_simulated = stand_ins_.replicas;
    throw;
  }

private:
  // All replicas of stage s step through the schedule together, so that collectives across
  // replicas (ZeRO-3's gathers) can join their streams.
  void build_stage(int s) {
    Pass pass;
    pass.s = s;
    gathers_.begin_stage(s);
    for (int d = 0; d < stand_ins_.replicas; ++d)
      pass.groups.push_back(tp_group(plan_, s, d));
    const std::vector<PipelineStep> schedule =
        stage_schedule(plan_.schedule, s, plan_.pp, plan_.micro_batches, plan_.chunks, plan_.flushes, plan_.interleaved_all_warmup);
    for (size_t i = 0; i < schedule.size(); ++i) {
      const PipelineStep& step = schedule[i];
      projection_.pass_begins(boost::num_vertices(out_.graph), schedule.size() * static_cast<size_t>(plan_.pp));
      pass.v = step.chunk * plan_.pp + s;
      pass.forward = step.pass == PipelineStep::Pass::forward;
      // Megatron-Core's combined 1F1B runs a backward with the forward after it (combined_1f1b.py:
      // B(k - 1) + F(k)); the warm-up's forwards, one more than 1F1B's, and the cool-down's
      // backwards run alone.
      const auto is = [&](size_t j, PipelineStep::Pass p) { return j < schedule.size() && schedule[j].pass == p; };
      pass.paired = plan_.moe_a2a_overlap && (pass.forward ? i > 0 && is(i - 1, PipelineStep::Pass::backward)
                                                           : is(i + 1, PipelineStep::Pass::forward));
      pass.micro_batch = step.micro_batch;
      pass.chunk = step.chunk;
      begin_pass(pass);
      gathers_.begin_pass(s, pass.v, pass.forward);
      if (pass.forward)
        forward_kernels(pass);
      else
        backward_kernels(pass);
      transfers_.send_outputs(pass);
    }
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
      transfers_.await_inputs(pass);
    run_all(pass, profile_.microbatch_overhead_s, pass.slot());
  }

  void forward_kernels(const Pass& pass) {
    const StageCost& c = plan_.stages[static_cast<size_t>(pass.v)];
    const Slot slot = pass.slot();
    if (pass.v == 0) {
      gathers_.use_weights(c.embedding_bytes);
      block_all(pass, c.embedding_forward, slot, 0);
    }
    for (int l = 0; l < c.layers; ++l) {
      const LayerCost& layer = plan_.layer_at(c.first_layer + l);
      // TransformerEngine's DefaultOffloadSynchronizer (transformer_engine/pytorch/cpu_offload.py,
      // 2.10 on): offloaded layer i's copy out starts once its forward is done (fwd_step of the
      // next layer) and must be done before layer L - N + i's forward, which frees its memory.
      if (const int i = plan_.offload_awaited_before_forward(l); i >= 0)
        wait_for_copy(pass, i, false);
      gathers_.use_weights(layer.param_bytes);
      attention_all(pass, layer, true, streams_.in_layer(slot, l));
      mlp_all(pass, layer, true, streams_.in_layer(slot, l));
      if (l < plan_.offload_layers)
        copy(pass, l, false);
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
    const bool rerun = plan_.recompute == Recompute::full && (profile_.recompute_last_micro_batch || pass.micro_batch < M - 1);
    if (pass.v == plan_.pp * plan_.chunks - 1) {
      gathers_.use_weights(c.head_bytes);
      run_all(pass, c.head_backward, slot);
      if (last_backward)
        gradients_.gradients_final(pass.groups, pass.s, {.grads = c.head_bytes * plan_.grad_factor, .weights = c.head_bytes},
                                   c.head_grad_tensors);
      else
        gradients_.gradients_accumulated(pass.s, c.head_bytes * plan_.grad_factor);
    }
    for (int l = c.layers - 1; l >= 0; --l) {
      const LayerCost& layer = plan_.layer_at(c.first_layer + l);
      // The synchronizer's bwd_step: layer i is copied back as layer L - 1 - N + i's backward
      // begins, N layers ahead of its own, whose saved tensors wait for it (pop_tensor).
      if (const int i = plan_.offload_copied_back_at_backward(l); i >= 0)
        copy(pass, i, true);
      if (l < plan_.offload_layers)
        wait_for_copy(pass, l, true);
      gathers_.use_weights(layer.param_bytes);
      if (rerun) {
        attention_all(pass, layer, true, streams_.in_layer(slot, l, true));
        mlp_all(pass, layer, true, streams_.in_layer(slot, l, true));
      }
      // Megatron-core's recompute module moe: the MoE block's forward, all-to-alls and all, first.
      if (!rerun && plan_.moe_rerun && layer.moe)
        mlp_all(pass, layer, true, streams_.in_layer(slot, l, true));
      mlp_all(pass, layer, false, streams_.in_layer(slot, l));
      // Selective recompute's attention core (nothing to run without it: no task split for it).
      if (layer.recompute_core > 0)
        run_all(pass, layer.recompute_core, streams_.in_layer(slot, l, true));
      attention_all(pass, layer, false, streams_.in_layer(slot, l));
      if (last_backward)
        gradients_.gradients_final(pass.groups, pass.s,
                                   {.grads = layer.grad_bytes,
                                    .expert_grads = layer.expert_grad_bytes,
                                    .weights = layer.param_bytes,
                                    .expert_weights = layer.expert_param_bytes},
                                   layer.grad_tensors);
      else
        gradients_.gradients_accumulated(pass.s, layer.grad_bytes, layer.expert_grad_bytes);
    }
    if (pass.v == 0) {
      gathers_.use_weights(c.embedding_bytes);
      run_all(pass, c.embedding_backward, slot);
      if (last_backward)
        gradients_.gradients_final(pass.groups, pass.s,
                                   {.grads = c.embedding_bytes * plan_.grad_factor, .weights = c.embedding_bytes},
                                   c.embedding_grad_tensors);
      else
        gradients_.gradients_accumulated(pass.s, c.embedding_bytes * plan_.grad_factor);
    }
  }

  // Layer `layer`'s saved activations copied out (or `back`) on each GPU's copy stream (one stream
  // for both ways: the synchronizer's offload_stream), after the kernels its stream has issued so far.
  void copy(const Pass& pass, int layer, bool back) {
    std::vector<std::vector<TaskId>>& copies = back ? copied_in_ : copied_out_;
    CollectiveCount& host = out_.communication[CommDimension::host];
    for (const std::vector<int>& group : pass.groups)
      for (int gpu : group) {
        // Counted for each GPU of the simulated replicas, and the replicas each stands for.
        host.count += stand_ins_.replica_weight();
        host.first_gpu += gpu == 0 ? 1 : 0;
        host.bytes += stand_ins_.replica_weight() * plan_.offload_bytes[static_cast<size_t>(layer)];
        if (streams_.stream(gpu) != gpu)
          continue; // the group's first GPU's stream runs the same copies for it
        const TaskId issued = streams_.flush(gpu);
        Task t;
        t.kind = Task::Kind::delay;
        t.phase = Task::Phase::offload;
        t.dimension = CommDimension::host;
        t.gpu = gpu;
        t.stage = pass.s;
        t.micro_batch = pass.micro_batch;
        t.seconds = plan_.offload_s[static_cast<size_t>(layer)];
        t.peer = back ? 1 : 0; // which way: 0 to the host, 1 back (a trace's label)
        const TaskId id = boost::add_vertex(t, out_.graph);
        boost::add_edge(issued, id, out_.graph);
        auto& tail = copy_tail_[static_cast<size_t>(gpu)];
        if (tail)
          boost::add_edge(*tail, id, out_.graph);
        tail = id;
        copies[static_cast<size_t>(gpu)][static_cast<size_t>(layer)] = id;
      }
  }

  // Each GPU's next kernels wait for layer `layer`'s copy out (or `back`).
  void wait_for_copy(const Pass& pass, int layer, bool back) {
    const std::vector<std::vector<TaskId>>& copies = back ? copied_in_ : copied_out_;
    for (const std::vector<int>& group : pass.groups)
      for (int gpu : group)
        if (streams_.stream(gpu) == gpu) {
          streams_.flush(gpu);
          streams_.wait_for(gpu, copies[static_cast<size_t>(gpu)][static_cast<size_t>(layer)]);
        }
  }

  void run_all(const Pass& pass, double seconds, const Slot& slot) {
    for (const std::vector<int>& group : pass.groups)
      for (int gpu : group)
        streams_.run(gpu, seconds, slot);
  }

  // A layer's attention block, forward or backward. Under context parallelism (its all-to-all
  // form) the core runs between an all-to-all of Q, K and V, which gives each rank the whole
  // sequence for 1/cp of its heads, and one of the output back to its own tokens; the backward
  // runs them in reverse on the gradients (TransformerEngine 2.8 and later all-to-all only the
  // output's gradient there, not the output again).
  void attention_all(const Pass& pass, const LayerCost& layer, bool forward, const Slot& slot) {
    if (!layer.mixer) // a hybrid model's MLP layer
      return;
    const double gathered = layer.attention_gather_bytes > 0 ? layer.attention_gather_bytes : plan_.activation_bytes;
    const double* overlap = layer.tp_overlap_s[0][forward ? 0 : 1]; // zeros without tp_comm_overlap
    if (plan_.cp < 2) {
      block_all(pass, forward ? layer.attention_forward : layer.attention_backward, slot, gathered, overlap);
      return;
    }
    const double* parts = forward ? layer.attention_parts_forward : layer.attention_parts_backward;
    for (const std::vector<int>& group : pass.groups)
      gather_then_run(group, gathered, overlap[0], parts[forward ? 0 : 2], slot);
    if (plan_.cp_comm_type == CpCommType::p2p) {
      ring_attention(pass, parts[1], forward ? layer.context_kv_bytes : layer.context_kv_backward_bytes, slot);
    } else {
      exchange_context(pass, forward ? layer.context_in_bytes : layer.context_out_bytes);
      run_all(pass, parts[1], slot);
      exchange_context(pass, forward ? layer.context_out_bytes : layer.context_in_bytes);
    }
    for (const std::vector<int>& group : pass.groups)
      run_then_scatter(group, overlap[1], parts[forward ? 2 : 0], slot);
  }

  // Ring attention (Megatron's cp_comm_type p2p; TransformerEngine's AttnFuncWithCPAndKVP2P): cp
  // steps, each attending this rank's queries to one rank's keys and values while the block is
  // passed on to the next rank for the step after (in the backward, the keys and values with their
  // gradients). A step waits for the block it attends to; the last sends nothing.
  void ring_attention(const Pass& pass, double core_seconds, double block_bytes, const Slot& slot) {
    for (int i = 0; i < plan_.cp; ++i) {
      std::vector<std::pair<std::vector<int>, TaskId>> shifts;
      if (i + 1 < plan_.cp)
        for_each_group(pass, plan_.cp, [&](const std::vector<int>& members) {
          for (int gpu : members)
            streams_.flush(gpu);
          CollectiveTasks c = collectives_.add(CommDimension::cp, members, CollectiveKind::ring_shift, block_bytes,
                                               CollectiveAlgorithm::ring, stand_ins_.replica_weight());
          for (int gpu : members)
            boost::add_edge(*streams_.tail(gpu), c.entry, out_.graph);
          shifts.emplace_back(members, c.exit);
        });
      run_all(pass, core_seconds / plan_.cp, slot);
      for (const auto& [members, exit] : shifts)
        for (int gpu : members) {
          streams_.flush(gpu);
          streams_.wait_for(gpu, exit);
        }
    }
  }

  // Calls `f` with each group of `size` consecutive replicas' GPUs of the pass's simulated
  // replicas, per tensor rank (the first group whole when its first member's stream stands for
  // it: expert_groups_folded).
  template <class F> void for_each_group(const Pass& pass, int size, F f) {
    for (int first = 0; first < std::max(static_cast<int>(pass.groups.size()), size); first += size)
      for (int t = 0; t < plan_.tp; ++t)
        f(replica_group(plan_, pass.s, first, size, t));
  }

  // One all-to-all per context-parallel group of the pass's stage: for each tensor rank, the cp
  // consecutive replicas that share a sequence (Megatron's rank order tp-cp-ep-dp-pp).
  void exchange_context(const Pass& pass, double bytes) { exchange(CommDimension::cp, pass, plan_.cp, bytes); }

  // A layer's MLP block, forward or backward, dense or MoE. A MoE block runs its three parts around
  // the token exchange (Megatron-LM's MoEAlltoAllTokenDispatcher, megatron/core/transformer/moe/
  // token_dispatcher.py): the router and permutation, the dispatch all-to-all over the
  // expert-parallel group, the experts (between the tensor-parallel all-gather and reduce-scatter
  // of their tokens, as `block` lays them), the combine all-to-all, the unpermutation. The
  // backward runs them in reverse, each all-to-all carrying the gradients of its tokens back.
  void mlp_all(const Pass& pass, const LayerCost& layer, bool forward, const Slot& slot) {
    if (!layer.mlp) // a hybrid model's Mamba or attention layer
      return;
    if (!layer.moe) {
      block_all(pass, forward ? layer.mlp_forward : layer.mlp_backward, slot, plan_.activation_bytes,
                layer.tp_overlap_s[1][forward ? 0 : 1]);
      return;
    }
    const double* parts = forward ? layer.moe_forward : layer.moe_backward;
    // moe_a2a_overlap: a pass paired with one of the other direction (Pass::paired) runs its
    // all-to-alls beside that pass's computation (LayerCost::a2a_overlap_s); a lone one exposes them.
    const double* beside = layer.a2a_overlap_s[forward ? 0 : 1];
    const double first = pass.paired ? beside[forward ? 0 : 1] : 0, second = pass.paired ? beside[forward ? 1 : 0] : 0;
    run_all(pass, parts[forward ? 0 : 2], slot);
    exchange_tokens(pass, layer.all_to_all_bytes, first);
    // Experts whole (expert_group_tp) take no tensor-parallel gather and reduce-scatter.
    if (plan_.expert_group_tp > 1)
      run_all(pass, parts[1], slot);
    else
      block_all(pass, parts[1], slot);
    exchange_tokens(pass, layer.all_to_all_bytes, second);
    run_all(pass, parts[forward ? 2 : 0], slot);
  }

  // One all-to-all per expert-parallel group of the pass's stage: for each tensor rank, ep
  // consecutive data-parallel replicas (parallel_state.py's expert rank order, tp-ep-dp-pp).
  void exchange_tokens(const Pass& pass, double bytes, double beside_s = 0) {
    exchange(CommDimension::ep, pass, plan_.ep, bytes, beside_s);
  }

  // An all-to-all of `bytes` per GPU in each group of `size` consecutive replicas, per tensor rank,
  // overlapped with `beside_s` of computation on another stream.
  // Where the weights are all-gathered as the forwards need them (overlap_param_gather, ZeRO-3),
  // those gathers share links with a folded group's exchanges (symmetry.cpp, fold_expert_groups):
  // a virtual stage's first forward, which waits for them, and a forward that begins by issuing a
  // later chunk's (align_param_gather) run their exchanges' own flows, and none of them is the
  // measure the folded ones take.
  void exchange(CommDimension dimension, const Pass& pass, int size, double bytes, double beside_s = 0) {
    const bool beside_gathers =
        gathers_weights(plan_) && pass.forward && (pass.micro_batch == 0 || gathers_.issued_in_pass());
    const Measure measure = beside_gathers ? Measure::none : Measure::first;
    if (dimension == CommDimension::ep && plan_.expert_group_tp > 1) {
      // Experts whole beside tp > 1: each group is the tensor ranks of `size` replicas together.
      for (int first = 0; first < std::max(static_cast<int>(pass.groups.size()), size); first += size)
        blocking_collective(dimension, expert_group(plan_, pass.s, first, 0), CollectiveKind::all_to_all, bytes,
                            beside_s, size, true, measure);
      return;
    }
    if (size > 1)
      for_each_group(pass, size, [&](const std::vector<int>& members) {
        blocking_collective(dimension, members, CollectiveKind::all_to_all, bytes, beside_s, size, true, measure);
      });
  }

  void block_all(const Pass& pass, double seconds, const Slot& slot) {
    block_all(pass, seconds, slot, plan_.activation_bytes);
  }

  void block_all(const Pass& pass, double seconds, const Slot& slot, double gathered_bytes,
                 const double* overlap_s = nullptr) {
    for (const std::vector<int>& group : pass.groups)
      block(group, seconds, slot, gathered_bytes, overlap_s);
  }

  // One tensor-parallel block: Megatron's f/g operators. Without sequence parallelism the block's
  // output is all-reduced; with it, the input (`gathered_bytes` of it) is all-gathered and the
  // output reduce-scattered. The vocabulary-parallel embedding has no input to gather (0 bytes).
  // `overlap_s` (tp_comm_overlap): the GEMM seconds the gather and the reduce-scatter run beside.
  void block(const std::vector<int>& group, double seconds, const Slot& slot, double gathered_bytes,
             const double* overlap_s = nullptr) {
    const double gather_overlap = overlap_s ? overlap_s[0] : 0, scatter_overlap = overlap_s ? overlap_s[1] : 0;
    // The reduce-scatter's GEMM is the block's last, after the gather's first.
    const double gather_gemm = gathered_bytes > 0 && beside(group, gather_overlap) ? std::min(gather_overlap, seconds) : 0;
    const double scatter_gemm = beside(group, scatter_overlap) ? std::min(scatter_overlap, seconds - gather_gemm) : 0;
    gather_then_run(group, gathered_bytes, gather_overlap, seconds - scatter_gemm, slot);
    run_then_scatter(group, scatter_overlap, scatter_gemm, slot);
  }

  // A block's all-gather of `gathered_bytes` (none for 0), then `seconds` of its kernels: their
  // first `overlap_s` (its GEMM) beside the gather where the group's links carry other traffic
  // (gather_beside), else after it, folded or whole (begin_block).
  void gather_then_run(const std::vector<int>& group, double gathered_bytes, double overlap_s, double seconds,
                       const Slot& slot) {
    const double gemm = gathered_bytes > 0 && beside(group, overlap_s) ? std::min(overlap_s, seconds) : 0;
    if (gemm > 0)
      gather_beside(group, gathered_bytes, gemm, slot);
    else if (gathered_bytes > 0)
      begin_block(group, gathered_bytes, overlap_s);
    for (int gpu : group)
      streams_.run(gpu, seconds - gemm, slot);
  }

  // A block's last `seconds` of kernels, then its reduce-scatter (all-reduce without sequence
  // parallelism): the last `overlap_s` (its GEMM) beside it as gather_then_run's are.
  void run_then_scatter(const std::vector<int>& group, double overlap_s, double seconds, const Slot& slot) {
    const double gemm = beside(group, overlap_s) ? std::min(overlap_s, seconds) : 0;
    for (int gpu : group)
      streams_.run(gpu, seconds - gemm, slot);
    if (gemm > 0)
      scatter_beside(group, gemm, slot);
    else
      end_block(group, overlap_s);
  }

  // tp_comm_overlap on a group whose links carry other traffic too (data-parallel, pipeline or
  // other groups' flows), where its collectives cannot be folded: each runs its flows beside the
  // GEMM it overlaps, as TransformerEngine's userbuffers run the exchange of one chunk beside the
  // GEMM of the one before (transformer_engine/pytorch/module/base.py, initialize_ub; the ring
  // exchange of CommOverlapP2P). The all-gather's first of tp chunks comes before the GEMM (the
  // GEMM starts on a chunk it holds), the rest beside it; the reduce-scatter's last chunk after
  // it. So the block holds its stream for max(t / tp + W, t) at the gather and max(W + t / tp, t)
  // at the reduce-scatter, W the GEMM's seconds: what a folded collective holds
  // (FoldedCollective::overlap_s), with flows that share the links.
  bool beside(const std::vector<int>& group, double overlap_s) const {
    return overlap_s > 0 && group.size() > 1 && plan_.sequence_parallel && !stand_ins_.isolated_index.contains(group);
  }

  // The all-gather before a block, `gemm_s` of the block's first GEMM beside all of it but its
  // first chunk.
  void gather_beside(const std::vector<int>& group, double bytes, double gemm_s, const Slot& slot) {
    const auto [first, rest] =
        split_collective(group, CollectiveKind::allgather, bytes, bytes / static_cast<double>(group.size()));
    for (int gpu : group)
      streams_.tail(gpu) = first.exit;
    for (int gpu : group) {
      streams_.run(gpu, gemm_s, slot);
      streams_.flush(gpu);
      streams_.wait_for(gpu, rest.exit);
    }
  }

  // The reduce-scatter after a block, `gemm_s` of the block's last GEMM beside all of it but its
  // last chunk.
  void scatter_beside(const std::vector<int>& group, double gemm_s, const Slot& slot) {
    const double bytes = plan_.activation_bytes;
    const auto [first, last] = split_collective(group, CollectiveKind::reduce_scatter, bytes,
                                                bytes - bytes / static_cast<double>(group.size()));
    for (int gpu : group) {
      streams_.run(gpu, gemm_s, slot);
      boost::add_edge(streams_.flush(gpu), last.entry, out_.graph);
    }
    for (int gpu : group)
      streams_.tail(gpu) = last.exit;
  }

  // A tensor-parallel collective of `bytes` as two after the streams' tails, the first of
  // `first_bytes`, the second after it; counted once, whole.
  std::pair<CollectiveTasks, CollectiveTasks> split_collective(const std::vector<int>& group, CollectiveKind kind,
                                                               double bytes, double first_bytes) {
    for (int gpu : group)
      streams_.flush(gpu);
    const int times = stand_ins_.group_weight(1);
    const CollectiveTasks first =
        collectives_.add(CommDimension::tp, group, kind, first_bytes, CollectiveAlgorithm::ring, times, false);
    const CollectiveTasks second =
        collectives_.add(CommDimension::tp, group, kind, bytes - first_bytes, CollectiveAlgorithm::ring, times, false);
    collectives_.count(CommDimension::tp, group, kind, bytes, times, collectives_.from_table(group, kind, bytes));
    for (int gpu : group)
      boost::add_edge(*streams_.tail(gpu), first.entry, out_.graph);
    boost::add_edge(first.exit, second.entry, out_.graph);
    return {first, second};
  }

  void begin_block(const std::vector<int>& group, double gathered_bytes, double overlap_s = 0) {
    if (group.size() > 1 && plan_.sequence_parallel)
      blocking_collective(CommDimension::tp, group, CollectiveKind::allgather, gathered_bytes, overlap_s);
  }

  void end_block(const std::vector<int>& group, double overlap_s = 0) {
    if (group.size() > 1)
      blocking_collective(CommDimension::tp, group, plan_.sequence_parallel ? CollectiveKind::reduce_scatter : CollectiveKind::allreduce,
                          plan_.activation_bytes, overlap_s);
  }

  // How an isolated group's collective relates to the measure its later likes take: `first`, it
  // takes an existing one or becomes it; `none`, it runs its own flows and is none (it may meet
  // other traffic).
  enum class Measure { first, none };

  // A flex dispatcher's token exchange takes at least its bytes at the rate of the SMs its kernels
  // hold (ExecutionPlan::dispatch_rate); 0 for any other collective.
  double dispatch_floor(CommDimension dimension, CollectiveKind kind, double bytes) const {
    return dimension == CommDimension::ep && kind == CollectiveKind::all_to_all ? plan_.dispatch_floor_s(bytes) : 0;
  }

  // A collective on the compute streams of `gpus`: it starts when all have reached it, and
  // their next kernels wait for it. `overlap_s` (tp_comm_overlap): folded, it holds the stream
  // only for what that much GEMM beside it does not cover (FoldedCollective::overlap_s); the first
  // of its kind, measured, and a collective of a group that is not isolated block whole (block() runs
  // those beside their GEMMs instead: gather_beside, scatter_beside).
  // `spans`: the replicas the group spans (a tensor-parallel group one, an expert-parallel group
  // ep), which say how many groups' alike collectives it stands for. `beside`: overlapped whole
  // from a stream of its own (moe_a2a_overlap), not in chunks of the GEMM. `measure`: how an
  // isolated group's collective relates to the measure of those like it.
  void blocking_collective(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind, double bytes,
                           double overlap_s = 0, int spans = 1, bool beside = false, Measure measure = Measure::first) {
    const int times = stand_ins_.group_weight(spans);
    const double floor = dispatch_floor(dimension, kind, bytes);
    if (auto isolated = stand_ins_.isolated_index.find(gpus); isolated != stand_ins_.isolated_index.end()) {
      collectives_.count(dimension, gpus, kind, bytes, times, collectives_.from_table(gpus, kind, bytes, floor <= 0));
      // The streams it joins: the group's first GPU's, or where an expert-parallel group spans the
      // tensor ranks (expert_group) each rank's, its first replica's GPUs, which stand for the rest.
      const size_t streams =
          dimension == CommDimension::ep && plan_.expert_group_tp > 1 ? static_cast<size_t>(plan_.tp) : 1;
      // After the first like it, folded into the kernels around it (FoldedCollective).
      const auto measured =
          measure == Measure::none ? std::nullopt : streams_.measured(gpus.front(), isolated->second, kind, bytes);
      if (measured) {
        for (size_t i = 0; i < streams; ++i)
          streams_.fold(gpus[i], *measured, out_.graph[*measured].seconds, overlap_s,
                        beside ? 0 : static_cast<int>(gpus.size()), beside ? plan_.a2a_sm_share : 0);
        return;
      }
      // The first: one task on the group's one stream, what all its GPUs wait for; the measure of
      // those after it unless it may meet other traffic (Task::unmeasured).
      const bool measures = measure == Measure::first;
      for (size_t i = 0; i < streams; ++i)
        streams_.flush(gpus[i]);
      const TaskId id = collectives_.add_whole(dimension, gpus, kind, bytes, isolated->second, measures, floor <= 0);
      out_.graph[id].flow_floor_s = static_cast<float>(floor);
      for (size_t i = 0; i < streams; ++i)
        streams_.append(gpus[i], id);
      if (measures)
        streams_.measures(gpus.front(), id, bytes);
      return;
    }
    for (int gpu : gpus)
      streams_.flush(gpu);
    CollectiveTasks c = collectives_.add(dimension, gpus, kind, bytes, CollectiveAlgorithm::ring, times, true, floor <= 0);
    if (floor > 0)
      out_.graph[add_collective_floor(out_.graph, c, kind, floor)].dimension = dimension;
    for (int gpu : gpus) {
      boost::add_edge(*streams_.tail(gpu), c.entry, out_.graph);
      streams_.tail(gpu) = c.exit;
    }
  }
};

} // namespace

size_t tasks_in_half_memory() {
  const double bytes = static_cast<double>(machine_memory_bytes());
  return bytes > 0 ? static_cast<size_t>(bytes / 2 / kTaskBytes) : 20'000'000;
}

std::vector<const void*> communication_links(const ExecutionPlan& plan, const Profile& profile,
                                             const Topology& topology) {
  using namespace step_graph;
  StepGraph scratch([](StepGraph&) {});
  GroupCollectives collectives(profile, topology, scratch, tasks_in_half_memory());
  std::vector<const void*> links;
  const auto use = [&](const Routes& routes) {
    for (const auto& [a, b] : routes)
      if (const auto shared = topology.shared_links(a, b))
        links.insert(links.end(), shared->begin(), shared->end());
  };
  for (int s = 0; s < plan.pp; ++s) {
    for (int d = 0; d < plan.dp && plan.tp > 1; ++d)
      use(ring_routes(collectives, tp_group(plan, s, d)));
    for (int t = 0; t < plan.tp; ++t)
      use(dp_routes(plan, collectives, s, t));
  }
  for (const auto& replica : pipeline_routes(plan))
    for (const Routes& rank : replica)
      use(rank);
  use(all_exchange_routes(plan));
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return links;
}

StepGraph build_step_graph(const ExecutionPlan& plan, const Profile& profile, const Topology& topology,
                           const StepGraphOptions& options) {
  if (options.symmetric && !options.gpu_slowdown.empty())
    throw std::logic_error("a symmetric step graph cannot hold slowed GPUs: its replicas stand for each other");
  return StepGraph([&](StepGraph& out) {
    StepBuilder(plan, profile, topology, options, out).build();
    if (!options.gpu_slowdown.empty())
      step_graph::slow_down(out, options.gpu_slowdown);
  });
}

} // namespace simgpt
