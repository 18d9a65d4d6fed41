#include "memory/footprint.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/memory/memory.hpp"
#include "model/fp8.hpp"
#include "model/model.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <utility>

namespace simgpt {

StageFootprint stage_footprint(int stage, const ExecutionPlan& plan, const Workload& w, const Profile& profile) {
  // A context-parallel rank keeps the activations of its seq_len / cp tokens.
  const ModelSpec m = context_local(w.model, w.parallelism.cp);
  const auto& par = w.parallelism;
  // Inputs saved in fp8 (TransformerEngine); a framework that casts at every use keeps them in
  // the model's precision (Profile::fp8_recast_per_use).
  const bool fp8 = w.training.fp8 != Fp8Format::none && !profile.fp8_recast_per_use;
  const double q = quantized_input_bytes(w.training.fp8_recipe);
  // A layer's kept and full activations, dense or MoE (a MoE model's largest layer is a MoE one).
  const SelectiveRerun selective = selective_rerun(m, w.training, profile.selective_every_second_matmul);
  const bool own_tokens = par.expert_tp() < par.tp;
  const auto layer_kept_at = [&](bool experts, char symbol) -> double {
    if (selective == SelectiveRerun::every_second_matmul) // dense layers only (make_plan refuses the rest)
      return every_second_matmul_kept_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel,
                                            w.training.precision);
    if (selective == SelectiveRerun::modules) {
      // The unfused core's scores off with core_attn (layer_activation_bytes' selective form).
      const Recompute core = w.training.recomputes(RecomputeModule::core_attn) ? Recompute::selective : Recompute::none;
      return layer_activation_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel, core,
                                    w.training.precision, profile.dropout, profile.memory.recompute_kept,
                                    profile.memory.replicated_kept, plan.softmax_fp32, experts, fp8, q, symbol, own_tokens) -
             recompute_modules_freed_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel,
                                           w.training.precision, experts, fp8, w.training.recompute_modules, q, symbol, own_tokens);
    }
    return layer_activation_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel, w.training.recompute,
                                  w.training.precision, profile.dropout, profile.memory.recompute_kept,
                                  profile.memory.replicated_kept, plan.softmax_fp32, experts, fp8, q, symbol, own_tokens);
  };
  const auto layer_full_at = [&](bool experts, char symbol) -> double {
    return layer_activation_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel, Recompute::none,
                                  w.training.precision, profile.dropout, 1, profile.memory.replicated_kept,
                                  plan.softmax_fp32, experts, fp8, q, symbol, own_tokens);
  };
  // Context parallelism's all-to-all form as TransformerEngine runs it (cp_comm_type a2a:
  // transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py,
  // AttnFuncWithCPAndQKVOA2A) saves the attention's output as the kernel wrote it, before the
  // all-to-all that returns it to the rank's tokens (out_part), while the output projection saves
  // the returned copy as its input: an attention layer keeps its output twice, where without it
  // the kernel's saved output is the projection's input.
  // A recomputed core (full recompute, or the core_attn module) saves nothing of it.
  const bool a2a_output = par.cp > 1 && par.cp_comm_type == CpCommType::a2a;
  const double a2a_output_bytes =
      a2a_output ? static_cast<double>(w.training.micro_batch * m.seq_len) * static_cast<double>(m.heads) *
                       static_cast<double>(m.v_head_width()) / static_cast<double>(par.tp) *
                       element_bytes(w.training.precision)
                 : 0;
  const bool core_saved =
      w.training.recompute != Recompute::full && !w.training.recomputes(RecomputeModule::core_attn);
  const auto attends = [&](char symbol) { return symbol == 'T' || symbol == '*'; };
  const auto kept_at = [&](bool experts, char symbol = 'T') {
    return layer_kept_at(experts, symbol) + (attends(symbol) && core_saved ? a2a_output_bytes : 0);
  };
  const auto full_at = [&](bool experts, char symbol = 'T') {
    return layer_full_at(experts, symbol) + (attends(symbol) ? a2a_output_bytes : 0);
  };
  // The largest layer's: a MoE model's MoE layers'; a hybrid model's largest kind's.
  double layer_kept = kept_at(m.moe()), layer_full = full_at(m.moe());
  if (m.hybrid()) {
    layer_kept = layer_full = 0;
    for (const char symbol : kHybridSymbols)
      if (m.hybrid_pattern.find(symbol) != std::string::npos) {
        layer_kept = std::max(layer_kept, kept_at(symbol == 'E', symbol));
        layer_full = std::max(layer_full, full_at(symbol == 'E', symbol));
      }
  }
  // Selective recompute of an attention core under FlashAttention reruns nothing (selective_rerun).
  const bool recompute = w.training.recompute == Recompute::full || selective != SelectiveRerun::nothing;
  const bool stage_checkpoint = w.training.recompute == Recompute::full && profile.memory.checkpoint_stages;
  // Loss parallelism: the loss runs on the vocabulary shards tensor parallelism left, as its own
  // kernels (PyTorch's loss_parallel), which can hold more per logit than the fused one.
  // TransformerEngine's fused cross-entropy (Profile::te_cross_entropy) writes the gradient into
  // the logits' own buffer: the loss holds them alone, in the model's precision.
  const double logits_bytes = profile.te_cross_entropy ? element_bytes(w.training.precision)
                              : par.tp > 1 && profile.memory.loss_parallel_logits_bytes > 0
                                  ? profile.memory.loss_parallel_logits_bytes
                                  : profile.memory.logits_bytes;
  const int V = plan.pp * plan.chunks;
  StageFootprint f;
  f.kept.resize(static_cast<size_t>(plan.chunks));
  f.full.resize(f.kept.size());
  const auto dummy_wgrads = profile.memory.dummy_wgrads;
  std::set<std::pair<double, double>> wgrad_shapes;
  for (int c = 0; c < plan.chunks; ++c) {
    const int v = c * plan.pp + stage;
    const StageCost& cost = plan.stages[static_cast<size_t>(v)];
    const auto ci = static_cast<size_t>(c);
    f.params += cost.parameters;
    f.expert_params += cost.expert_parameters;
    double kept = 0;
    f.full[ci] = 0;
    for (int i = cost.first_layer; i < cost.first_layer + cost.layers; ++i) {
      if (m.has_own_weights(i)) {
        f.layer_params += layer_parameters_at(m, par.tp, par.ep, i, par.expert_tp());
        if (fp8 || dummy_wgrads != MemoryProfile::DummyWgrads::none) {
          const Kernels linears = layer_linear_marked_forward(m, par.tp, par.ep, i, par.expert_tp());
          if (fp8)
            f.fp8_weights += fp8_weight_elements(linears);
          if (dummy_wgrads != MemoryProfile::DummyWgrads::none)
            wgrad_shapes.merge(
                linear_weight_shapes(linears, dummy_wgrads == MemoryProfile::DummyWgrads::dense_and_grouped));
        }
      }
      // TransformerEngine's DefaultOffloadSynchronizer (transformer_engine/pytorch/cpu_offload.py,
      // 2.10 on) frees an offloaded layer's activations once its copy is done, layer N - L + i's
      // forward at the latest, and reloads it N layers before its backward: (L - N) layers' at most.
      if (i < w.training.cpu_offload_layers)
        f.offloaded.push_back(kept_at(m.is_moe_layer(i), m.symbol(i)));
      else
        kept += kept_at(m.is_moe_layer(i), m.symbol(i));
      f.full[ci] += full_at(m.is_moe_layer(i), m.symbol(i));
    }
    if (stage_checkpoint) {
      // One checkpoint spans the stage's layers: it keeps their input once, and recomputing it
      // for the backward materialises all its layers' activations at once.
      f.kept[ci] = layer_kept;
      f.transient = std::max(f.transient, f.full[ci] - layer_kept);
    } else {
      f.kept[ci] = kept;
      // Recomputing a layer for its backward materialises all its activations again.
      if (recompute)
        f.transient = std::max(f.transient, layer_full - layer_kept / std::max(1, cost.layers));
    }
    // The LM head: its logits (vocabulary-parallel) and what the loss derives from them, beside what
    // the head saves for its backward, the final norm's input and the output layer's (the sequence
    // shard's under sequence parallelism); or, after the loss, the output layer's backward
    // (megatron/core/tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommunication): the
    // logits' gradient in their type, the input's gradient whole (before sequence parallelism's
    // reduce-scatter) and, under it, the input gathered again for the weight gradient.
    if (v == V - 1 && m.head == Head::lm) {
      const double tokens = static_cast<double>(w.training.micro_batch * m.seq_len);
      const double logits = tokens * static_cast<double>(m.vocab) / static_cast<double>(par.tp);
      const double E = element_bytes(w.training.precision), h = static_cast<double>(m.hidden);
      const bool sharded = par.sequence_parallel && par.tp > 1;
      const double rows = sharded ? tokens / static_cast<double>(par.tp) : tokens;
      const bool head = profile.memory.head_saved;
      const double saved = head ? 2 * rows * h * E : 0;
      const double at_loss = logits_bytes * logits + saved;
      const double at_backward =
          head ? E * logits + saved + tokens * h * E + (sharded ? tokens * h * E : 0) : 0;
      f.transient = std::max(f.transient, std::max(at_loss, at_backward));
      // The output layer's placeholder gradient: with its weight-gradient GEMM fused into
      // main_grad, Megatron-Core's linear (megatron/core/tensor_parallel/layers.py,
      // LinearWithGradAccumulationAndAsyncCommunication.backward) takes it from the same
      // TransformerEngine cache, get_dummy_wgrad, since 2025-08 (e7c55de99e).
      if (dummy_wgrads != MemoryProfile::DummyWgrads::none)
        wgrad_shapes.emplace(static_cast<double>(m.vocab) / static_cast<double>(par.tp),
                             static_cast<double>(m.hidden));
    }
  }
  for (const auto& [n, k] : wgrad_shapes)
    f.dummy_wgrads += n * k;
  // ZeRO-3 prefetch: while a layer computes, the gathered (unsharded) weights of the next
  // `zero3_prefetch_layers` layers are already allocated (FSDP's BACKWARD_PRE holds the current
  // and next unit's parameters at its peak; DeepSpeed's prefetch bucket likewise).
  if (plan.zero >= 3 && plan.dp > 1 && !plan.zero3_keep_gathered) {
    f.transient += plan.zero3_prefetch_layers * plan.layer.param_bytes;
    // The root unit's weights, gathered for the embedding and kept to the end of the backward
    // (Profile::zero3_keep_root_gathered).
    if (profile.zero3_keep_root_gathered)
      for (int c = 0; c < plan.chunks; ++c) {
        const StageCost& cost = plan.stages[static_cast<size_t>(c * plan.pp + stage)];
        f.transient += cost.embedding_bytes + cost.head_bytes;
      }
  }
  // Kept gathered (FSDP2's reshard_after_forward=False): the stage's whole weights, unsharded,
  // from its first forward to its last backward, where the sharded copy stays beside them.
  if (plan.zero >= 3 && plan.dp > 1 && plan.zero3_keep_gathered)
    for (int c = 0; c < plan.chunks; ++c) {
      const StageCost& cost = plan.stages[static_cast<size_t>(c * plan.pp + stage)];
      f.transient += cost.embedding_bytes + cost.head_bytes;
      for (int l = 0; l < cost.layers; ++l)
        f.transient += plan.layer_at(cost.first_layer + l).param_bytes;
    }
  return f;
}

