// Fits a profile's declared parameters to its declared calibration rows, or to measured rows of
// the user's own tables.
#pragma once

#include "simgpt/simulate.hpp"
#include "simgpt/validation/validation.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace simgpt {

struct CalibrationResult {
  std::string profile;
  std::string file; // the profile file fitted: the first data folder's that has it
  std::map<std::string, double> fitted;          // parameter -> value
  std::map<std::string, double> error_before_pct; // calibration row -> signed error at the profile's values
  std::map<std::string, double> error_pct;        // calibration row -> signed error at the fit
};

// A fit transfers to runs it was not fitted on only when each parameter is pinned by several
// rows of several configurations: one table's constant is worse than none.
inline constexpr int kMinCalibrationRows = 3;
inline constexpr int kMinCalibrationConfigurations = 2;

// The rows a fit is judged on: `rows` ("table/row", ":memory" or ":oom" after it, as a profile's
// calibration.rows names them) of `tables` when given (calibrate --table), else the profile's
// declared calibration.rows.

// Which of those rows each fitted parameter moves: a row's prediction changes when the parameter
// alone moves by a tenth of its range. Configurations: distinct (table, row overrides, transfer
// size) among those rows.
struct CalibrationSupport {
  struct Parameter {
    std::vector<std::string> rows;
    int configurations = 0;
  };
  std::map<std::string, Parameter> parameters;
};
CalibrationSupport calibration_support(const std::string& profile, const std::vector<ValidationTable>& tables,
                                       const DataPaths& data, const RowProcess& process = {},
                                       const std::optional<std::vector<std::string>>& rows = std::nullopt);

// Throws InputError (at `where`) naming the first parameter that moves fewer than
// kMinCalibrationRows rows or kMinCalibrationConfigurations configurations.
void require_support(const CalibrationSupport& support, const std::string& where);

// Refuses (InputError) a profile whose parameters lack support (above); then minimises the mean
// squared relative error over the rows, one parameter at a time (golden-section search within
// each parameter's physical range). Each trial simulation runs in its own process, as in
// validate; a row measured twice (time and memory) runs once per trial.
CalibrationResult calibrate_profile(const std::string& profile, const std::vector<ValidationTable>& tables,
                                    const DataPaths& data, const RowProcess& process = {},
                                    const std::optional<std::vector<std::string>>& rows = std::nullopt);

// The rows of the user's `tables` a fit of `profile` is judged on, named as calibration.rows
// names them: each row's time (step or transfer) where measured, its peak memory (":memory")
// where measured, and its out-of-memory outcome (":oom") where it ran out of memory; rows the
// authors flagged questionable or not reproducible are left out. Throws InputError for a row of
// another framework than `profile` (a workload's `framework`, a transfer row's `profile`), and
// for fewer than kMinCalibrationRows rows or kMinCalibrationConfigurations configurations in all.
std::vector<std::string> table_calibration_rows(const std::string& profile,
                                                const std::vector<ValidationTable>& tables);

// Writes fitted values into the profile file fitted (result.file), replacing each parameter's
// line in place so that the file's comments and layout stay; the whole file or nothing (a full
// disk leaves the profile as it was). Throws InputError when it cannot be written or is one of
// `inputs` (the tables fitted on).
void write_fitted(const CalibrationResult& result, const std::vector<std::string>& inputs = {});

// Throws InputError unless the profile's file (the first data folder's that has it) can be
// written (a regular, writable file in a writable folder, none of `inputs`): checked before a fit
// of minutes, not after it.
void check_fitted_writable(const std::string& profile, const DataPaths& data,
                           const std::vector<std::string>& inputs = {});

} // namespace simgpt
