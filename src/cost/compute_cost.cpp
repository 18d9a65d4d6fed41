#include "cost/compute_cost.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace simgpt {

ComputeCostModel::ComputeCostModel(const GpuSpec& gpu, const Profile& profile, Precision precision,
                                   const std::string& where)
    : gpu_(gpu), profile_(profile), precision_(precision) {
  auto peak = gpu.peak_flops.find(precision);
  if (peak == gpu.peak_flops.end())
    throw InputError(where, fmt::format("GPU {} does not support {} (the catalog lists no {} peak)", gpu.name,
                                        name_of(precision), name_of(precision)));
  peak_ = peak->second;
  gemm_eff_ = gpu.gemm_efficiency.at(precision);
  if (auto u = gpu.unaligned_gemm_efficiency.find(precision); u != gpu.unaligned_gemm_efficiency.end())
    unaligned_eff_ = u->second;
  if (auto g = gpu.grouped_gemm_efficiency.find(precision); g != gpu.grouped_gemm_efficiency.end())
    grouped_eff_ = g->second;
}

ComputeCostModel::ComputeCostModel(const GpuSpec& gpu, const Profile& profile, const TrainingSpec& training,
                                   const std::string& source)
    : ComputeCostModel(gpu, profile, training.precision, source + ": training.precision") {
  fp8_ = training.fp8;
  fp8_recipe_ = training.fp8_recipe;
  // TransformerEngine runs fp8 GEMMs from compute capability 8.9 (Ada, Hopper) on and refuses
  // below (transformer_engine/pytorch/quantization.py, _compute_fp8_support: "Device compute
  // capability 8.9 or higher required for FP8 execution"); the catalog gives those GPUs an fp8 peak.
  if (fp8_ != Fp8Format::none && !(gpu.fp8_peak_flops > 0))
    throw InputError(source + ": training.fp8",
                     fmt::format("{} needs fp8 tensor cores and GPU {} has none (TransformerEngine needs compute "
                                 "capability 8.9 or higher; the catalog lists no fp8 peak for it): expected none",
                                 name_of(fp8_), gpu.name));
  // transformer_engine/pytorch/quantization.py, check_mxfp8_support: block-scaled fp8 GEMMs need
  // Blackwell's tensor cores (compute capability 10.0 and up).
  // NVFP4BlockScaling's GEMMs need Blackwell's fp4 tensor cores (transformer_engine/pytorch/
  // quantization.py, check_nvfp4_support); the catalog gives those GPUs an fp4 peak.
  if (fp8_ != Fp8Format::none && fp8_recipe_ == Fp8Recipe::nvfp4 && !(gpu.fp4_peak_flops > 0))
    throw InputError(source + ": training.fp8_recipe",
                     fmt::format("nvfp4 needs fp4 tensor cores (Blackwell, compute capability 10.0 and up) and the "
                                 "catalog lists no fp4 peak for GPU {}: expected delayed, tensorwise or mxfp8",
                                 gpu.name));
  if (fp8_ != Fp8Format::none && fp8_recipe_ == Fp8Recipe::mxfp8 && gpu.compute_capability < 10.0)
    throw InputError(source + ": training.fp8_recipe",
                     fmt::format("mxfp8 needs block-scaled fp8 GEMMs (compute capability 10.0 and up, Blackwell) and "
                                 "GPU {} has compute capability {}: expected delayed or tensorwise",
                                 gpu.name, gpu.compute_capability));
}

// Tensor-core GEMM kernels load their operands in 16-byte vectors, so every leading dimension
// must be a multiple of 16 bytes (NVIDIA, "Matrix Multiplication Background User's Guide",
// Tensor Core Requirements: multiples of 8 elements in FP16 and BF16, 16 in FP8); otherwise cuBLAS
// falls back to kernels that load one element at a time (on the H200, a CUTLASS sm75 tensor-op
// kernel with align1 in its name). Which operand a dimension leads depends on the layout, so any of
// m, n and k breaks it: an LM head over GPT-2's 50,257 words does.
bool ComputeCostModel::unaligned(const Kernel& k) const {
  const double vector = 16 / (k.fp4 ? 0.5 : k.fp8 ? 1.0 : element_bytes(precision_));
  for (double d : {k.m, k.n, k.k})
    if (std::fmod(d, vector) != 0)
      return true;
  return false;
}

