#include "execution/plan.hpp"

#include "cost/compute_cost.hpp"
#include "simgpt/core/error.hpp"
#include "model/fp8.hpp"
#include "model/latent_attention.hpp"
#include "model/mamba.hpp"
#include "model/model.hpp"
#include "execution/partition.hpp"
#include "simgpt/framework/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace simgpt {
namespace {

// Bytes the optimizer step reads and writes per parameter. Adam: master weight, gradient and two
// moments in fp32, read and written (the gradient only read); mixed precision adds reading the
// half-precision gradient and writing the half-precision weight copy. SGD: weight read and
// written, gradient read; with momentum the momentum is read and written too.
double optimizer_bytes_per_parameter(const TrainingSpec& t) {
  const bool mixed = t.precision != Precision::fp32;
  const double fp32_bytes = t.optimizer == Optimizer::adam ? 7 : t.optimizer == Optimizer::sgd_momentum ? 5 : 3;
  return 4 * fp32_bytes + (mixed ? 2 + 2 : 0);
}

// Layers per virtual stage, as the workload or else the framework divides them.
std::vector<int> stage_layers(const Workload& w, const Profile& profile, const Kernels& layer_forward,
                              const Kernels& embedding, const Kernels& head, int virtual_stages) {
  const Partition partition =
      w.parallelism.partition == Partition::framework ? profile.partition : w.parallelism.partition;
  const int layers = static_cast<int>(w.model.layers);
  if (partition == Partition::listed)
    return {w.parallelism.stage_layers.begin(), w.parallelism.stage_layers.end()};
  // It weighs every layer alike: a hybrid model's differ (model.hybrid_pattern).
  if (partition == Partition::balanced && w.model.hybrid() && virtual_stages > 1)
    throw InputError(w.source + ": parallelism.partition",
                     "balanced weighs every layer alike, and a hybrid model's layers differ (use uniform, as Megatron-"
                     "Core splits a hybrid pattern, or list each stage's layers)");
  if (partition == Partition::balanced)
    return balanced_stage_layers(layers, virtual_stages, sum_flops(layer_forward), sum_flops(embedding),
                                 sum_flops(head));
  if (layers % virtual_stages != 0)
    throw InputError(w.source + ": parallelism.pp",
                     fmt::format("{} layers cannot be split evenly into {} pipeline stages (the {} profile divides "
                                 "layers uniformly; set parallelism.partition to balanced or a list)",
                                 layers, virtual_stages, profile.name));
  return std::vector<int>(static_cast<size_t>(virtual_stages), layers / virtual_stages);
}

// Context parallelism around the attention core (TransformerEngine, transformer_engine/pytorch/
// attention, context_parallel.py): the block's kernels before the core, the core, those after;
// the all-to-all form's buffers (Q, K and V of this rank's tokens going in, the core's output
// coming back; in the backward, the output's gradient going in and those of Q, K and V coming
// back) and the ring form's block of keys and values that each step passes on.
// `repeated_kv`: the kernel form repeats keys and values to every query head (KernelForm::repeat_kv).
// `fp32_merge`: the ring merges its steps as PyTorch does (Profile::ring_attention_fp32_merge), over
// `cp` steps.
void split_attention(LayerCost& l, const Kernels& attention, const ComputeCostModel& cost, const ModelSpec& local,
                     const Shard& shard, bool repeated_kv, bool fp32_merge, int cp) {
  const auto core = std::find_if(attention.begin(), attention.end(),
                                 [](const Kernel& k) { return k.kind == Kernel::Kind::attention; });
  const auto after = core == attention.end() ? core : core + 1;
  const Kernels parts[3] = {Kernels(attention.begin(), core), Kernels(core, after), Kernels(after, attention.end())};
  for (int i = 0; i < 3; ++i) {
    l.attention_parts_forward[i] = cost.seconds(parts[i], GraphScope::attention);
    l.attention_parts_backward[i] = cost.seconds(backward_of(parts[i]), GraphScope::attention);
  }
  const double tokens = static_cast<double>(shard.micro_batch * local.seq_len);
  const double heads = static_cast<double>(local.heads), groups = static_cast<double>(local.query_groups());
  const double qk = static_cast<double>(local.qk_head_width()), v = static_cast<double>(local.v_head_width());
  const double tp = static_cast<double>(shard.tp), E = element_bytes(shard.precision);
  l.context_in_bytes = tokens * (heads * qk + groups * (qk + v)) / tp * E;
  l.context_out_bytes = tokens * heads * v / tp * E;
  // The keys and values the attention kernel reads: every query head's where the profile repeats
  // them before it (repeat_kv), and those are what the ring passes on.
  const double kv_heads = repeated_kv ? heads : groups;
  const double kv = tokens * kv_heads * (qk + v) / tp;
  l.context_kv_bytes = kv * E;
  l.context_kv_backward_bytes = 2 * l.context_kv_bytes; // the keys and values, and their gradients
  if (!fp32_merge)
    return;
  // PyTorch's ring (torch/distributed/tensor/experimental/_attention.py, _templated_ring_attention
  // and _SDPAMerger with convert_to_f32; the rank with every later step whole paces the ring).
  // Forward: each step's output cast to fp32 (read 2 bytes, write 4 an element); each later step
  // merged as out - sigmoid(lse_block - lse) * (out - block_out), three elementwise kernels (12, 8
  // and 12 bytes an element); the result cast back (6); and before each send but the last, the
  // keys and values concatenated into one buffer (torch.cat: read and write 2 bytes each).
  const double q = tokens * heads * v / tp, steps = cp;
  Kernels forward{Kernel::memory(6 * q * steps), Kernel::memory(32 * q * (steps - 1)), Kernel::memory(6 * q),
                  Kernel::memory(2 * 2 * kv * (steps - 1))};
  // Backward: fp32 accumulators zeroed (4 bytes an element of dQ, dK, dV); each step's bf16
  // gradients added to them (read 4 and 2, write 4); the key and value gradients concatenated
  // into the fp32 buffer passed on (read and write 4), and the keys and values as in the forward;
  // the gradients cast back at the end (6). The passed gradients are fp32: 4 bytes an element.
  Kernels backward{Kernel::memory(4 * (q + kv)), Kernel::memory(10 * (q + kv) * steps),
                   Kernel::memory(8 * kv * steps), Kernel::memory(2 * 2 * kv * (steps - 1)),
                   Kernel::memory(6 * (q + kv))};
  const double merge_forward = cost.seconds(forward, GraphScope::attention),
               merge_backward = cost.seconds(backward, GraphScope::attention);
  l.attention_parts_forward[1] += merge_forward;
  l.attention_parts_backward[1] += merge_backward;
  l.attention_forward += merge_forward;
  l.attention_backward += merge_backward;
  l.context_kv_backward_bytes = kv * (E + 4);
}

// `calls` forward and backward passes of a block in the ledger, and the forward once more each
// when it is recomputed.
void account_block(KernelLedger& ledger, const ComputeCostModel& cost, const Kernels& forward, double calls,
                   bool rerun) {
  cost.account(forward, rerun ? 2 * calls : calls, ledger);
  cost.account(backward_of(forward), calls, ledger);
}

} // namespace

