// The rows a calibration is judged on: a measured row of a validation table with the measurement
// it is compared on (its time, its peak memory, or whether it ran out of memory), named as a
// profile's calibration.rows names it.
#pragma once

#include "simgpt/validation/validation.hpp"
#include "validation/row_runner.hpp"

#include <string>
#include <vector>

namespace simgpt {

// A row is judged on its measured time; named "table/row:memory", on its measured peak memory;
// named "table/row:oom", on whether it ran out of memory (a run with a measured time did not).
struct CalibrationRow {
  const ValidationTable* table;
  const ValidationRow* row;
  bool oom_outcome;
  bool memory;
};

// The row of `tables` that `entry` ("table/row", ":memory" or ":oom" after it) names, with what it
// is judged on; throws InputError at `where` unless that row measured it.
CalibrationRow find_calibration_row(const std::string& entry, const std::vector<ValidationTable>& tables,
                                    const std::string& where);

// "table/row", with ":memory" or ":oom" after it as the row is judged.
std::string calibration_row_name(const CalibrationRow& c);

// Signed error in % of one calibration row's prediction (for an out-of-memory outcome, how far the
// predicted memory lies on the wrong side of a band around the usable memory).
double calibration_row_error(const CalibrationRow& c, const RowPrediction& r);

// What a calibration row measures under: its table and its row's overrides (and a transfer's
// size). Rows of one configuration (a time and a memory of one run, say) pin a parameter once.
std::string calibration_configuration(const CalibrationRow& c);

} // namespace simgpt
