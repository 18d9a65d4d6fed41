// calibrate --table: the user's own measured rows in place of a profile's declared ones, held to
// the rules the declared rows are held to (calibration.hpp's minimums), and to the profile's
// own framework: a fit on another framework's runs would move this profile's constants to
// explain that framework's costs.
#include "simgpt/validation/calibration.hpp"

#include "simgpt/core/error.hpp"
#include "validation/calibration_rows.hpp"
#include "validation/names.hpp"
#include "validation/row_runner.hpp"
#include "validation/table_loader.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace simgpt {
namespace {

// Throws unless `row` runs under `profile`: a workload row's framework (the table's workload with
// the row's overrides), a transfer row's profile.
void check_framework(const std::string& profile, const ValidationTable& table, const ValidationRow& row) {
  const std::string where = table.file + " (" + row.id + ")";
  const bool transfer = table.kind == TableKind::transfer;
  const std::string framework =
      transfer ? row.profile : parse_workload(table.workload_yaml, where, row.set).framework;
  if (framework != profile)
    throw InputError(where, fmt::format("{} '{}' is not --profile {}: a profile is fitted on runs of its own framework "
                                        "only (every row of a --table runs under {})",
                                        transfer ? "profile" : "framework", framework, profile, profile));
}

// "table/row" for each measurement of `row` a fit can be judged on (none for a flagged row).
std::vector<std::string> judged_entries(const ValidationTable& table, const ValidationRow& row) {
  std::vector<std::string> entries;
  if (row.flagged("questionable") || row.flagged("not_reproducible"))
    return entries;
  const std::string id = table.id + "/" + row.id;
  if (row.measured.contains(to_string(primary_metric(table))))
    entries.push_back(id);
  if (table.kind == TableKind::workload && row.measured.contains("peak_mem_gb"))
    entries.push_back(id + ":memory");
  if (table.kind == TableKind::workload && row.oom)
    entries.push_back(id + ":oom");
  return entries;
}

} // namespace

std::vector<std::string> table_calibration_rows(const std::string& profile,
                                                const std::vector<ValidationTable>& tables) {
  std::vector<std::string> entries;
  std::set<std::string> configurations;
  int rows = 0;
  for (const ValidationTable& t : tables)
    for (const ValidationRow& r : t.rows) {
      check_framework(profile, t, r);
      const std::vector<std::string> judged = judged_entries(t, r);
      if (judged.empty())
        continue;
      entries.insert(entries.end(), judged.begin(), judged.end());
      configurations.insert(calibration_configuration({&t, &r, false, false}));
      ++rows;
    }
  if (rows < kMinCalibrationRows || static_cast<int>(configurations.size()) < kMinCalibrationConfigurations)
    throw InputError(tables.size() == 1 ? tables[0].file : "--table",
                     fmt::format("{} measured row(s) of {} configuration(s): calibrate needs at least {} rows of at "
                                 "least {} configurations (model sizes or settings), measured (a time, a peak memory "
                                 "or oom: true) and not flagged, or a fit matches these runs and not the next",
                                 rows, configurations.size(), kMinCalibrationRows, kMinCalibrationConfigurations));
  return entries;
}

} // namespace simgpt
