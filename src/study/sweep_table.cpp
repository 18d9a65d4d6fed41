#include "study/sweep_table.hpp"

#include "simgpt/core/error.hpp"
#include "study/input_value.hpp"
#include "study/si_column.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace simgpt {

size_t SweepTable::column(const std::string& name, const std::string& option) const {
  const auto& header = table.header;
  const auto found = std::find(header.begin(), header.end(), name);
  if (found == header.end())
    throw InputError(option, fmt::format("no column '{}' in {} (columns: {})", echo(name), source,
                                         fmt::join(header, ", ")));
  return static_cast<size_t>(found - header.begin());
}

std::vector<std::string> SweepTable::values(size_t column) const {
  std::vector<std::string> out;
  for (const auto& record : table.records)
    out.push_back(record[column]);
  return out;
}

const std::string& SweepTable::input_of(const std::string& name) const {
  const auto found = si_columns.find(name);
  return found == si_columns.end() ? name : found->second;
}

SweepTable read_sweep_table(const std::string& path) {
  SweepTable sweep{path, read_csv(path), {}, {}};
  const auto& header = sweep.table.header;
  const auto status = std::find(header.begin(), header.end(), "status");
  if (header.front() != "config" || status == header.end())
    throw InputError(path + ":1", "is not a simgpt sweep CSV: its header must start with config and name status "
                                  "(config,KEYS...,status,METRICS...)");
  for (auto name = header.begin() + 1; name != status; ++name) {
    // A name that is the key before it with an SI column's suffix is that key's SI column, as
    // simgpt sweep writes them (sweep_header_columns).
    if (!sweep.inputs.empty() && !sweep.si_columns.contains(*(name - 1)) &&
        si_column_kind(sweep.inputs.back(), *name)) {
      sweep.si_columns.emplace(*name, sweep.inputs.back());
      continue;
    }
    sweep.inputs.push_back(*name);
  }
  if (sweep.table.records.empty())
    throw InputError(path, "has a header but no rows");
  return sweep;
}

namespace {

// KEY -> the values it may have, from "KEY=VALUE" filters.
std::map<size_t, std::vector<std::string>> parse_filters(const SweepTable& sweep,
                                                         const std::vector<std::string>& filters) {
  std::map<size_t, std::vector<std::string>> allowed;
  for (const std::string& filter : filters) {
    const size_t eq = filter.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--where", fmt::format("'{}' is not KEY=VALUE", echo(filter)));
    allowed[sweep.column(filter.substr(0, eq), "--where")].push_back(filter.substr(eq + 1));
  }
  return allowed;
}

bool passes(const std::vector<std::string>& record, const std::map<size_t, std::vector<std::string>>& allowed) {
  return std::all_of(allowed.begin(), allowed.end(), [&](const auto& column_values) {
    // Not a structured binding: clang 14 (scripts/fuzz.sh) cannot capture one in a lambda.
    const size_t column = column_values.first;
    const auto& values = column_values.second;
    return std::any_of(values.begin(), values.end(),
                       [&](const std::string& v) { return same_value(record[column], v); });
  });
}

} // namespace

void keep_records_where(SweepTable& sweep, const std::vector<std::string>& filters) {
  const auto allowed = parse_filters(sweep, filters);
  CsvTable kept{sweep.table.header, {}, {}};
  for (size_t i = 0; i < sweep.table.records.size(); ++i)
    if (passes(sweep.table.records[i], allowed)) {
      kept.records.push_back(sweep.table.records[i]);
      kept.record_lines.push_back(sweep.table.record_lines[i]);
    }
  if (kept.records.empty())
    throw InputError("--where", fmt::format("no row of {} has {}", sweep.source, fmt::join(filters, " and ")));
  sweep.table = std::move(kept);
}

std::vector<std::pair<std::string, std::vector<std::string>>> varying_inputs(const SweepTable& sweep) {
  std::vector<std::pair<std::string, std::vector<std::string>>> varying;
  for (const std::string& input : sweep.inputs) {
    const std::vector<std::string> distinct = ordered_values(sweep.values(sweep.column(input, "")));
    if (distinct.size() > 1)
      varying.emplace_back(input, distinct);
  }
  return varying;
}

bool determined_by(const SweepTable& sweep, size_t column, const std::vector<size_t>& columns) {
  std::map<std::vector<std::string>, std::string> seen;
  for (const auto& record : sweep.table.records) {
    std::vector<std::string> key;
    for (size_t c : columns)
      key.push_back(record[c]);
    const auto [at, inserted] = seen.emplace(std::move(key), record[column]);
    if (!inserted && at->second != record[column])
      return false;
  }
  return true;
}

} // namespace simgpt