// The fraction of the peak a large GEMM of its precision reaches, a grouped GEMM's its own where
// the catalog measures it (grouped_gemm_efficiency).
double ComputeCostModel::peak_fraction(const Kernel& k) const {
  if (k.grouped) {
    const double grouped = k.fp4   ? gpu_.fp4_grouped_gemm_efficiency
                           : k.fp8 ? gpu_.fp8_grouped_gemm_efficiency
                                   : grouped_eff_;
    if (grouped > 0)
      return grouped;
  }
  return k.fp4 ? gpu_.fp4_gemm_efficiency : k.fp8 ? gpu_.fp8_gemm_efficiency : gemm_eff_;
}

double ComputeCostModel::gemm_efficiency(const Kernel& k) const {
  if (unaligned(k)) {
    const double measured = k.fp8 ? gpu_.fp8_unaligned_gemm_efficiency : unaligned_eff_;
    if (measured > 0)
      return measured; // measured on whole GEMMs of this kind: its shape's losses are in it
  }
  const double tile = gpu_.gemm_tile;
  const double tiles_m = std::ceil(k.m / tile), tiles_n = std::ceil(k.n / tile);
  const double tiles = tiles_m * tiles_n * k.batch;
  const double sms = gpu_.sms;
  const double waves = std::ceil(tiles / sms);
  const double wave_eff = tiles / (waves * sms);
  const double pad_eff = (k.m * k.n) / (tiles_m * tile * tiles_n * tile);
  // A tile's prologue and epilogue (loading the first operands, writing C) cost about as much
  // as a quarter tile of reduction steps.
  const double k_eff = k.k / (k.k + tile / 4);
  return peak_fraction(k) * wave_eff * pad_eff * k_eff;
}

KernelForm ComputeCostModel::form(const ModelSpec& m, const Shard& s) const {
  KernelForm form{profile_.softmax_passes, profile_.dropout, profile_.fused_elementwise};
  form.eager_chains = profile_.eager_fp32_chains && !profile_.fused_elementwise;
  form.repeat_kv = profile_.eager_fp32_chains;
  form.te_cross_entropy = profile_.te_cross_entropy;
  form.head_copies = profile_.head_copies;
  if (fp8_ != Fp8Format::none) {
    form.fp8 = true;
    form.fp8_transpose = gpu_.fp8_gemms_tn_only();
    form.fp8_current_scaling = fp8_recipe_ == Fp8Recipe::tensorwise;
    if (fp8_recipe_ == Fp8Recipe::mxfp8) {
      // MXFP8Quantizer writes the row-wise copy and, for the GEMMs that read it the other way,
      // the column-wise one (scales run along the reduction dimension), each with one scale byte
      // per 32 values (transformer_engine/pytorch/tensor/mxfp8_tensor.py).
      form.fp8_transpose = true;
      form.fp8_block = 32;
    }
    if (fp8_recipe_ == Fp8Recipe::nvfp4) {
      // NVFP4Quantizer (transformer_engine/pytorch/csrc/quantizer.cpp, TransformerEngine 2.14 on):
      // an amax pass, then one kernel writing the row-wise copy and the column-wise one through the
      // Hadamard transform, E2M1 with an E4M3 scale per 16 values; the GEMMs at the fp4 peak.
      form.fp8_transpose = true;
      form.fp8_current_scaling = true;
      form.fp8_block = 16;
      form.fp4 = true;
    }
    form.fp8_recast_per_use = profile_.fp8_recast_per_use;
  }
  const Profile::FusedSoftmax& fused = profile_.fused_softmax;
  if (!fused.limited)
    return form;
  const int64_t attention_batches = s.micro_batch * (m.heads / s.tp);
  const bool available = s.precision != Precision::fp32 && (fused.max_seq == 0 || m.seq_len <= fused.max_seq) &&
                         attention_batches % fused.batch_multiple == 0;
  if (!available) {
    form.softmax_passes = fused.fallback_passes;
    form.softmax_fp32 = fused.fallback_fp32;
  }
  return form;
}

