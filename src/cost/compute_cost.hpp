// Joins the model (kernels) with the system (a GPU) and the framework (a profile): the time
// of each kernel on one GPU, by what bounds it.
#pragma once

#include "cost/kernel_ledger.hpp"
#include "simgpt/system/gpu.hpp"
#include "model/model.hpp"
#include "simgpt/framework/profile.hpp"

#include <optional>

namespace simgpt {

class ComputeCostModel {
public:
  // Throws InputError (naming `where`) when the GPU lacks the precision.
  ComputeCostModel(const GpuSpec& gpu, const Profile& profile, Precision precision, const std::string& where);
  // The workload's precision and fp8 training (training.fp8, fp8_recipe); throws InputError naming
  // `source`'s training.precision when the GPU lacks the precision, its training.fp8 when the GPU
  // has no fp8 tensor cores.
  ComputeCostModel(const GpuSpec& gpu, const Profile& profile, const TrainingSpec& training, const std::string& source);

  // Seconds one kernel occupies its stream. Where the GPU has a kernel table that holds the
  // kernel's shape or brackets it (system/kernel_table.hpp), the table's time (and the launch gap
  // where the table timed kernels one at a time); elsewhere priced:
  //  - a GEMM runs at the GPU's large-GEMM efficiency (an fp8 GEMM at the fp8 peak and efficiency), reduced by wave quantisation (output tiles
  //    spread over the SMs in whole waves), tile padding and the per-tile prologue/epilogue that
  //    short reductions cannot amortise; it is never faster than moving its operands through HBM;
  //  - a FlashAttention kernel (compute-bound) runs its matmuls like a GEMM, never faster than
  //    its HBM bytes;
  //  - a memory-bound kernel (an fp8 cast too) moves its bytes at the stream bandwidth;
  //  - every kernel pays the launch gap.
  double kernel_seconds(const Kernel& k) const { return price(k).seconds; }
  // The same, with where the time came from, the kind a table would file the kernel under, and the
  // shape it would key it by (none for kernels no table times: fp8 casts, elementwise passes, the
  // unfused attention core's products).
  struct Price {
    double seconds = 0;
    KernelSource source = KernelSource::fallback;
    KernelTable::Kind kind = KernelTable::Kind::memory;
    std::optional<KernelTable::Shape> shape;
    double width = 0; // a norm's row width, for a measurement of the shape (Kernel::width)
  };
  Price price(const Kernel& k) const;
  // Adds `calls` runs of each of `ks` to `ledger`.
  void account(const Kernels& ks, double calls, KernelLedger& ledger) const;
  // Seconds a block of kernels (one layer's attention or MLP, forward or backward) occupies its
  // stream, the host issuing them one every `compute.op_overhead`: when kernels are shorter than
  // their host time, the host bounds the stream; none when the profile captures the block's
  // `scope` as a CUDA graph (compute.cuda_graphs).
  double seconds(const Kernels& ks, GraphScope scope = GraphScope::none) const;
  // Seconds `repeats` like layers, each block `first` then block `second`, occupy the stream when
  // the host issues them as one (its lead carried from block to block), in the same way; each
  // kernel priced once. No CUDA graph captures them.
  double stack_seconds(const Kernels& first, const Kernels& second, int64_t repeats) const;
  double gemm_efficiency(const Kernel& k) const; // fraction of peak, for reports and tests
  double peak_fraction(const Kernel& k) const;   // gemm_efficiency before its shape's quantisation
  // Whether a dimension of the GEMM is not a whole number of 16-byte vectors.
  bool unaligned(const Kernel& k) const;
  // A FlashAttention kernel's fraction of peak: the large-GEMM path with its tiling.
  double attention_efficiency(const Kernel& k) const;

  // How the framework forms one GPU's kernels for this model and shard (the softmax may fall
  // back to unfused kernels for some shapes and precisions; fp8 training's GEMMs and casts).
  KernelForm form(const ModelSpec& m, const Shard& s) const;
  Precision precision() const { return precision_; }
  const GpuSpec& gpu() const { return gpu_; }

private:
  // One kernel in the host's issue and the GPU's run (seconds): its GPU time, the host's time to
  // issue it, and a grouped GEMM's host loop.
  struct Issue {
    double run = 0, issue = 0, loop = 0;
  };
  Issue issue_of(const Kernel& k, bool captured) const;
  double priced_seconds(const Kernel& k) const; // the cost model's own price, launch gap included
  std::optional<KernelTable::Shape> table_shape(const Kernel& k) const;
  // Bytes a value of the weight gradients the framework keeps (fp32 for bf16 models where its
  // profile says so: memory.fp32_grads_with_bf16).
  double gradient_bytes() const { return gradient_element_bytes(precision_, profile_.memory.fp32_grads_with_bf16); }

  const GpuSpec& gpu_;
  const Profile& profile_;
  Precision precision_;
  double peak_ = 0;
  double gemm_eff_ = 0;
  double unaligned_eff_ = 0; // the GPU's measured figure for unaligned GEMMs at this precision; 0: none
  double grouped_eff_ = 0;   // and for grouped GEMMs; 0: none
  Fp8Format fp8_ = Fp8Format::none;
  Fp8Recipe fp8_recipe_ = Fp8Recipe::delayed;
};

} // namespace simgpt