ResidentState resident_state(const StageFootprint& f, const ExecutionPlan& plan, const Workload& w,
                             const Profile& profile, const GpuSpec& gpu) {
  const StateBytes per_param =
      state_bytes_per_parameter(w.training, profile.memory.fp32_grads_with_bf16, profile.memory.master_gradients);
  const bool sharded_state = plan.sharded_optimizer() && plan.dp > 1;
  const double dp = static_cast<double>(plan.dp);
  const bool sharded_gradients = plan.sharded_gradients();
  // Sharded state is split over the group that reduces it: dp ranks, or the dp / ep ranks of the
  // expert-data-parallel group for routed experts (Megatron-core's distributed optimizer keeps a
  // buffer per group, megatron/core/distributed/distributed_data_parallel.py).
  const double dense = f.params - f.expert_params, experts = f.expert_params;
  const double edp = dp / static_cast<double>(plan.ep);
  const auto sharded = [&](double per_parameter, bool shard) {
    return shard ? dense * per_parameter / dp + experts * per_parameter / edp : f.params * per_parameter;
  };
  const double gradient_share = per_param.gradients / (sharded_gradients ? dp : 1);
  ResidentState state;
  state.weights = sharded(per_param.weights, plan.zero >= 3);
  // TransformerEngine casts each linear layer's weight to fp8 at the step's first micro-batch and
  // keeps the copy for the others (megatron/core/extensions/transformer_engine.py passes
  // is_first_microbatch; transformer_engine/pytorch/module/linear.py, quantize_weight updates the
  // workspace only then): one byte a weight, and its transpose for the backward's data-gradient
  // GEMM where the GPU's fp8 GEMMs are TN only. Whole on every data-parallel rank (ZeRO-3, which
  // would gather and free the weights, is refused with TransformerEngine's fp8 copies; a framework
  // that casts at every use keeps no copy: f.fp8_weights is 0).
  // MXFP8 keeps both copies whatever the GPU, each with a scale byte per 32 weights.
  // NVFP4 keeps both too, half a byte a weight and an E4M3 scale per 16 (16 x 16 blocks: the
  // column-wise copy is the row-wise one's transpose; transformer_engine/pytorch/tensor/nvfp4_tensor.py).
  const double fp8_copy_bytes =
      w.training.fp8_recipe == Fp8Recipe::nvfp4   ? 2 * (0.5 + 1.0 / 16)
      : w.training.fp8_recipe == Fp8Recipe::mxfp8 ? 2 * (1 + 1.0 / 32)
                                                   : (gpu.fp8_gemms_tn_only() ? 2 : 1);
  if (w.training.fp8_param_gather) {
    // fp8 parameters (training.fp8_param_gather): the linear layers' weights are the quantized
    // tensors, with no 16-bit copy (megatron/core/fp8_utils.py, fp8_model_init under fp8_param):
    // their 16-bit bytes leave the weights and their fp8 bytes take the copy's place. Under ZeRO-3
    // (Megatron-FSDP) each rank holds its shard of the fp8 data; the transpose a TN-only GPU
    // builds after each gather is freed with the gathered weight (not counted). The routed
    // experts' weights are all fp8 and sharded over the expert-data-parallel group.
    const double fp8_dense = std::max(0.0, f.fp8_weights - f.expert_params);
    const double fp8_experts = f.fp8_weights - fp8_dense;
    const auto held = [&](double per_element, bool shard) {
      return shard ? fp8_dense * per_element / dp + fp8_experts * per_element / edp : f.fp8_weights * per_element;
    };
    state.weights -= held(per_param.weights, plan.zero >= 3);
    state.weights += plan.zero >= 3 ? held(1, true) : held(fp8_copy_bytes, false);
  } else {
    state.weights += f.fp8_weights * fp8_copy_bytes;
  }
  state.gradients = sharded(per_param.gradients, sharded_gradients);
  state.optimizer_state = profile.optimizer_offload ? 0 : sharded(per_param.optimizer, sharded_state);
  // Without a persistent buffer and without accumulation, a layer's gradients appear as its
  // backward frees its activations: at the activation peak (the backward's start) only the
  // gradients of the parameters outside the transformer layers (embedding, head) exist yet.
  const bool gradients_grow = !profile.memory.persistent_gradients && plan.micro_batches == 1;
  state.gradients_at_activation_peak = gradients_grow ? (f.params - f.layer_params) * gradient_share : state.gradients;
  // DistributedDataParallel's reducer allocates a flat tensor per bucket when it is built
  // (torch/csrc/distributed/c10d/reducer.cpp, initialize_buckets) and copies each gradient into
  // it for the all-reduce: beside the .grad tensors (gradient_as_bucket_view is off by default),
  // and through the whole step whether or not the loop frees the gradients.
  // FSDP2 without gradient sync (torch.distributed.pipelining's micro-batches but the last:
  // set_requires_gradient_sync(False)) accumulates each unsharded gradient, upcast to the reduce
  // dtype when it differs (torch/distributed/_composable/fsdp/_fsdp_param.py,
  // to_accumulated_grad_if_needed: unsharded_accumulated_grad), until the last micro-batch's
  // reduce-scatter: the stage's whole gradients beside their shards, from the first backward on,
  // while the 1F1B steady state still holds the other micro-batches' activations.
  if (plan.zero >= 3 && plan.dp > 1 && plan.zero3_keep_gathered && plan.micro_batches > 1) {
    const double accumulated = f.params * per_param.gradients;
    state.gradients += accumulated;
    state.gradients_at_activation_peak += accumulated;
  }
  // TransformerEngine's cached placeholder gradients, one per distinct linear weight shape in the
  // weights' dtype (MemoryProfile::dummy_wgrads), from the first backward on.
  const double dummy_wgrads = f.dummy_wgrads * element_bytes(w.training.precision);
  state.gradients += dummy_wgrads;
  state.gradients_at_activation_peak += dummy_wgrads;
  if (profile.memory.ddp_buckets && plan.dp > 1) {
    const double buckets = f.params * per_param.gradients;
    state.gradients += buckets;
    state.gradients_at_activation_peak += buckets;
  }
  return state;
}