double ComputeCostModel::attention_efficiency(const Kernel& k) const {
  // FlashAttention-2 on long sequences, as measured (Shah et al. 2024, FlashAttention-3, arXiv
  // 2407.08608, Figures 5 and 6: H100 SXM5, head dimension 128, 16k tokens: 335 TFLOP/s forward
  // with the causal mask, 322 backward), FLOPs counted as here (the causal half, backward 2.5x).
  if (profile_.attention_flash2 && gpu_.flash2_forward_efficiency > 0)
    return k.backward ? gpu_.flash2_backward_efficiency : gpu_.flash2_forward_efficiency;
  // FlashAttention gives each thread block one tile of query rows by the whole head dimension, for
  // every (micro-batch, head), and loops it over all keys (Dao et al. 2022, arXiv 2205.14135,
  // Algorithm 1; FlashAttention-2, Dao 2023, arXiv 2307.08691, section 3.2): the large-GEMM path
  // with output tiles of [gemm_tile x head_dim] (no padding of the head dimension) and the key
  // length as the reduction.
  return gemm_efficiency(Kernel::gemm(k.m, gpu_.gemm_tile, k.n, k.batch));
}

double ComputeCostModel::priced_seconds(const Kernel& k) const {
  const double E = element_bytes(precision_);
  const double stream_bw = gpu_.memory_bandwidth * gpu_.memory_efficiency;
  double gpu_time = 0;
  if (k.kind == Kernel::Kind::gemm) {
    // A and B in the model's precision, or one byte an element in fp8 (nvfp4: half a byte and a
    // scale byte per 16); C in the model's precision (TE's GEMM output).
    const double q = k.fp4 ? 0.5 + 1.0 / 16 : k.fp8 ? 1 : E;
    const double operand_bytes = ((k.m * k.k + k.k * k.n) * q + k.m * k.n * E) * k.batch;
    const double peak = k.fp4 ? gpu_.fp4_peak_flops : k.fp8 ? gpu_.fp8_peak_flops : peak_;
    const double math = k.flops() / (peak * gemm_efficiency(k));
    if (!k.grouped) {
      gpu_time = std::max(math, operand_bytes / stream_bw);
    } else {
      // A grouped GEMM is a GEMM per expert (TransformerEngine's general_grouped_gemm reaches
      // nvte_multi_tensor_gemm, which runs multi_stream_cublas_gemm, one cuBLAS GEMM a group over
      // its compute streams, on every GPU but Hopper with NVTE_USE_CUTLASS_GROUPED_GEMM:
      // transformer_engine/common/gemm/cublaslt_gemm.cu). An expert's GEMM has few tokens, so it
      // has few reduction steps (its weight gradient) or few output tiles to hide its operands'
      // loads and its output's store behind: its HBM traffic adds to its math instead of
      // overlapping it. The weight gradient (NT) adds its output into the main gradient in place
      // (Megatron-Core's TEGroupedMLP: GroupedLinear with fuse_wgrad_accumulation, its
      // gradient_accumulation_fusion), reading and writing a whole [out x in] weight's gradient
      // per expert. B200's grouped GEMMs as measured (platforms/kernels/B200-SXM-180GB.yaml, 76
      // shapes) follow this sum at a median error of 6% against 21% for the larger of the two
      // (validation/generate/kernel_efficiencies.py).
      double bytes = operand_bytes;
      if (k.layout == Kernel::Layout::NT)
        bytes += k.m * k.n * k.batch * (2 * gradient_bytes() - E);
      gpu_time = math + bytes / stream_bw;
    }
  } else if (k.kind == Kernel::Kind::attention) {
    // Compute-bound: its HBM traffic is O(b s h) against O(b a s^2 d) FLOPs.
    gpu_time = std::max(k.flops() / (peak_ * attention_efficiency(k)), k.bytes / stream_bw);
  } else {
    const double strided = gpu_.strided_memory_efficiency;
    const double own = k.op == Kernel::Op::te_cross_entropy ? gpu_.te_cross_entropy_efficiency
                       : k.op == Kernel::Op::moe_permute    ? gpu_.moe_permute_efficiency
                                                            : 0;
    gpu_time = k.bytes / (k.strided && strided > 0 ? gpu_.memory_bandwidth * strided
                          : own > 0                 ? gpu_.memory_bandwidth * own
                                                    : stream_bw);
  }
  return gpu_time + gpu_.kernel_launch_s;
}

