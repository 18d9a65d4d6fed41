// The GPU catalog: what each GPU model can do, from datasheets and microbenchmarks
// (platforms/gpus.yaml). Part of the system domain.
#pragma once

#include "simgpt/workload/workload.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace simgpt {

class KernelTable;

struct GpuSpec {
  std::string name;
  std::string file; // the catalog file its entry was read from
  std::map<Precision, double> peak_flops; // dense FLOP/s; a precision absent here is unsupported
  // Dense fp8 tensor-core FLOP/s (catalog key peak_tflops.fp8); 0: no fp8 tensor cores. fp8 is
  // no training precision of its own: fp8 training (training.fp8) runs the linear layers' GEMMs at it.
  double fp8_peak_flops = 0;
  // Dense fp4 (NVFP4) tensor-core FLOP/s (peak_tflops.fp4; Blackwell), for training.fp8_recipe
  // nvfp4's GEMMs; 0: none.
  double fp4_peak_flops = 0;
  double memory_bandwidth = 0;            // HBM bytes/s
  // Bytes/s one way between the GPU and its host's memory with every GPU of the node copying at
  // once (PCIe or NVLink-C2C, and the host memory behind it): what activation offloading's copies
  // run at. 0: not in the catalog, and offloading refused.
  double host_bandwidth = 0;
  double memory_bytes = 0;                // HBM capacity
  int sms = 0;                            // streaming multiprocessors (GEMM wave quantisation)
  // What well-tuned kernels reach, measured by GEMM and stream microbenchmarks:
  std::map<Precision, double> gemm_efficiency; // large-GEMM fraction of peak
  double fp8_gemm_efficiency = 0;              // the same for fp8 GEMMs (gemm_efficiency.fp8)
  double fp4_gemm_efficiency = 0;              // and for fp4 GEMMs (gemm_efficiency.fp4)
  // What a grouped GEMM (the experts' FFNs: one kernel launch per group, or one grouped kernel,
  // over many small problems) reaches, measured where given (catalog key grouped_gemm_efficiency,
  // its fp8 and fp4 beside); a precision absent here is priced as a GEMM (gemm_efficiency).
  std::map<Precision, double> grouped_gemm_efficiency;
  double fp8_grouped_gemm_efficiency = 0, fp4_grouped_gemm_efficiency = 0;
  // What a GEMM reaches when one of its dimensions is not a whole number of 16-byte vectors (an
  // odd vocabulary): cuBLAS then runs a kernel that loads one element at a time. Measured where
  // given (catalog key unaligned_gemm_efficiency); a precision absent here is not penalised.
  std::map<Precision, double> unaligned_gemm_efficiency;
  double fp8_unaligned_gemm_efficiency = 0;
  double memory_efficiency = 0.8;              // stream kernels' fraction of HBM bandwidth
  // What an elementwise kernel with a broadcast input reaches (PyTorch's non-vectorised loop),
  // measured where given (catalog key strided_memory_efficiency); 0: as memory_efficiency.
  double strided_memory_efficiency = 0;
  // What TransformerEngine's fused cross-entropy and its MoE token permutation (moe_permute and
  // moe_unpermute) reach of the HBM bandwidth on the bytes the cost model counts for them, measured
  // where given (catalog key memory_op_efficiency: {te_cross_entropy, moe_permute}); 0: as
  // memory_efficiency. Their index arithmetic and row-by-row programs keep them below a stream.
  double te_cross_entropy_efficiency = 0, moe_permute_efficiency = 0;
  // What FlashAttention-2's kernels (PyTorch's scaled_dot_product_attention flash backend) reach of
  // the 16-bit peak on long sequences, forward and backward, measured where given (catalog key
  // flash_attention_2: {forward, backward}); 0: priced as the other attention kernels.
  double flash2_forward_efficiency = 0, flash2_backward_efficiency = 0;
  double kernel_launch_s = 4e-6;               // gap between back-to-back kernels on one stream
  // The least time a grouped GEMM takes per group, measured where given (catalog key
  // grouped_gemm_launch): TransformerEngine runs one cuBLAS GEMM a group, each from its own call
  // in a host loop (multi_stream_cublas_gemm), and a loop of small GEMMs takes this long a GEMM
  // whatever their size. 0: no such floor.
  double grouped_gemm_launch_s = 0;
  int gemm_tile = 128;                         // output tile edge of the GEMM kernels
  // Kernel timings measured on this GPU (platforms/kernels/<name>.yaml of every data folder that has
  // one, the first folder's rows winning), which the cost model takes before its own pricing; null:
  // none.
  std::shared_ptr<const KernelTable> kernel_table;
  double compute_capability = 0;               // CUDA compute capability (7.0 Volta, 8.0 Ampere, 9.0 Hopper): NCCL's
                                               // tuning tables differ by generation; 0: not given

  // Whether its fp8 GEMMs take only the TN layout (both operands K-major), so that the backward's
  // GEMMs read transposed fp8 copies of their operands: below compute capability 10.0 and on 12.x
  // (TransformerEngine's is_non_tn_fp8_gemm_supported, transformer_engine/pytorch/utils.py: true
  // for 10.0 <= cc < 12.0 and cc >= 13.0). A GPU whose capability is not given counts as TN only.
  bool fp8_gemms_tn_only() const {
    return !((compute_capability >= 10.0 && compute_capability < 12.0) || compute_capability >= 13.0);
  }
};

class GpuCatalog {
public:
  // The GPUs of `paths` (each data folder's platforms/gpus.yaml, the first folder's first), each
  // file checked whole; an entry of an earlier file replaces a later file's entry of that name.
  // A GPU's kernel table is <name>.yaml in a folder of `kernel_folders` (each data folder's
  // platforms/kernels, the first first; by default the kernels/ folders beside `paths`), read when
  // the GPU is first asked for; where several folders have one, the first folder's rows win where
  // two time the same shape (a user's measurements over the built-in ones).
  static GpuCatalog load(const std::vector<std::string>& paths, std::vector<std::string> kernel_folders = {});
  const std::vector<std::string>& files() const { return files_; } // the files it was read from
  // Throws InputError naming `where` and the known models when `name` is missing, and naming the
  // table's file when the GPU's kernel table is malformed.
  const GpuSpec& at(const std::string& name, const std::string& where) const;

private:
  mutable std::map<std::string, GpuSpec> gpus_; // kernel tables attached as they are first read
  std::map<std::string, std::vector<std::string>> kernel_table_files_;
  std::vector<std::string> files_;
};

} // namespace simgpt
