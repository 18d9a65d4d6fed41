// The execution plan: which GPU holds which (pipeline stage, data-parallel replica, tensor
// rank), and what each piece of a stage costs on its GPU per micro-batch.
#pragma once

#include "cost/kernel_ledger.hpp"
#include "simgpt/workload/workload.hpp"

#include <array>
#include <string>
#include <vector>

namespace simgpt {

class ComputeCostModel;
struct Profile;

// Seconds of one transformer layer's blocks on one GPU for one micro-batch.
struct LayerCost {
  double attention_forward = 0;
  double mlp_forward = 0;
  double attention_backward = 0;
  double mlp_backward = 0;
  double recompute_core = 0; // selective recompute: what is rerun before the layer's backward (the
                             // attention core, or the profile's op policy's kernels)
  double grad_bytes = 0;     // the layer's gradients on one GPU (expert_grad_bytes among them)
  double param_bytes = 0;    // the layer's weights on one GPU, as the data-parallel all-gathers move them
  // A MoE layer: its MLP block's three parts in forward order (before the dispatch all-to-all,
  // the experts, after the combine all-to-all; mlp_forward and mlp_backward are their sums), the
  // bytes each GPU's all-to-all buffer holds, and the routed experts' gradients, which the
  // expert-data-parallel group (dp / ep ranks) reduces instead of the data-parallel one.
  bool moe = false;
  double moe_forward[3] = {0, 0, 0}, moe_backward[3] = {0, 0, 0};
  double all_to_all_bytes = 0;
  // parallelism.moe_a2a_overlap: the computation of the partner micro-batch each all-to-all runs
  // beside, [0 forward, 1 backward][0 dispatch, 1 combine] (zeros without it).
  double a2a_overlap_s[2][2] = {};
  double expert_grad_bytes = 0;
  double expert_param_bytes = 0; // the routed experts' weights among param_bytes
  // Context parallelism (cp > 1): the attention block's three parts in forward order (before the
  // core, the core, after it; attention_forward and attention_backward are their sums), and the
  // buffers of its all-to-alls: Q, K and V in, the core's output out.
  double attention_parts_forward[3] = {0, 0, 0}, attention_parts_backward[3] = {0, 0, 0};
  double context_in_bytes = 0, context_out_bytes = 0;
  double context_kv_bytes = 0; // the ring form's: one rank's keys and values, passed to the next rank
  double context_kv_backward_bytes = 0; // the backward's: the keys and values with their gradients
  // Sequence parallelism: what the attention block all-gathers over tp before its column-parallel
  // GEMMs (0: the activation, hidden wide; multi-head latent attention gathers its latents).
  double attention_gather_bytes = 0;
  // tp_comm_overlap: the GEMM seconds a block's all-gather and its reduce-scatter run beside:
  // [0 attention, 1 MLP][0 forward, 1 backward][0 all-gather, 1 reduce-scatter]; zeros (no
  // overlap) without it.
  double tp_overlap_s[2][2][2] = {};
  // With collectives.dp_per_tensor: each parameter tensor's gradient bytes on one GPU, in module
  // order (summing to grad_bytes); empty otherwise.
  std::vector<double> grad_tensors;
  // Its blocks: a mixer (attention, or a hybrid model's Mamba layer, costed as `attention_*`) and
  // an MLP; a hybrid model's layer has one of the two (model.hybrid_pattern).
  bool mixer = true, mlp = true;
};

// One virtual stage (a stage's model chunk) on one GPU.
struct StageCost {
  int layers = 0;
  int first_layer = 0; // the model's index of its first layer
  double embedding_forward = 0, embedding_backward = 0;
  double head_forward = 0, head_backward = 0;
  double embedding_bytes = 0; // embedding weights (and as many gradient bytes) on one GPU
  double head_bytes = 0;      // head weights, with the tied word-embedding copy of a separate last stage
  std::vector<double> embedding_grad_tensors, head_grad_tensors; // per tensor, as LayerCost::grad_tensors
  double optimizer_s = 0;       // optimizer step over all the stage's parameters on one GPU
  double grad_pass_s = 0;       // the framework's passes over the gradients this GPU holds (Profile::grad_passes): not sharded
  double parameters = 0;        // parameters on one GPU (its tensor-parallel shard)
  double expert_parameters = 0; // the routed experts' among them (its expert-parallel share)
};

// How the workload is split and what each block costs. How the framework runs it (host time,
// overlap, buckets) is the Profile's, which the later stages take beside the plan.
struct ExecutionPlan {
  int flushes = 1; // schedules a step runs one after another (parallelism.pipeline_flushes)
  // Activation offloading (training.cpu_offload_layers, one stage only): the first offload_layers
  // layers' saved activations go to the host's memory; offload_s, per layer of the model, the
  // seconds of one copy of one micro-batch's, one way, at the GPU's host_bandwidth (set by
  // with_offload, memory/: the bytes are the memory model's).
  int offload_layers = 0;
  int offload_block_layers = 0; // L: the transformer block's layers, multi-token prediction's apart
  std::vector<double> offload_s, offload_bytes;
  bool interleaved_all_warmup = true; // Profile::interleaved_all_warmup
  int dp = 1, tp = 1, pp = 1, chunks = 1; // dp counts the context-parallel ranks: dp x cp of the workload
  int micro_batches = 1; // per data-parallel replica
  Schedule schedule = Schedule::one_f_one_b;
  Recompute recompute = Recompute::none;
  LayerCost layer;       // every layer's, or a MoE model's MoE layers'
  LayerCost dense_layer; // a MoE model's first dense_layers layers'
  int dense_layers = 0;
  // With sliding-window attention (model.window): the windowed layers' costs, as `layer` and
  // `dense_layer`, and which layers are windowed (empty: none).
  LayerCost windowed_layer, windowed_dense_layer;
  std::vector<bool> windowed;
  // A hybrid model (model.hybrid_pattern): its layers' symbols, and each kind's cost in the order of
  // kHybridSymbols (empty: not hybrid).
  std::string hybrid_pattern;
  std::array<LayerCost, 4> hybrid_layers;
  // Multi-token prediction modules that share one layer (model.mtp_shared_layer): the layers from
  // mtp_repeats_from on (0: none) run it again, with no weights or gradients of their own.
  int mtp_repeats_from = 0;
  LayerCost mtp_repeat;
  // Expert parallelism: each expert-parallel group is `ep` consecutive replicas' tensor rank t, or
  // with experts whole beside tp > 1 (parallelism.etp 1) their tensor ranks all (expert_group_tp =
  // tp, the group ep x tp GPUs: step_graph::expert_group). The expert-data-parallel group of a GPU
  // is the replicas at its place in their groups, dp / ep of them.
  int ep = 1;
  int expert_group_tp = 1;
  int expert_group_size() const { return ep * expert_group_tp; }
  int cp = 1; // context-parallel ranks: cp consecutive replicas of the dp (x cp) share each sequence
  CpCommType cp_comm_type = CpCommType::p2p;
  std::vector<StageCost> stages; // per virtual stage: chunk * pp + stage
  double activation_bytes = 0;   // one micro-batch's activation at a stage boundary (whole)
  bool sequence_parallel = false;
  int zero = 0;
  int zero3_prefetch_layers = 1; // ZeRO-3: units whose gathers run ahead of the compute (0: blocking)
  // ZeRO-3: each virtual stage's weights are gathered once, at its first forward, and kept to the
  // step's end (FSDP2's reshard_after_forward=False; under pipelining torch.distributed.pipelining
  // also keeps them over the micro-batches' backwards but the last).
  bool zero3_keep_gathered = false;
  // ZeRO 1-2 with the weights' all-gather in the forward (parallelism.overlap_param_gather).
  bool overlap_param_gather = false;
  // overlap_param_gather's all-gathers issued a model chunk at a time at aligned points of the
  // interleaved schedule (parallelism.align_param_gather; Megatron uses it there only).
  bool align_param_gather = false;
  bool tp_comm_overlap = false; // parallelism.tp_comm_overlap, with tp > 1
  bool moe_a2a_overlap = false; // parallelism.moe_a2a_overlap
  // Megatron-core's recompute module moe: each MoE layer's block (its all-to-alls with it) runs
  // forward again before its backward.
  bool moe_rerun = false;
  double a2a_sm_share = 0;      // with it: the SMs the flex dispatcher's kernels hold, a share of the GPU's
  // The most a flex dispatcher's kernels (DeepEP's, Hybrid-EP's) move a second on each GPU: the
  // SMs they hold x what each moves (profile collectives.dispatch_sm_bandwidth); 0: no bound.
  double dispatch_rate = 0;
  // The least time a flex dispatcher's exchange of `bytes` per GPU takes at dispatch_rate; 0
  // without a bound.
  double dispatch_floor_s(double bytes) const { return dispatch_rate > 0 ? bytes / dispatch_rate : 0; }
  double grad_factor = 1;        // gradient bytes per weight byte (2 for fp32 gradients of bf16 weights)
  DpAlgorithm dp_algorithm = DpAlgorithm::allreduce;

