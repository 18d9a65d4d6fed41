// The lines a sweep writes, one per configuration, as CSV or JSON lines: the configuration's
// index and inputs, its status, the report's metrics, and the reason for a status other than ok.
#pragma once

#include "simgpt/study/sweep.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simgpt {

struct SweepResult {
  int64_t config = 0;
  std::vector<std::string> inputs; // one value per swept key
  std::string status;              // ok, oom (a result whose memory does not fit), invalid, failed
  nlohmann::ordered_json report;   // ok and oom: the report's JSON form
  std::string reason;              // invalid and failed: why
};

// The columns after the inputs, named by the report JSON's fields (nested ones with dots).
const std::vector<std::string>& sweep_metric_columns();

// The CSV header line (with its newline): config, the keys, status, the metrics, reason.
std::string sweep_csv_header(const std::vector<std::string>& keys);

// The line of `r` (with its newline).
std::string sweep_line(const SweepResult& r, const std::vector<std::string>& keys, SweepFormat format);

// The configuration index a written line starts with; nullopt when the line is not one a
// sweep writes.
std::optional<int64_t> sweep_line_config(const std::string& line, SweepFormat format);

// Whether `line` is the line of configuration `config` with `inputs`, whatever its results:
// what a resumed sweep checks before it skips a configuration.
bool sweep_line_is_of(const std::string& line, int64_t config, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& keys, SweepFormat format);

} // namespace simgpt
