// Fits a profile's declared parameters to its declared calibration rows.
#pragma once

#include "simgpt/execution/simulation.hpp"
#include "simgpt/validation/validation.hpp"

#include <map>
#include <string>

namespace simgpt {

struct CalibrationResult {
  std::string profile;
  std::map<std::string, double> fitted;   // parameter -> value
  std::map<std::string, double> error_pct; // calibration row -> signed error at the fit
};

// Minimises the mean squared relative step-time error over the profile's calibration rows,
// one parameter at a time (golden-section search within each parameter's physical range). Each
// trial simulation runs in its own process, as in validate.
CalibrationResult calibrate_profile(const std::string& profile, const std::vector<ValidationTable>& tables,
                                    const DataPaths& data, const RowProcess& process = {});

// Writes fitted values into profiles/<profile>.yaml, replacing each parameter's line in place so
// that the file's comments and layout stay.
void write_fitted(const CalibrationResult& result, const DataPaths& data);

} // namespace simgpt
