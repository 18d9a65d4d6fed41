// The kernel listing's two forms: JSON for bench/device/measure_kernels.py, YAML in the kernel
// table's row format for a reader.
#include "simgpt/simulate/kernel_listing.hpp"

#include "core/json_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

namespace simgpt {
namespace {

// A field's value as JSON: causal a boolean, dimensions numbers, the rest words.
nlohmann::ordered_json field_value(const std::string& key, const std::string& value) {
  if (key == "causal")
    return value == "true";
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (!value.empty() && end == value.c_str() + value.size())
    return number;
  return value;
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

} // namespace

std::string KernelListing::to_json_text() const {
  nlohmann::ordered_json j;
  j["gpu"] = gpu;
  j["tables"] = tables;
  auto& kinds = j["kernel_time"] = nlohmann::ordered_json::object();
  for (const Report::KernelTime& t : time)
    kinds[t.kind] = {{"measured_s", t.measured_s}, {"fallback_s", t.fallback_s}};
  auto& kernels = j["kernels"] = nlohmann::ordered_json::object();
  for (const Report::KernelTime& t : time)
    kernels[t.kind] = nlohmann::ordered_json::array();
  for (const Row& r : rows) {
    nlohmann::ordered_json row;
    for (const auto& [key, value] : r.fields)
      row[key] = field_value(key, value);
    row["calls"] = r.calls;
    row["source"] = r.source;
    row["us"] = r.seconds * 1e6;
    if (r.width > 0)
      row["width"] = r.width;
    kernels[r.kind].push_back(row);
  }
  return json_text(j);
}

std::string KernelListing::to_yaml_text() const {
  double measured = 0, total = 0;
  for (const Report::KernelTime& t : time) {
    measured += t.measured_s;
    total += t.measured_s + t.fallback_s;
  }
  std::string out = fmt::format("# The kernels one step runs on {} that a kernel table can time, each with simgpt's time\n"
                                "# now (us) and, after #, where it came from and its calls a step (one data-parallel\n"
                                "# replica, all its pipeline stages). {:.1f}% of the step's kernel time came from\n"
                                "# measured timings ({}).\n",
                                gpu, 100 * share(measured, total),
                                tables.empty() ? std::string("no kernel table for this GPU") : fmt::format("{}", fmt::join(tables, ", ")));
  out += fmt::format("gpu: {}\n", gpu);
  for (const Report::KernelTime& t : time) {
    std::string rows_of_kind;
    for (const Row& r : rows) {
      if (r.kind != t.kind)
        continue;
      std::string fields;
      for (const auto& [key, value] : r.fields)
        fields += fmt::format("{}: {}, ", key, value);
      rows_of_kind += fmt::format("  - {{{}us: {:.3f}}}  # {}, {} calls\n", fields, r.seconds * 1e6, r.source, r.calls);
    }
    if (!rows_of_kind.empty())
      out += fmt::format("{}:  # {:.1f}% of its {:.6f} s measured\n{}", t.kind,
                         100 * share(t.measured_s, t.measured_s + t.fallback_s), t.measured_s + t.fallback_s,
                         rows_of_kind);
  }
  return out;
}

} // namespace simgpt
