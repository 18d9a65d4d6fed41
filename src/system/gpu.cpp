#include "simgpt/system/gpu.hpp"

#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "core/yaml_read.hpp"
#include "system/kernel_table.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace simgpt {
namespace {

// A value per precision, keyed by the precisions' names, and the fp8 and fp4 tensor cores' beside
// them (`fp8`, `fp4`; 0 when absent).
std::map<Precision, double> read_precision_map(const YamlReader& r, const std::string& key, double scale,
                                               double& fp8, double& fp4) {
  std::map<Precision, double> values;
  YamlReader sub = r.map(key);
  std::vector<std::string> names = enum_name_list<Precision>();
  names.emplace_back("fp8");
  names.emplace_back("fp4");
  sub.only(names);
  for (const EnumName<Precision>& precision : kPrecisionNames)
    if (sub.has(precision.name))
      values[precision.value] = sub.number(precision.name, 0) * scale;
  fp8 = sub.has("fp8") ? sub.number("fp8", 0) * scale : 0;
  fp4 = sub.has("fp4") ? sub.number("fp4", 0) * scale : 0;
  return values;
}

// One catalog file's GPUs, every entry checked.
std::map<std::string, GpuSpec> read_catalog_file(const std::string& path) {
  YamlReader root = YamlReader::file(path);
  std::map<std::string, GpuSpec> gpus;
  for (const std::string& name : root.keys()) {
    YamlReader r = root.map(name);
    r.only({"peak_tflops", "memory_bandwidth", "memory", "sms", "gemm_efficiency", "memory_efficiency",
            "kernel_launch", "gemm_tile", "compute_capability", "unaligned_gemm_efficiency",
            "strided_memory_efficiency", "flash_attention_2", "grouped_gemm_efficiency", "host_bandwidth",
            "memory_op_efficiency", "grouped_gemm_launch"});
    GpuSpec g;
    g.name = name;
    g.file = path;
    g.peak_flops = read_precision_map(r, "peak_tflops", 1e12, g.fp8_peak_flops, g.fp4_peak_flops);
    g.gemm_efficiency = read_precision_map(r, "gemm_efficiency", 1.0, g.fp8_gemm_efficiency, g.fp4_gemm_efficiency);
    double unaligned_fp4 = 0;
    if (r.has("unaligned_gemm_efficiency"))
      g.unaligned_gemm_efficiency =
          read_precision_map(r, "unaligned_gemm_efficiency", 1.0, g.fp8_unaligned_gemm_efficiency, unaligned_fp4);
    if (r.has("grouped_gemm_efficiency"))
      g.grouped_gemm_efficiency = read_precision_map(r, "grouped_gemm_efficiency", 1.0, g.fp8_grouped_gemm_efficiency,
                                                     g.fp4_grouped_gemm_efficiency);
    g.memory_bandwidth = r.quantity("memory_bandwidth", parse_bandwidth);
    if (r.has("host_bandwidth"))
      g.host_bandwidth = r.quantity("host_bandwidth", parse_bandwidth);
    g.memory_bytes = r.quantity("memory", parse_bytes);
    g.sms = static_cast<int>(r.number("sms", 1));
    g.memory_efficiency = r.number("memory_efficiency", 0.01, 1.0);
    g.strided_memory_efficiency = r.number_or("strided_memory_efficiency", 0, 0.01, 1.0);
    if (r.has("memory_op_efficiency")) {
      const YamlReader ops = r.map("memory_op_efficiency");
      ops.only({"te_cross_entropy", "moe_permute"});
      g.te_cross_entropy_efficiency = ops.number_or("te_cross_entropy", 0, 0.01, 1.0);
      g.moe_permute_efficiency = ops.number_or("moe_permute", 0, 0.01, 1.0);
    }
    if (r.has("flash_attention_2")) {
      const YamlReader fa2 = r.map("flash_attention_2");
      fa2.only({"forward", "backward"});
      g.flash2_forward_efficiency = fa2.number("forward", 0.01, 1.0);
      g.flash2_backward_efficiency = fa2.number("backward", 0.01, 1.0);
    }
    g.kernel_launch_s = r.quantity("kernel_launch", parse_duration);
    if (r.has("grouped_gemm_launch"))
      g.grouped_gemm_launch_s = r.quantity("grouped_gemm_launch", parse_duration);
    g.gemm_tile = static_cast<int>(r.number("gemm_tile", 1));
    g.compute_capability = r.number_or("compute_capability", 0, 1, 20);
    for (const auto& [precision, peak] : g.peak_flops)
      if (!g.gemm_efficiency.contains(precision))
        throw InputError(r.where("gemm_efficiency"), fmt::format("missing {}", name_of(precision)));
    if (g.fp8_peak_flops > 0 && !(g.fp8_gemm_efficiency > 0))
      throw InputError(r.where("gemm_efficiency"), "missing fp8 (peak_tflops gives an fp8 peak)");
    if (g.fp4_peak_flops > 0 && !(g.fp4_gemm_efficiency > 0))
      throw InputError(r.where("gemm_efficiency"), "missing fp4 (peak_tflops gives an fp4 peak)");
    gpus[name] = g;
  }
  return gpus;
}

} // namespace

GpuCatalog GpuCatalog::load(const std::vector<std::string>& paths, std::vector<std::string> kernel_folders) {
  GpuCatalog catalog;
  catalog.files_ = paths;
  for (const std::string& path : paths)
    catalog.gpus_.merge(read_catalog_file(path)); // keeps an entry already there: an earlier file's
  if (kernel_folders.empty())
    for (const std::string& path : paths)
      kernel_folders.push_back((std::filesystem::path(path).parent_path() / "kernels").string());
  for (const auto& [name, gpu] : catalog.gpus_)
    for (const std::string& folder : kernel_folders) {
      const std::filesystem::path table = std::filesystem::path(folder) / (name + ".yaml");
      std::error_code ec;
      if (std::filesystem::is_regular_file(table, ec))
        catalog.kernel_table_files_[name].push_back(table.string());
    }
  return catalog;
}

const GpuSpec& GpuCatalog::at(const std::string& name, const std::string& where) const {
  auto it = gpus_.find(name);
  if (it != gpus_.end()) {
    GpuSpec& gpu = it->second;
    if (auto files = kernel_table_files_.find(name); files != kernel_table_files_.end() && !gpu.kernel_table) {
      auto table = std::make_shared<KernelTable>(KernelTable::load(files->second.front(), name, gpu.kernel_launch_s));
      for (size_t i = 1; i < files->second.size(); ++i)
        table->layer_over(KernelTable::load(files->second[i], name, gpu.kernel_launch_s));
      gpu.kernel_table = std::move(table);
    }
    return gpu;
  }
  std::string known;
  for (const auto& entry : gpus_)
    known += (known.empty() ? "" : ", ") + entry.first;
  throw InputError(where, fmt::format("unknown GPU '{}' (the catalog has: {})", name, known));
}

} // namespace simgpt
