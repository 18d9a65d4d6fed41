// The words a chart labels a sweep's column with: "step time" for step_time_s, "network delay"
// for network.delay, rather than the CSV's keys.
#pragma once

#include <string>

namespace simgpt {

// The name of a metric or input in words, without its unit: simgpt's own metrics and the keys
// most swept by name ("data-parallel degree" for parallelism.dp), any other column as its key
// with dots and underscores as spaces and the unit suffix of a metric's name (_s, _gib, ...) cut.
std::string column_words(const std::string& column);

// A series' value in words, for a legend: "network delay 0 ms" for network.delay=0ms, "data-parallel
// degree 4", "pipeline schedule gpipe"; a sweep's `default` (the key as the workload has it) as
// "default network delay".
std::string value_words(const std::string& column, const std::string& value);

} // namespace simgpt
