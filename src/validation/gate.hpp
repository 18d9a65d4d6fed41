// The regression gate (validation/thresholds.yaml): what fails `simgpt validate --gate`.
#pragma once

#include "simgpt/validation/validation.hpp"
#include "validation/row_runner.hpp"

#include <map>
#include <string>
#include <vector>

namespace simgpt {

// Fills report.gate_failures with rows whose process died and tables worse than their
// thresholds (a table the thresholds name and no row reached fails unless `filter` left it
// out), and report.known_gaps with the tables the thresholds mark as known gaps.
void apply_gate(ValidationReport& report, const std::vector<RowRun>& runs,
                const std::map<std::string, Threshold>& thresholds, const std::string& filter);

} // namespace simgpt