ExecutionPlan make_plan(const Workload& w, const ComputeCostModel& cost, const Profile& profile) {
  ExecutionPlan plan;
  const auto& par = w.parallelism;
  // Context-parallel ranks hold the same weights, each a part of every sequence: to the step they
  // are more data-parallel replicas (Megatron-LM reduces gradients over its dp x cp group), cp
  // consecutive ones sharing each sequence.
  plan.cp = static_cast<int>(par.cp);
  plan.cp_comm_type = par.cp_comm_type;
  plan.dp = static_cast<int>(par.dp * par.cp);
  plan.tp = static_cast<int>(par.tp);
  plan.pp = static_cast<int>(par.pp);
  plan.chunks = static_cast<int>(par.chunks);
  plan.flushes = static_cast<int>(par.pipeline_flushes);
  plan.interleaved_all_warmup = profile.interleaved_all_warmup;
  plan.micro_batches = static_cast<int>(w.micro_batches());
  plan.schedule = par.schedule;
  plan.recompute = w.training.recompute;
  plan.sequence_parallel = par.sequence_parallel;
  plan.zero = static_cast<int>(par.zero);
  plan.zero3_prefetch_layers = profile.zero3_prefetch_layers;
  plan.zero3_keep_gathered = profile.zero3_reshard_after_forward == Profile::Reshard::never ||
                             (profile.zero3_reshard_after_forward == Profile::Reshard::unless_pipelined && par.pp > 1);
  plan.overlap_param_gather = par.overlap_param_gather && par.zero >= 1 && par.zero <= 2;
  plan.align_param_gather = plan.overlap_param_gather && par.align_param_gather &&
                            par.schedule == Schedule::interleaved && par.pp > 1;
  plan.tp_comm_overlap = par.tp_comm_overlap && par.tp > 1 && par.sequence_parallel;
  plan.moe_a2a_overlap = par.moe_a2a_overlap && par.ep > 1;
  plan.moe_rerun = w.training.recomputes(RecomputeModule::moe);
  const int dispatch_sms = par.moe_dispatcher == MoeDispatcher::deepep     ? profile.deepep_sms
                           : par.moe_dispatcher == MoeDispatcher::hybridep ? profile.hybridep_sms
                                                                           : 0;
  if (plan.moe_a2a_overlap && cost.gpu().sms > 0)
    plan.a2a_sm_share = std::min(1.0, static_cast<double>(dispatch_sms) / cost.gpu().sms);
  // DeepEP's and Hybrid-EP's dispatch and combine kernels copy the tokens themselves, on as many
  // SMs as they are given (DeepEP's Buffer.set_num_sms, whose maintainers point to it for more
  // bandwidth; Hybrid-EP's num_sms, its TMA copies issued from those SMs): their rate grows with
  // those SMs, not with the links alone. NCCL's all-to-all (the alltoall dispatcher) is the NCCL
  // model's.
  if (par.ep > 1 && cost.gpu().sms > 0)
    plan.dispatch_rate = std::min(dispatch_sms, cost.gpu().sms) * profile.dispatch_sm_bandwidth;
  plan.dp_algorithm = par.dp_algorithm;
  plan.order = w.placement.order;

  const Shard shard{w.training.micro_batch, par.tp,  w.training.precision, par.sequence_parallel,
                    par.ep,                 par.cp,  par.cp > 1 && par.cp_comm_type == CpCommType::p2p,
                    par.moe_dispatcher,     par.etp};
  const ModelSpec model = context_local(w.model, par.cp); // this rank's part of each sequence
  const KernelForm form = cost.form(model, shard);
  plan.softmax_fp32 = form.softmax_fp32;
  const double E = element_bytes(w.training.precision);
  // A layer's attention block: with its sliding window (model.window) or over every key before it.
  const auto attention_model = [&model](bool windowed) {
    ModelSpec lm = model;
    if (!windowed)
      lm.window = 0;
    return lm;
  };
  const Kernels mlp = mlp_block_forward(model, shard, form);
  // Megatron-LM accumulates and reduces bf16 models' gradients in fp32 (megatron/training/
  // arguments.py: "bfloat16 requires gradient accumulation and all-reduce to be done in fp32").
  plan.grad_factor = gradient_element_bytes(w.training.precision, profile.memory.fp32_grads_with_bf16) / E;
  const SelectiveRerun selective = selective_rerun(model, w.training, profile.selective_every_second_matmul);
  // torchtitan's op-level policy, written for its Llama: dense layers with grouped-query attention.
  if (selective == SelectiveRerun::every_second_matmul && (w.model.moe() || w.model.latent_attention || w.model.hybrid()))
    throw InputError(w.source + ": training.recompute",
                     "selective recompute by the profile's op policy (compute.selective_recompute "
                     "every_second_matmul) is modelled for dense layers without latent attention only");
  // Megatron-core's recompute modules (training.recompute_modules): what each rerun before the
  // layer's backward (megatron/core/transformer: the checkpointed core attention, MLP and experts'
  // activation, the norms' CheckpointWithoutOutput).
  const TrainingSpec& tr = w.training;
  // `attention`: the layer has an attention block; `norms`: its norms (a hybrid model's layer has one).
  const auto module_rerun = [&](const ModelSpec& lm, bool moe_layer, bool attention, bool dense_mlp, int norms) {
    Kernels k;
    if (tr.recomputes(RecomputeModule::core_attn) && attention) {
      const Kernels core = attention_core_forward(lm, shard, form);
      k.insert(k.end(), core.begin(), core.end());
    }
    // mla_up_proj: the latents' norms, up projections and rotation, rerun just before the core's
    // backward (megatron/core/transformer/multi_latent_attention.py, qkv_up_proj_and_rope_apply
    // under CheckpointWithoutOutput; its output's storage freed after the core's forward).
    if (tr.recomputes(RecomputeModule::mla_up_proj) && lm.latent_attention && attention) {
      const Kernels up = latent_up_forward(lm, shard, form);
      k.insert(k.end(), up.begin(), up.end());
    }
    if (tr.recomputes(RecomputeModule::layernorm))
      for (int i = 0; i < norms; ++i) {
        const Kernels norm = layer_norm_forward(model, shard, form);
        k.insert(k.end(), norm.begin(), norm.end());
      }
    if (tr.recomputes(RecomputeModule::mlp) && dense_mlp) {
      const Kernels mlp_module = mlp_module_forward(model, shard, form);
      k.insert(k.end(), mlp_module.begin(), mlp_module.end());
    }
    if (tr.recomputes(RecomputeModule::moe_act) && moe_layer) {
      const Kernels act = moe_activation_forward(model, shard);
      k.insert(k.end(), act.begin(), act.end());
    }
    return k;
  };
  // The kernels a layer's backward reruns first (none: empty), its MLP block `mlp_kernels`.
  // `lm` is the layer's attention model, `attention` its attention block. `symbol`: a hybrid model's
  // layer's (model.hybrid_pattern), 'T' a layer of attention and MLP.
  const auto selective_kernels = [&](const ModelSpec& lm, const Kernels& attention, const Kernels& mlp_kernels,
                                     bool moe_layer, char symbol = 'T') -> Kernels {
    const bool has_attention = symbol_has_attention(symbol);
    switch (selective) {
    case SelectiveRerun::attention_core: return has_attention ? attention_core_forward(lm, shard, form) : Kernels{};
    case SelectiveRerun::every_second_matmul: return every_second_matmul_rerun(lm, attention, mlp_kernels);
    case SelectiveRerun::modules:
      return module_rerun(lm, moe_layer, has_attention, !moe_layer && (symbol == 'T' || symbol == '-'),
                          symbol == 'T' ? 2 : 1);
    case SelectiveRerun::nothing: break;
    }
    return {};
  };
  const bool fp8_gathers = w.training.fp8_param_gather && (w.training.fp8_recipe == Fp8Recipe::delayed ||
                                                            w.training.fp8_recipe == Fp8Recipe::tensorwise);
  const bool fsdp2_copies = profile.zero3_copies && plan.zero >= 3 && plan.dp > 1 && !plan.zero3_keep_gathered;
  // FSDP2's copies of a unit of `parameters` weights: its gathered weights out of the all-gather's
  // buffer (read and written at their width), its gradients into the reduce-scatter's (read at the
  // weights' width, written at the reduced one's).
  struct Fsdp2Copies {
    double out = 0, in = 0;
  };
  const auto fsdp2_copy_seconds = [&](double parameters) {
    return Fsdp2Copies{cost.kernel_seconds(Kernel::memory(2 * E * parameters)),
                       cost.kernel_seconds(Kernel::memory((E + E * plan.grad_factor) * parameters))};
  };
  const auto layer_cost = [&](const ModelSpec& lm, const Kernels& attention, const Kernels& mlp_kernels,
                               double parameters, bool moe_layer, char symbol = 'T') {
    LayerCost l;
    l.mixer = symbol_has_mixer(symbol);
    l.mlp = symbol_has_mlp(symbol);
    // The CUDA graph scopes of the layer's blocks (compute.cuda_graphs); a MoE block whole only
    // where its experts are captured too. Recomputation runs within the layer's backward: captured
    // where both blocks are.
    const GraphScope mixer_scope = symbol == 'M' ? GraphScope::mamba : GraphScope::attention;
    const GraphScope mlp_scope = moe_layer ? GraphScope::moe : GraphScope::mlp;
    l.attention_forward = cost.seconds(attention, mixer_scope);
    l.mlp_forward = cost.seconds(mlp_kernels, mlp_scope);
    const Kernels attention_backward = backward_of(attention), mlp_backward = backward_of(mlp_kernels);
    l.attention_backward = cost.seconds(attention_backward, mixer_scope);
    l.mlp_backward = cost.seconds(mlp_backward, mlp_scope);
    {
      // The host runs ahead of the GPU from block to block (CUDA's asynchronous launch): in a stack
      // of like layers its lead carries over, where each block alone is entered with none
      // (ComputeCostModel::seconds). A layer takes its share of the model's stack of them issued as
      // one stream, so a host-bound attention block beside a GPU-bound MLP costs the larger of the
      // two sums where the lead lasts, and more where it runs out within the layer. The two blocks
      // keep their shares of that. Not across a MoE block: its token dispatcher waits for the GPU
      // (Megatron-Core's MoEAlltoAllTokenDispatcher needs the tokens per expert on the host for the
      // all-to-all's splits and synchronises to get them, _maybe_dtoh_and_synchronize in
      // megatron/core/transformer/moe/token_dispatcher.py), and its parts are timed apart (fill_moe).
      const int64_t stack = std::clamp<int64_t>(w.model.layers, 1, 64);
      const auto steady = [&](const Kernels& a, const Kernels& b, double& ta, double& tb) {
        if (moe_layer || !(ta + tb > 0) || profile.cuda_graphs.captures(mixer_scope) ||
            profile.cuda_graphs.captures(mlp_scope))
          return;
        const double f = cost.stack_seconds(a, b, stack) / static_cast<double>(stack) / (ta + tb);
        if (f < 1 - 1e-9) { // a lead that changes nothing changes no bit of the blocks' times either
          ta *= f;
          tb *= f;
        }
      };
      steady(attention, mlp_kernels, l.attention_forward, l.mlp_forward);
      steady(attention_backward, mlp_backward, l.attention_backward, l.mlp_backward);
    }
    if (const Kernels rerun_first = selective_kernels(lm, attention, mlp_kernels, moe_layer, symbol);
        !rerun_first.empty()) {
      const bool captured = profile.cuda_graphs.captures(mixer_scope) && profile.cuda_graphs.captures(mlp_scope);
      l.recompute_core = cost.seconds(rerun_first, captured ? mixer_scope : GraphScope::none);
    }
    if (plan.tp_comm_overlap) {
      // TransformerEngine overlaps the input's all-gather with the column-parallel GEMM that reads
      // it and the output's reduce-scatter with the row-parallel GEMM that makes it
      // (transformer_engine/pytorch/module/linear.py, ub_overlap_ag / ub_overlap_rs); in the
      // backward, the gather beside the row-parallel layer's gradient GEMMs, the reduce-scatter of
      // the input gradient beside the column-parallel layer's.
      const auto gemm_seconds = [&](const Kernels& ks, bool first, int count) {
        std::vector<const Kernel*> gemms;
        for (const Kernel& k : ks)
          if (k.kind == Kernel::Kind::gemm && k.layout != Kernel::Layout::none)
            gemms.push_back(&k);
        double seconds = 0;
        for (int i = 0; i < count && i < static_cast<int>(gemms.size()); ++i)
          seconds += cost.kernel_seconds(*gemms[first ? static_cast<size_t>(i) : gemms.size() - 1 - static_cast<size_t>(i)]);
        return seconds;
      };
      const Kernels* blocks[2] = {l.mixer ? &attention : nullptr, moe_layer || !l.mlp ? nullptr : &mlp_kernels};
      for (int b = 0; b < 2; ++b) {
        if (!blocks[b])
          continue;
        const Kernels backward = backward_of(*blocks[b]);
        l.tp_overlap_s[b][0][0] = gemm_seconds(*blocks[b], true, 1);
        l.tp_overlap_s[b][0][1] = gemm_seconds(*blocks[b], false, 1);
        l.tp_overlap_s[b][1][0] = gemm_seconds(backward, true, 2);
        l.tp_overlap_s[b][1][1] = gemm_seconds(backward, false, 2);
      }
    }
    if (plan.cp > 1 && l.mixer)
      split_attention(l, attention, cost, lm, shard, form.repeat_kv,
                      profile.ring_attention_fp32_merge && plan.cp_comm_type == CpCommType::p2p, plan.cp);
    if (plan.tp_comm_overlap && profile.tp_overlap_sms > 0 && cost.gpu().sms > profile.tp_overlap_sms) {
      // The GEMM beside a reduce-scatter runs on the SMs its overlap kernels leave it
      // (profiles' collectives.tp_overlap_sms): longer by that share, and so is its block.
      const double slower = static_cast<double>(profile.tp_overlap_sms) / (cost.gpu().sms - profile.tp_overlap_sms);
      double* block_seconds[2][2] = {{&l.attention_forward, &l.attention_backward}, {&l.mlp_forward, &l.mlp_backward}};
      for (int b = 0; b < 2; ++b)
        for (int pass = 0; pass < 2; ++pass) {
          const double extra = l.tp_overlap_s[b][pass][1] * slower;
          l.tp_overlap_s[b][pass][1] += extra;
          *block_seconds[b][pass] += extra;
          // Under context parallelism the attention block runs in parts: the reduce-scatter's GEMM
          // is in the forward's last part and the backward's first (split_attention).
          if (b == 0 && plan.cp > 1)
            (pass == 0 ? l.attention_parts_forward[2] : l.attention_parts_backward[0]) += extra;
        }
    }
    if (fsdp2_copies) {
      // FSDP2 (torch/distributed/_composable/fsdp/_fsdp_collectives.py): after a unit's all-gather
      // the compute stream copies the gathered weights into its parameters (split_with_sizes_copy:
      // read and written at the parameters' width), before the forward and, resharded after it,
      // again before the backward; after the backward it copies the unsharded gradients into the
      // reduce-scatter's buffer in the reduced type (foreach_reduce_scatter_copy_in, torch.cat)
      // and waits for that before it frees them. Weights kept gathered (under pipelining) are
      // copied once a step, gradients reduced once: left out. On the layer's first block forward,
      // its last backward (the MLP's where it has none).
      const auto [copy_out, copy_in] = fsdp2_copy_seconds(parameters);
      const bool on_mixer = !l.mlp || (l.mixer && plan.cp < 2);
      (on_mixer ? l.attention_forward : l.mlp_forward) += copy_out;
      (on_mixer ? l.attention_backward : l.mlp_backward) += copy_out + copy_in;
      if (on_mixer && plan.cp > 1) { // the parts the attention block runs in under context parallelism
        l.attention_parts_forward[0] += copy_out;
        l.attention_parts_backward[2] += copy_out + copy_in;
      }
    }
    if (model.latent_attention && l.mixer)
      l.attention_gather_bytes =
          static_cast<double>(w.training.micro_batch * model.seq_len) * latent_gathered_width(model) * E;
    l.grad_bytes = parameters * E * plan.grad_factor;
    // fp8 parameters (training.fp8_param_gather) of the delayed and tensorwise recipes are
    // Float8Tensors, whose one-byte data Megatron-Core's buffers hold and all-gather
    // (megatron/core/distributed/param_and_grad_buffer.py: a uint8 param_data for them; Megatron-
    // FSDP likewise). MXFP8's are gathered at the 16-bit width into the gradient buffer and
    // quantized after (reuse_grad_buf_for_mxfp8_param_ag, _post_param_sync).
    const double fp8_gathered = fp8_gathers ? fp8_weight_elements(attention) + fp8_weight_elements(mlp_kernels) : 0;
    l.param_bytes = (parameters - fp8_gathered) * E + fp8_gathered;
    return l;
  };
  // Each tensor's gradient bytes, for a framework that synchronises them one call each.
  const auto grad_tensors = [&](std::vector<double> elements) {
    for (double& e : elements)
      e *= E * plan.grad_factor;
    return elements;
  };
  // Megatron-Core captures a MoE block whole only with a fixed capacity: a dropless one's shapes
  // follow the routing ("moe cuda graph is only supported with drop-padding MoE",
  // megatron/core/transformer/transformer_config.py). A whole iteration's graph is not checked
  // there: the runs that capture one pre-size the dispatch themselves (HybridEP's
  // moe_expert_rank_capacity_factor, core 0.18), which routing as balanced as simgpt's never fills.
  if (profile.cuda_graphs.moe && !profile.cuda_graphs.outside_layers && w.model.moe() && !w.model.capacity_factor)
    throw InputError("compute.cuda_graphs",
                     "captures whole MoE blocks (moe, layers), which needs a fixed expert capacity: set "
                     "model.capacity_factor, or capture the blocks before the dispatch only ([attn, moe_router, "
                     "moe_preprocess]) or the whole iteration");
  // transformer_config.py: "CUDA graphs not supported with CPU offloading" but a whole iteration's.
  const CudaGraphs& graphs = profile.cuda_graphs;
  const bool some_graphs = graphs.attention || graphs.mlp || graphs.moe_router || graphs.moe || graphs.mamba;
  if (w.training.cpu_offload_layers > 0 && some_graphs && !graphs.outside_layers)
    throw InputError("compute.cuda_graphs",
                     "captures layers, which Megatron-Core does not with training.cpu_offload_layers: capture the "
                     "whole iteration, or none");
  if (profile.dp_per_tensor && (w.model.latent_attention || w.model.moe() || w.model.hybrid()))
    throw InputError("collectives.dp_per_tensor",
                     "lists the tensors of dense GPT layers only: not with multi-head latent attention, MoE or "
                     "hybrid layers (use false)");
  // The step's kernels for the ledger: each block's forward and backward once a layer and
  // micro-batch, the forward again where full recompute reruns it.
  const double micro_batches = static_cast<double>(plan.micro_batches);
  const bool rerun = w.training.recompute == Recompute::full;
  // With experts whole beside tp > 1 (parallelism.etp 1) an expert-parallel group is the tensor
  // ranks of ep / tp consecutive replicas.
  plan.expert_group_tp = par.expert_tp() < par.tp ? plan.tp : 1;
  plan.ep = static_cast<int>(par.ep) / plan.expert_group_tp;
  plan.dense_layers = w.model.moe() ? static_cast<int>(w.model.dense_layers) : 0;
  const MoeBlock moe = w.model.moe() ? moe_block_forward(model, shard, form) : MoeBlock{};
  Kernels moe_mlp;
  for (const Kernels* part : {&moe.before_dispatch, &moe.experts, &moe.after_combine})
    moe_mlp.insert(moe_mlp.end(), part->begin(), part->end());
  // Megatron-Core's combined 1F1B (models/common/model_chunk_schedule_plan.py, TransformerLayer-
  // SchedulePlan.run) issues a layer of the forward micro-batch f and one of the backward b on a
  // computation and a communication stream: combine_bwd(b) beside f's attention, router and permute;
  // dispatch(f) beside b's experts' data gradients; dispatch_bwd(b) beside b's experts' weight
  // gradients (--delay-wgrad-compute) and f's experts; combine(f) beside b's attention backward. The
  // partner's layer is taken to cost what this one does; a GEMM's data and weight gradients half
  // of its backward each.
  const auto a2a_overlap_windows = [](LayerCost& l) {
    const double expert_grads = l.moe_backward[1] / 2;
    l.a2a_overlap_s[0][0] = expert_grads;
    l.a2a_overlap_s[0][1] = l.attention_backward + l.moe_backward[0];
    l.a2a_overlap_s[1][1] = l.attention_forward + l.moe_forward[0];
    l.a2a_overlap_s[1][0] = expert_grads + l.moe_forward[1];
  };
  // A MoE layer's parts around its all-to-alls, and its experts' gradients and weights.
  const auto fill_moe = [&](LayerCost& l) {
    l.moe = true;
    // The router and the first permutation (scopes moe_router, moe_preprocess) before the dispatch;
    // the experts and what follows the combine only in the whole block's scope (moe).
    const GraphScope scopes[3] = {GraphScope::moe_router, GraphScope::moe, GraphScope::moe};
    int i = 0;
    for (const Kernels* part : {&moe.before_dispatch, &moe.experts, &moe.after_combine}) {
      l.moe_forward[i] = cost.seconds(*part, scopes[i]);
      l.moe_backward[i] = cost.seconds(backward_of(*part), scopes[i]);
      ++i;
    }
    l.all_to_all_bytes = all_to_all_bytes(model, shard);
    if (plan.moe_a2a_overlap)
      a2a_overlap_windows(l);
    l.expert_grad_bytes = expert_parameters(w.model, par.expert_tp(), par.ep) * E * plan.grad_factor;
    // The routed experts' weights are all their grouped GEMMs' (fp8 under fp8 training).
    l.expert_param_bytes = expert_parameters(w.model, par.expert_tp(), par.ep) * (fp8_gathers ? 1 : E);
  };
  // The layers of one attention form (windowed or not): their dense and MoE layers' costs, and
  // their kernels in the ledger (the form's costs are kept when no layer has it: a plan's `layer`
  // is every layer's size).
  const auto cost_layers = [&](bool windowed, LayerCost& dense, LayerCost& moe_layer) {
    double dense_count = 0, moe_count = 0;
    // Multi-token prediction's layers are unwindowed; a hybrid model's own layers are costed apart
    // (hybrid_layers), its modules' layers here (is_moe_layer answers for them too).
    for (int64_t i = w.model.hybrid() ? w.model.layers : 0; i < w.model.layers + w.model.mtp_layers; ++i)
      if ((i < w.model.layers && w.model.is_windowed_layer(i)) == windowed)
        ++(w.model.is_moe_layer(i) ? moe_count : dense_count);
    const ModelSpec lm = attention_model(windowed);
    const Kernels attention = attention_block_forward(lm, shard, form);
    dense = layer_cost(lm, attention, mlp, layer_parameters(w.model, par.tp), false);
    if (profile.dp_per_tensor)
      dense.grad_tensors = grad_tensors(layer_parameter_tensors(w.model, par.tp));
    if (w.model.moe()) {
      moe_layer = layer_cost(lm, attention, moe_mlp, moe_layer_parameters(w.model, par.tp, par.ep, par.expert_tp()), true);
      fill_moe(moe_layer);
      account_block(plan.kernels, cost, moe_mlp, moe_count * micro_batches, rerun || plan.moe_rerun);
      cost.account(selective_kernels(lm, attention, moe_mlp, true), moe_count * micro_batches, plan.kernels);
    }
    account_block(plan.kernels, cost, attention, (dense_count + moe_count) * micro_batches, rerun);
    account_block(plan.kernels, cost, mlp, dense_count * micro_batches, rerun);
    cost.account(selective_kernels(lm, attention, mlp, false), dense_count * micro_batches, plan.kernels);
  };
  cost_layers(false, plan.dense_layer, plan.layer);
  if (w.model.hybrid()) {
    // A hybrid model's layers, a block each (model.hybrid_pattern): each kind costed once.
    plan.hybrid_pattern = w.model.hybrid_pattern;
    for (size_t k = 0; k < kHybridSymbols.size(); ++k) {
      const char symbol = kHybridSymbols[k];
      const size_t first = w.model.hybrid_pattern.find(symbol);
      if (first == std::string::npos)
        continue;
      const auto i = static_cast<int64_t>(first);
      const double count = static_cast<double>(w.model.layers_of(symbol));
      const Kernels mixer = mixer_block_forward(model, shard, form, i);
      const Kernels& ffn = symbol == '-' ? mlp : symbol == 'E' ? moe_mlp : Kernels{};
      LayerCost& l = plan.hybrid_layers[k];
      l = layer_cost(model, mixer, ffn, layer_parameters_at(w.model, par.tp, par.ep, i, par.expert_tp()), symbol == 'E', symbol);
      if (symbol == 'E')
        fill_moe(l);
      account_block(plan.kernels, cost, mixer, count * micro_batches, rerun);
      account_block(plan.kernels, cost, ffn, count * micro_batches, rerun || (symbol == 'E' && plan.moe_rerun));
      cost.account(selective_kernels(model, mixer, ffn, symbol == 'E', symbol), count * micro_batches, plan.kernels);
    }
  }
  if (w.model.window > 0) {
    cost_layers(true, plan.windowed_dense_layer, plan.windowed_layer);
    plan.windowed.resize(static_cast<size_t>(w.model.layers));
    for (int64_t i = 0; i < w.model.layers; ++i)
      plan.windowed[static_cast<size_t>(i)] = w.model.is_windowed_layer(i);
  }
  if (!w.model.is_moe_layer(w.model.layers)) { // the prediction layers' MLP too (mtp_layer_model)
    plan.layer = plan.dense_layer;
    plan.windowed_layer = plan.windowed_dense_layer;
  }
  if (w.model.mtp_shared_layer && w.model.mtp_layers > 1) {
    // The shared multi-token prediction layer's later runs: its first holds the weights, and its
    // gradients accumulate there (one reduce and one gather a step).
    plan.mtp_repeats_from = static_cast<int>(w.model.layers + 1);
    plan.mtp_repeat = plan.layer_at(static_cast<int>(w.model.layers));
    for (double* bytes : {&plan.mtp_repeat.grad_bytes, &plan.mtp_repeat.param_bytes,
                          &plan.mtp_repeat.expert_grad_bytes, &plan.mtp_repeat.expert_param_bytes})
      *bytes = 0;
    plan.mtp_repeat.grad_tensors.clear();
  }
  if (profile.zero3_prefetch_bucket_elements > 0) {
    // DeepSpeed's PartitionedParameterCoordinator prefetches the next parameters of its trace
    // while fewer than stage3_prefetch_bucket_size elements are in flight: the last one it
    // starts may cross the bound, so a partly covered layer counts.
    // A layer's parameters: its gradient bytes over their width (its param_bytes are what the
    // gathers move, one byte a weight for fp8 parameters).
    const double layer_elements = plan.layer.grad_bytes / (E * plan.grad_factor);
    const double layers = std::ceil(profile.zero3_prefetch_bucket_elements / layer_elements);
    plan.zero3_prefetch_layers = static_cast<int>(std::min(layers, static_cast<double>(w.model.layers)));
  }

  const Kernels embedding = embedding_forward(model, shard);
  const Kernels head = head_forward(model, shard, form);
  account_block(plan.kernels, cost, embedding, micro_batches, false);
  account_block(plan.kernels, cost, head, micro_batches, false);
  // Multi-token prediction's modules beside their layers, on the last virtual stage.
  const int mtp = static_cast<int>(w.model.mtp_layers);
  const Kernels mtp_block = mtp > 0 ? mtp_forward(model, shard, form) : Kernels{};
  if (mtp > 0)
    account_block(plan.kernels, cost, mtp_block, mtp * micro_batches, false);
  if (mtp > 0 && profile.dp_per_tensor)
    throw InputError("collectives.dp_per_tensor",
                     "lists the tensors of dense GPT layers only: not with multi-token prediction (use false)");
  const double optimizer_bandwidth = cost.gpu().memory_bandwidth * cost.gpu().memory_efficiency;
  const double opt_bytes = optimizer_bytes_per_parameter(w.training);
  const int virtual_stages = plan.pp * plan.chunks;
  // The balanced partition weighs the layers as the model's last (a MoE model's MoE layers).
  const Kernels last_layer = layer_forward(model, shard, form, w.model.layers - 1);
  const std::vector<int> layer_counts = stage_layers(w, profile, last_layer, embedding, head, virtual_stages);
  int first_layer = 0;
  for (int v = 0; v < virtual_stages; ++v) {
    StageCost c;
    // The last virtual stage runs multi-token prediction's layers after the model's (Megatron-
    // Core builds them where the loss is, multi_token_prediction.py: mtp_on_this_rank), indexed
    // after the model's layers.
    const int layers = layer_counts[static_cast<size_t>(v)] + (v == virtual_stages - 1 ? mtp : 0);
    c.layers = layers;
    c.first_layer = first_layer;
    double layer_params = 0;
    for (int i = first_layer; i < first_layer + layers; ++i) {
      if (!w.model.has_own_weights(i)) // a shared multi-token prediction layer's again
        continue;
      layer_params += layer_parameters_at(w.model, par.tp, par.ep, i, par.expert_tp());
      if (w.model.is_moe_layer(i))
        c.expert_parameters += expert_parameters(w.model, par.expert_tp(), par.ep);
    }
    first_layer += layers;
    double embedding_params = 0, head_params = 0;
    if (v == 0) {
      c.embedding_forward = cost.seconds(embedding, GraphScope::outside_layers);
      c.embedding_backward = cost.seconds(backward_of(embedding), GraphScope::outside_layers);
      embedding_params = embedding_parameters(w.model, par.tp);
      if (profile.dp_per_tensor)
        c.embedding_grad_tensors = grad_tensors(embedding_parameter_tensors(w.model, par.tp));
    }
    if (v == virtual_stages - 1) {
      c.head_forward = cost.seconds(head, GraphScope::outside_layers);
      c.head_backward = cost.seconds(backward_of(head), GraphScope::outside_layers);
      head_params = head_parameters(w.model, par.tp);
      std::vector<double> tensors = head_parameter_tensors(w.model, par.tp);
      // An LM head on its own stage keeps a copy of the word embedding it is tied to: one more tensor.
      if (w.model.head == Head::lm && w.model.tie_embeddings && virtual_stages > 1) {
        const double copy = static_cast<double>(w.model.vocab * w.model.hidden / par.tp);
        head_params += copy;
        tensors.push_back(copy);
      }
      if (profile.dp_per_tensor)
        c.head_grad_tensors = grad_tensors(std::move(tensors));
      if (mtp > 0) {
        c.head_forward += mtp * cost.seconds(mtp_block, GraphScope::outside_layers);
        c.head_backward += mtp * cost.seconds(backward_of(mtp_block), GraphScope::outside_layers);
        head_params += mtp_parameters(w.model, par.tp);
        // The modules embed with the model's word embedding: a pipelined model's last stage holds
        // a copy, kept equal to the first's as a tied one is (megatron/core/models/common/
        // language_module/language_module.py, setup_embeddings_and_output_layer).
        if (virtual_stages > 1 && !w.model.tie_embeddings)
          head_params += static_cast<double>(w.model.vocab * w.model.hidden / par.tp);
      }
    }
    if (fsdp2_copies && v == 0) {
      // The root unit (fully_shard(model): the embedding, the final norm, the output layer) is
      // gathered once, before the forward, and kept through the backward (_fsdp_state.py,
      // _lazy_init: the root is not resharded after forward); its gradients reduced at the end.
      const Fsdp2Copies root = fsdp2_copy_seconds(embedding_params + head_params);
      c.embedding_forward += root.out;
      c.embedding_backward += root.in;
    }
    c.embedding_bytes = embedding_params * E;
    c.head_bytes = head_params * E;
    const double params = layer_params + embedding_params + head_params;
    c.parameters = params;
    c.optimizer_s = profile.optimizer_offload ? params * profile.offload_time_per_parameter_s
                                              : params * opt_bytes / optimizer_bandwidth + layers * cost.gpu().kernel_launch_s;
    if (profile.optimizer_master_casts && !profile.optimizer_offload && w.training.precision != Precision::fp32) {
      // The loop's own casts (Profile::optimizer_master_casts): the fp32 gradient each cast writes
      // and the fp32 master the copy back reads, 4 + 4 bytes a parameter beyond the optimizer's;
      // the casts one kernel a tensor, each at least a launch gap.
      const double tensors = layers * static_cast<double>(layer_parameter_tensors(w.model, par.tp).size()) +
                             (v == 0 ? static_cast<double>(embedding_parameter_tensors(w.model, par.tp).size()) : 0) +
                             (v == virtual_stages - 1 ? static_cast<double>(head_parameter_tensors(w.model, par.tp).size()) : 0);
      c.optimizer_s += params * 8 / optimizer_bandwidth + tensors * cost.gpu().kernel_launch_s;
    }
    if (!profile.optimizer_offload) {
      // The gradient passes outside the update (Profile::grad_passes), each at memory speed: over
      // the gradients this GPU holds (all its parameters', 1/dp of them where they are sharded:
      // ExecutionPlan::sharded_gradients), the zeroing, the 1/dp scale and the NaN check; over those it updates (1/dp under a sharded
      // optimizer: optimizer_seconds divides optimizer_s), the clip's norm of the fp32 main
      // gradients. Megatron-LM: zero_grad_buffer at each step's start (training.py, train_step);
      // bucket.grad_data *= gradient_scaling_factor, 1/dp, before the reduction
      // (param_and_grad_buffer.py, start_grad_sync; megatron/model/distributed.py's local DDP
      // divides its buffer likewise); get_grad_norm_fp32's multi_tensor_l2norm (optimizer/
      // clip_grads.py, under --clip-grad, 1.0 by default). Clipping's own scale pass runs only when
      // the norm exceeds the threshold, which the data decide: not counted. The NaN check is
      // Megatron-Core's check_for_nan_in_grad (param_and_grad_buffer.py, check_grads: each
      // bucket's norm before its reduction); its host synchronisations are not modelled.
      const Profile::GradPasses& g = profile.grad_passes;
      const double held = plan.sharded_gradients() && plan.dp > 1 ? params / plan.dp : params;
      const double passes = (g.zero_buffer ? 1 : 0) + (g.nan_check ? 1 : 0) + (g.dp_scale && plan.dp > 1 ? 2 : 0);
      const double held_bytes =
          held * gradient_element_bytes(w.training.precision, profile.memory.fp32_grads_with_bf16) * passes;
      c.grad_pass_s = held_bytes / optimizer_bandwidth;
      if (g.clip_norm)
        c.optimizer_s += params * 4 / optimizer_bandwidth;
    }
    plan.stages.push_back(c);
  }
  plan.activation_bytes = static_cast<double>(w.training.micro_batch * model.seq_len * w.model.hidden) * E;
  return plan;
}

LayerSeconds layer_seconds(const ExecutionPlan& plan, int v) {
  const StageCost& c = plan.stages[static_cast<size_t>(v)];
  LayerSeconds s;
  for (int i = c.first_layer; i < c.first_layer + c.layers; ++i) {
    const LayerCost& l = plan.layer_at(i);
    s.forward += l.attention_forward + l.mlp_forward;
    s.backward += l.mlp_backward + l.recompute_core + l.attention_backward;
  }
  return s;
}

double optimizer_seconds(const ExecutionPlan& plan, int s) {
  const bool sharded = plan.sharded_optimizer() && plan.dp > 1;
  double seconds = 0;
  for (int c = 0; c < plan.chunks; ++c) {
    const StageCost& stage = plan.stages[static_cast<size_t>(c * plan.pp + s)];
    const double experts = plan.ep > 1 && stage.parameters > 0 ? stage.expert_parameters / stage.parameters : 0;
    seconds += sharded ? stage.optimizer_s * ((1 - experts) / plan.dp + experts * plan.ep / plan.dp) : stage.optimizer_s;
    seconds += stage.grad_pass_s;
  }
  return seconds;
}

} // namespace simgpt
