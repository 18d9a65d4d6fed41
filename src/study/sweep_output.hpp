// The lines a sweep writes, one per configuration, as CSV or JSON lines: the configuration's
// index and inputs (each swept quantity followed by its value in SI units, si_column.hpp), its
// status, the report's metrics, the reason for a status other than ok, and what the line is a
// result of: the sweep's number of configurations and its digest.
#pragma once

#include "simgpt/study/sweep.hpp"
#include "study/input_value.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simgpt {

struct SweepResult {
  int64_t config = 0;
  std::vector<std::string> inputs; // one value per swept key
  std::string status;              // ok, oom (a result whose memory does not fit), invalid, failed
  nlohmann::ordered_json report;   // ok and oom: the report's JSON form
  std::string reason;              // invalid and failed: why
  // The sweep the line belongs to: a resumed or merged sweep keeps only lines of the same sweep,
  // and a merge knows from `configurations` which are missing.
  int64_t configurations = 0;
  std::string digest; // sweep_digest(): 16 hexadecimal digits
};

// The input columns of a sweep's lines: the swept keys in the grid's order, each swept as a
// quantity with units (si_column.hpp) followed by its SI column.
struct SweepColumns {
  std::vector<std::string> keys;
  std::vector<std::optional<QuantityKind>> si; // per key: its SI column's kind; nullopt: none
  bool draws = false; // Monte Carlo draws per configuration (SweepRun::draws): their step-time percentiles
};

// The columns of `grid`'s lines. Throws InputError naming the --grid key when one swept key is
// another's name with an SI column's suffix (framework_options.x and framework_options.x_s): a
// reader could not tell the key from the SI column.
SweepColumns sweep_columns(const SweepGrid& grid);

// The value at a dotted path of a report's JSON ("conditions.path_cost_s"), or null.
const nlohmann::ordered_json* report_value(const nlohmann::ordered_json& report, const std::string& column);

// The columns after the inputs, named by the report JSON's fields (nested ones with dots).
// With `draws`, the percentiles of each configuration's draws (draws.median_s, ...) after them.
const std::vector<std::string>& sweep_metric_columns(bool draws = false);

// The CSV header line (with its newline): config, the keys (with their SI columns), status, the
// metrics, reason, configurations, sweep_digest.
std::string sweep_csv_header(const SweepColumns& columns);

// The line of `r` (with its newline). An SI column is empty (null in JSON) for `default`.
std::string sweep_line(const SweepResult& r, const SweepColumns& columns, SweepFormat format);

// The text every line of configuration `config` starts with (its index and inputs): a line cut by
// an interruption is cut off only when it could be the start of this line.
std::string sweep_line_start(int64_t config, const std::vector<std::string>& inputs, const SweepColumns& columns,
                             SweepFormat format);

// A written line (without its newline) read back whole: every field, their number, a known
// status with the metrics it has (finite numbers, written as simgpt writes them) and the digest.
// Throws InputError (with an empty `where`: the caller names the file and line) saying what is
// wrong. A line is accepted only when writing the record read gives the same bytes (SI columns
// included).
SweepResult parse_sweep_line(std::string_view line, const SweepColumns& columns, SweepFormat format);

// The columns a CSV header names (without its newline): a name that is the key before it with an
// SI column's suffix is that key's SI column. InputError unless it is a sweep's header.
SweepColumns sweep_header_columns(std::string_view header);

// The columns of a JSON line (the names between config and status, read as the header's);
// InputError unless it is an object a sweep writes.
SweepColumns sweep_jsonl_columns(std::string_view line);

// A digest of `text` as 16 hexadecimal digits (FNV-1a, 64 bits): tells one sweep's lines from
// another's. Not a defence against a forger, who could only spoil his own results.
std::string sweep_digest(std::string_view text);

} // namespace simgpt
