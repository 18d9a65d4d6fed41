#include "study/metric_unit.hpp"

#include <array>
#include <string_view>
#include <utility>

namespace simgpt {

std::string metric_unit(const std::string& metric) {
  // Longest suffixes first: tokens_per_s also ends in _s.
  // _Bps and _B end a sweep's SI columns of bandwidths and sizes (network.bandwidth_Bps).
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> suffixes{{
      {"tokens_per_s", "tokens/s"},
      {"samples_per_s", "samples/s"},
      {"tflops_per_gpu", "TFLOP/s per GPU"},
      {"gpu_hours", "GPU-hours"},
      {".days", "days"},
      {"_gib", "GiB"},
      {"_Bps", "B/s"},
      {"_B", "B"},
      {"_s", "s"},
  }};
  for (const auto& [suffix, unit] : suffixes)
    if (metric.ends_with(suffix))
      return std::string(unit);
  return "";
}

std::string with_unit(const std::string& name, const std::string& unit) {
  return unit.empty() ? name : name + " (" + unit + ")";
}

} // namespace simgpt