// What a table keys the kernel by (system/kernel_table.hpp, platforms/kernels/README.md). A linear
// layer's weight gradient is written into the framework's gradient buffer: fp32 where it keeps bf16
// models' gradients in fp32 (Megatron-LM's gradient-accumulation fusion accumulates into main_grad,
// a different kernel from a bf16 output). An fp8 GEMM writes the model's precision (TE's output).
std::optional<KernelTable::Shape> ComputeCostModel::table_shape(const Kernel& k) const {
  const std::string precision = name_of(precision_);
  if (k.kind == Kernel::Kind::gemm) {
    if (k.layout == Kernel::Layout::none)
      return std::nullopt;
    const char* layout = k.layout == Kernel::Layout::TN ? "TN" : k.layout == Kernel::Layout::NN ? "NN" : "NT";
    const bool fp32_grads = gradient_bytes() == 4;
    const std::string out = k.layout == Kernel::Layout::NT && fp32_grads ? "fp32" : precision;
    // A dropless expert's even share of the routed tokens is an average that need not be whole
    // (under a capacity factor it is: model.cpp): the table is asked for the next whole number of
    // rows.
    return KernelTable::gemm(k.grouped ? KernelTable::Kind::grouped_gemm : KernelTable::Kind::gemm,
                             k.fp4 ? "fp4" : k.fp8 ? "fp8" : precision, layout, out, std::ceil(k.batch), std::ceil(k.m),
                             std::ceil(k.n), std::ceil(k.k));
  }
  if (k.kind == Kernel::Kind::attention) {
    const Kernel::AttentionShape& a = k.attention_shape;
    // No table measures a sliding window's kernel: it is priced by its blocks.
    if (!a.runs_whole || !(a.heads > 0) || a.window > 0)
      return std::nullopt;
    return KernelTable::attention(precision, k.backward, a.causal, a.qkv_contiguous ? "contiguous" : "strided",
                                  a.batch, a.seq, a.heads, a.kv_heads, a.qk_dim, a.v_dim);
  }
  if (k.kind == Kernel::Kind::memory && (k.op == Kernel::Op::rmsnorm || k.op == Kernel::Op::layernorm))
    return KernelTable::memory(k.op == Kernel::Op::rmsnorm ? "rmsnorm" : "layernorm", precision, k.backward,
                               k.elements);
  return std::nullopt;
}

ComputeCostModel::Price ComputeCostModel::price(const Kernel& k) const {
  Price p;
  p.kind = k.kind == Kernel::Kind::gemm      ? (k.grouped ? KernelTable::Kind::grouped_gemm : KernelTable::Kind::gemm)
           : k.kind == Kernel::Kind::attention ? KernelTable::Kind::attention
                                               : KernelTable::Kind::memory;
  p.shape = table_shape(k);
  p.width = k.width;
  if (p.shape && gpu_.kernel_table) {
    std::optional<KernelTable::Time> t = gpu_.kernel_table->find(*p.shape);
    // Queries, keys and values as views or as tensors of their own cost FlashAttention within a
    // few percent (SimuMax's B200 rows: 0-5%): a table with only the other form is used for it.
    if (!t && p.kind == KernelTable::Kind::attention) {
      Kernel other = k;
      other.attention_shape.qkv_contiguous = !other.attention_shape.qkv_contiguous;
      t = gpu_.kernel_table->find(*table_shape(other));
    }
    if (t) {
      p.seconds = t->seconds; // the launch gap included (KernelTable::load)
      p.source = t->match == KernelTable::Match::exact ? KernelSource::table : KernelSource::interpolated;
      return p;
    }
  }
  p.seconds = priced_seconds(k);
  return p;
}