  RankOrder order = RankOrder::tp_dp_pp;
  bool softmax_fp32 = false; // the softmax fell back to fp32 kernels: its saved output is fp32
  // The kernels one data-parallel replica's GPUs (one tensor rank each, all its pipeline stages) run
  // in a step, and where their times came from (a kernel table or the cost model's pricing).
  KernelLedger kernels;

  // The GPU of a rank, in the workload's rank order (Megatron's by default: tensor ranks fastest,
  // then data-parallel replicas, then stages).
  int gpu(int stage, int replica, int tp_rank) const {
    switch (order) {
    case RankOrder::tp_dp_pp: return (stage * dp + replica) * tp + tp_rank;
    case RankOrder::tp_pp_dp: return (replica * pp + stage) * tp + tp_rank;
    case RankOrder::dp_tp_pp: return (stage * tp + tp_rank) * dp + replica;
    case RankOrder::pp_tp_dp: return (replica * tp + tp_rank) * pp + stage;
    }
    return 0;
  }
  int gpus() const { return dp * tp * pp; }
  // Activation offloading's windows (TransformerEngine's DefaultOffloadSynchronizer, 2.10 on), for
  // layer l of the one stage, N offloaded of the block's L: the layer whose copy out must be done
  // before l's forward (i for l = L - N + i), and the layer copied back as l's backward begins
  // (i for l = L - 1 - N + i); -1 for none.
  int offload_awaited_before_forward(int l) const {
    const int i = l - (offload_block_layers - offload_layers);
    return offload_layers > 0 && i >= 0 && i < offload_layers ? i : -1;
  }
  int offload_copied_back_at_backward(int l) const { return offload_awaited_before_forward(l + 1); }
  // The cost of the model's layer i (from 0).
  const LayerCost& layer_at(int i) const {
    if (mtp_repeats_from > 0 && i >= mtp_repeats_from)
      return mtp_repeat;
    if (static_cast<size_t>(i) < hybrid_pattern.size())
      return hybrid_layers[kHybridSymbols.find(hybrid_pattern[static_cast<size_t>(i)])];
    const bool window = static_cast<size_t>(i) < windowed.size() && windowed[static_cast<size_t>(i)];
    if (i < dense_layers)
      return window ? windowed_dense_layer : dense_layer;
    return window ? windowed_layer : layer;
  }
  bool sharded_optimizer() const { return zero >= 1 || dp_algorithm == DpAlgorithm::reduce_scatter; }
  // Each GPU keeps only its shard of the reduce-scattered gradients (ZeRO-2 and -3, Alpa's
  // reduce-scatter option).
  bool sharded_gradients() const { return zero >= 2 || (dp_algorithm == DpAlgorithm::reduce_scatter && dp > 1); }
};

// Seconds of stage s's optimizer step on one GPU, over all its model chunks: a sharded optimizer
// updates 1/dp of the dense parameters and 1/(dp / ep) of the routed experts' (Megatron's
// distributed optimizer shards each over its own data-parallel group).
double optimizer_seconds(const ExecutionPlan& plan, int s);

// The kernel seconds of virtual stage v's layers for one micro-batch on one GPU: their forward, and
// their backward with selective recompute's rerun of what it recomputes (the embedding, the head,
// host time and full recompute's rerun are the caller's).
struct LayerSeconds {
  double forward = 0, backward = 0;
};
LayerSeconds layer_seconds(const ExecutionPlan& plan, int v);

// Costs every block with the GPU's cost model under the workload's tensor-parallel split.
ExecutionPlan make_plan(const Workload& w, const ComputeCostModel& cost, const Profile& profile);

} // namespace simgpt
