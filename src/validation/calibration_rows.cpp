#include "validation/calibration_rows.hpp"

#include "simgpt/core/error.hpp"
#include "validation/names.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace simgpt {

CalibrationRow find_calibration_row(const std::string& entry, const std::vector<ValidationTable>& tables,
                                    const std::string& where) {
  const bool oom_outcome = entry.ends_with(":oom");
  const bool memory = entry.ends_with(":memory");
  const std::string id = oom_outcome || memory ? entry.substr(0, entry.rfind(':')) : entry;
  const auto slash = id.find('/');
  for (const ValidationTable& t : tables)
    if (t.id == id.substr(0, slash))
      for (const ValidationRow& r : t.rows)
        if (r.id == id.substr(slash + 1) &&
            (oom_outcome ? (r.oom || r.measured.contains("step_time_s"))
             : memory    ? r.measured.contains("peak_mem_gb")
                         : r.measured.contains(to_string(primary_metric(t)))))
          return {&t, &r, oom_outcome, memory};
  throw InputError(where, fmt::format("'{}' is not a validation row with a measured {}", entry,
                                      oom_outcome ? "outcome (ran or out of memory)"
                                      : memory    ? "peak memory"
                                                  : "time"));
}

double calibration_row_error(const CalibrationRow& c, const RowPrediction& r) {
  if (c.oom_outcome) {
    // Distance (in % of the usable memory) on the wrong side of a 5% band around it:
    // a run that failed should predict above 105%, one that ran below 95%.
    const MemoryReport& stage = r.report->stages.at(static_cast<size_t>(r.report->peak_memory_stage)).memory;
    const double fill = 100 * stage.peak / stage.usable;
    return c.row->oom ? std::max(0.0, 105 - fill) : std::max(0.0, fill - 95);
  }
  if (c.memory) {
    const double measured = c.row->measured.at("peak_mem_gb");
    return 100 * (r.metric(predicted_metric(CaseMetric::peak_memory, c.table->peak_memory)) - measured) / measured;
  }
  const CaseMetric metric = primary_metric(*c.table);
  const double measured = c.row->measured.at(to_string(metric));
  return 100 * (r.metric(predicted_metric(metric, c.table->peak_memory)) - measured) / measured;
}

std::string calibration_row_name(const CalibrationRow& c) {
  return c.table->id + "/" + c.row->id + (c.oom_outcome ? ":oom" : c.memory ? ":memory" : "");
}

std::string calibration_configuration(const CalibrationRow& c) {
  std::vector<std::string> set;
  for (const auto& [key, value] : c.row->set)
    set.push_back(key + "=" + value);
  std::sort(set.begin(), set.end());
  return fmt::format("{} {} {}", c.table->id, fmt::join(set, ","), c.row->bytes);
}

} // namespace simgpt