int nccl_communicators(const ParallelismSpec& p) {
  const int64_t groups[] = {p.tp, p.cp, p.ep, p.dp * p.cp, p.ep > 1 ? p.dp / p.ep : 1, p.pp};
  return static_cast<int>(std::count_if(std::begin(groups), std::end(groups), [](int64_t n) { return n > 1; }));
}

double usable_memory(const Profile& profile, const GpuSpec& gpu, const ParallelismSpec& parallelism) {
  const MemoryProfile& m = profile.memory;
  const double outside = m.context_bytes + m.nccl_buffers * nccl_communicators(parallelism) +
                         m.headroom * gpu.memory_bytes;
  return m.context_bytes + m.pool_fraction * std::max(0.0, gpu.memory_bytes - outside);
}

bool settle_peak(MemoryReport& mem, double gradients_at_activation_peak, const Profile& profile, const GpuSpec& gpu,
                 const ParallelismSpec& parallelism) {
  // The peak is either during the backward (activations) or at the optimizer step, when all
  // gradients exist and the update may allocate new state.
  const double update = profile.memory.update_copy * mem.weights;
  const bool at_update = update + mem.gradients > mem.activations + mem.transient + gradients_at_activation_peak;
  if (at_update) {
    mem.activations = 0;
    mem.transient = update;
    mem.in_flight = 0;
  } else {
    mem.gradients = gradients_at_activation_peak;
  }
  const double allocated = mem.weights + mem.gradients + mem.optimizer_state + mem.activations + mem.transient;
  mem.allocator_cache = profile.memory.allocator_overhead * allocated;
  mem.framework = profile.memory.context_bytes + mem.allocator_cache;
  mem.peak = allocated + mem.framework;
  mem.capacity = gpu.memory_bytes;
  mem.usable = usable_memory(profile, gpu, parallelism);
  return at_update;
}

void with_offload(ExecutionPlan& plan, const Workload& w, const Profile& profile, const GpuSpec& gpu) {
  plan.offload_layers = static_cast<int>(w.training.cpu_offload_layers);
  plan.offload_block_layers = static_cast<int>(w.model.layers);
  plan.offload_s.clear();
  plan.offload_bytes.clear();
  if (plan.offload_layers == 0)
    return;
  if (!(gpu.host_bandwidth > 0))
    throw InputError(w.source + ": training.cpu_offload_layers",
                     fmt::format("{} has no host_bandwidth in {} (what its copies to the host's memory reach): "
                                 "add it to offload activations",
                                 gpu.name, gpu.file));
  for (const double bytes : stage_footprint(0, plan, w, profile).offloaded) {
    plan.offload_bytes.push_back(bytes);
    plan.offload_s.push_back(bytes / gpu.host_bandwidth);
  }
}

} // namespace simgpt