void ComputeCostModel::account(const Kernels& ks, double calls, KernelLedger& ledger) const {
  for (const Kernel& k : ks) {
    const Price p = price(k);
    ledger.add(p.kind, p.shape ? &*p.shape : nullptr, p.seconds, p.source, calls, p.width);
  }
}

// The host thread issues a block's kernels in order, one every `op_overhead` (the framework's host
// time per kernel: its Python, PyTorch's dispatcher and the launch call), and the GPU runs each
// once it is issued and its stream is free (CUDA's asynchronous launch: the host waits only at a
// synchronisation, the GPU only for work not yet issued). The host is taken to enter the block
// with its first kernel issued, as it is when the GPU was busy with the block before: a block of
// long kernels costs their GPU time, one of kernels shorter than their dispatch costs the host's.
//
// With CUDA graphs over the block's scope (compute.cuda_graphs) its kernels were captured once and
// the host replays them with one launch (CUDA C++ Programming Guide, "CUDA Graphs": a graph is
// launched as a unit, its work submitted without a host call per kernel; Megatron-Core captures a
// layer's blocks forward and backward, megatron/core/transformer/cuda_graphs.py, or TransformerEngine's
// make_graphed_callables for the scopes named): the whole block is issued as it begins, and only
// the GPU's gap between kernels (kernel_launch) remains.
//
// A grouped GEMM is one GEMM a group, each issued by TransformerEngine's own loop (general_grouped_gemm
// reaches multi_stream_cublas_gemm: a cuBLASLt call per group, its descriptors and heuristic query
// made each time; transformer_engine/common/gemm/cublaslt_gemm.cu, v2.11), which takes the GPU's
// grouped_gemm_launch a group (the profile's compute.grouped_gemm per_group): B200's grouped GEMMs as measured take 8.6-9.4 us a group at 261 to 561
// TFLOP/s alike (platforms/kernels/B200-SXM-180GB.yaml: 80 groups of 308 rows and 160 of 154, the
// same FLOPs, take 690 and 1403 us), so the loop, not the tensor cores, sets their time. The host
// is in the loop for that long, and the kernel cannot end before its last GEMM is issued. Captured
// in a CUDA graph, the loop is not run again.
ComputeCostModel::Issue ComputeCostModel::issue_of(const Kernel& k, bool captured) const {
  Issue i;
  i.run = kernel_seconds(k);
  i.issue = captured || !k.host_call ? 0.0 : profile_.op_overhead_s;
  if (k.kind == Kernel::Kind::gemm && k.grouped && profile_.grouped_gemm_per_group && !captured)
    i.loop = std::ceil(k.batch) * gpu_.grouped_gemm_launch_s;
  return i;
}

namespace {

// The host issues the kernel `issued` seconds in; the GPU starts it when issued and free.
void advance(double& issued, double& done, double run, double issue, double loop) {
  done = std::max(std::max(done, issued) + run, issued + loop);
  issued += issue + loop;
}

} // namespace

double ComputeCostModel::seconds(const Kernels& ks, GraphScope scope) const {
  const bool captured = profile_.cuda_graphs.captures(scope);
  double issued = 0, done = 0;
  for (const Kernel& k : ks) {
    const Issue i = issue_of(k, captured);
    advance(issued, done, i.run, i.issue, i.loop);
  }
  return done;
}

double ComputeCostModel::stack_seconds(const Kernels& first, const Kernels& second, int64_t repeats) const {
  std::vector<Issue> period;
  period.reserve(first.size() + second.size());
  for (const Kernels* ks : {&first, &second})
    for (const Kernel& k : *ks)
      period.push_back(issue_of(k, false));
  double issued = 0, done = 0;
  for (int64_t r = 0; r < repeats; ++r)
    for (const Issue& i : period)
      advance(issued, done, i.run, i.issue, i.loop);
  return done;
}

} // namespace simgpt
