// A simulated row's cases: each metric its table row measured, against the prediction.
#pragma once

#include "simgpt/validation/validation.hpp"
#include "validation/row_runner.hpp"

#include <set>
#include <string>
#include <vector>

namespace simgpt {

// Rows named in profiles' calibration lists, as "table/row" (":memory" or ":oom" after it for a
// row fitted on its peak memory or its out-of-memory outcome).
std::set<std::string> calibration_rows(const DataPaths& data);

// Every metric a row measured, in a fixed order: its primary metric, peak memory, collective
// counts, the estimator reference, the out-of-memory outcome. A case of a row in `calibration`
// carries the flag "calibration".
void add_row_cases(std::vector<CaseResult>& cases, const RowRun& run, const std::set<std::string>& calibration);

} // namespace simgpt
