#include "validation/gate.hpp"

#include "simgpt/core/error.hpp"
#include "core/yaml_read.hpp"
#include "validation/names.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace simgpt {

std::map<std::string, Threshold> load_thresholds(const std::string& path) {
  YamlReader root = YamlReader::file(path);
  std::map<std::string, Threshold> out;
  for (const std::string& table : root.keys()) {
    YamlReader t = root.map(table);
    t.only({"median", "max", "status", "reason"});
    const double median = t.number("median", 0), max = t.number("max", 0);
    const std::optional<ThresholdStatus> status = value_named(kThresholdStatusNames, t.text_or("status", ""));
    Threshold limit{median, max, status.value_or(ThresholdStatus::gated), t.text_or("reason", "")};
    if (!status)
      throw InputError(path + ": " + table + ".status", "expected known-gap (or no status)");
    if (limit.status == ThresholdStatus::known_gap && limit.reason.empty())
      throw InputError(path + ": " + table + ".reason", "a known gap says what is known of its cause");
    out[table] = std::move(limit);
  }
  return out;
}

std::map<std::string, Threshold> load_thresholds(const DataPaths& data) {
  const std::vector<std::string> files = data.find_all("validation/thresholds.yaml");
  if (files.empty())
    throw InputError("validation/thresholds.yaml", fmt::format("no data folder holds one (folders: {})",
                                                               data.folder_list()));
  std::map<std::string, Threshold> merged;
  for (const std::string& file : files)
    merged.merge(load_thresholds(file)); // keeps an entry already there: an earlier folder's
  return merged;
}

void apply_gate(ValidationReport& report, const std::vector<RowRun>& runs,
                const std::map<std::string, Threshold>& thresholds, const std::string& filter) {
  for (const RowRun& run : runs)
    if (run.process_failed)
      report.gate_failures.push_back(fmt::format("{}/{}: not simulated: {}", run.table->id, run.row->id, run.error));
  for (const auto& entry : thresholds) {
    // Named, not structured bindings: lambdas capture those only from clang 16.
    const std::string& table = entry.first;
    const Threshold& limit = entry.second;
    auto it = std::find_if(report.tables.begin(), report.tables.end(),
                           [&](const TableSummary& s) { return s.table == table; });
    if (it == report.tables.end()) {
      if (filter.empty())
        report.gate_failures.push_back(fmt::format("{}: no such table", table));
      continue;
    }
    if (limit.status == ThresholdStatus::known_gap)
      report.known_gaps.push_back({table, limit.reason, it->median_abs});
    if (it->compared == 0)
      report.gate_failures.push_back(fmt::format("{}: no row was simulated", table));
    else if (it->median_abs > limit.median || it->max_abs > limit.max)
      report.gate_failures.push_back(fmt::format("{}: median {:.1f}% (limit {:.1f}%), max {:.1f}% (limit {:.1f}%)",
                                                 table, it->median_abs, limit.median, it->max_abs, limit.max));
  }
}

} // namespace simgpt
