// Fits a profile's declared parameters to its declared calibration rows.
#pragma once

#include "simgpt/simulate.hpp"
#include "simgpt/validation/validation.hpp"

#include <map>
#include <string>
#include <vector>

namespace simgpt {

struct CalibrationResult {
  std::string profile;
  std::string file; // the profile file fitted: the first data folder's that has it
  std::map<std::string, double> fitted;   // parameter -> value
  std::map<std::string, double> error_pct; // calibration row -> signed error at the fit
};

// A fit transfers to runs it was not fitted on only when each parameter is pinned by several
// rows of several configurations: one table's constant is worse than none.
inline constexpr int kMinCalibrationRows = 3;
inline constexpr int kMinCalibrationConfigurations = 2;

// Which declared calibration rows each fitted parameter moves: a row's prediction changes when
// the parameter alone moves by a tenth of its range. Configurations: distinct (table, row
// overrides, transfer size) among those rows.
struct CalibrationSupport {
  struct Parameter {
    std::vector<std::string> rows;
    int configurations = 0;
  };
  std::map<std::string, Parameter> parameters;
};
CalibrationSupport calibration_support(const std::string& profile, const std::vector<ValidationTable>& tables,
                                       const DataPaths& data, const RowProcess& process = {});

// Throws InputError (at `where`) naming the first parameter that moves fewer than
// kMinCalibrationRows rows or kMinCalibrationConfigurations configurations.
void require_support(const CalibrationSupport& support, const std::string& where);

// Refuses (InputError) a profile whose parameters lack support (above); then minimises the mean squared relative step-time error over the profile's calibration rows,
// one parameter at a time (golden-section search within each parameter's physical range). Each
// trial simulation runs in its own process, as in validate.
CalibrationResult calibrate_profile(const std::string& profile, const std::vector<ValidationTable>& tables,
                                    const DataPaths& data, const RowProcess& process = {});

// Writes fitted values into the profile file fitted (result.file), replacing each parameter's
// line in place so that the file's comments and layout stay; the whole file or nothing (a full
// disk leaves the profile as it was). Throws InputError when it cannot be written.
void write_fitted(const CalibrationResult& result);

// Throws InputError unless the profile's file (the first data folder's that has it) can be
// written (a regular, writable file in a writable folder): checked before a fit of minutes, not
// after it.
void check_fitted_writable(const std::string& profile, const DataPaths& data);

} // namespace simgpt
