// What a validation table measured, as a chart overlays it on a sweep's predictions: each row's
// value of one metric and its values of the sweep's input keys.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace simgpt {

struct DataPaths;

struct MeasuredRow {
  std::string id;
  // Key -> the row's value: its `set` override, else the table workload's own value (the
  // table's platform for `platform`), else "default".
  std::map<std::string, std::string> inputs;
  std::optional<double> value; // nullopt: the row did not measure the metric (an oom row, say)
};

struct MeasuredTable {
  std::string id;
  std::vector<MeasuredRow> rows;
};

// Loads `table`: a table file when it holds a slash or ends in .yaml, else the table of that id
// in DATA/validation/tables. `metric` is named as a sweep names it: step_time_s as measured,
// peak_memory_gib or peak_allocated_gib (whichever the table's peak_memory counts) from its
// peak_mem_gb. InputError when there is no such table or none of its rows measured the metric.
MeasuredTable load_measured(const std::string& table, const std::string& metric, const std::vector<std::string>& keys,
                            const DataPaths& data);

} // namespace simgpt
