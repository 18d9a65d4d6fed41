// Statistics over a validation's cases: error summaries per table and pooled over calibration
// and held-out rows, rank correlation, and the fastest configuration of each table row.
#pragma once

#include "simgpt/validation/validation.hpp"

#include <optional>
#include <vector>

namespace simgpt {

// Fills report.tables (one summary per table and metric, held-out rows only) and the pooled
// calibration and held-out summaries from report.cases.
void summarize_cases(ValidationReport& report);

// For each table row with two or more compared step times, the measured and predicted fastest.
std::vector<FastestCheck> fastest_per_row(const std::vector<CaseResult>& cases);

// Spearman rank correlation (average ranks for ties); nullopt under 3 pairs or no variance.
std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b);

} // namespace simgpt
