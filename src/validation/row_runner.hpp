// Running validation rows: each row's simulation in its own `simgpt row` process
// (process/row_process), as validate and calibrate run it, and what it predicts, read back.
#pragma once

#include "process/row_process.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/validation/validation.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace simgpt {

// What a row's process needs of its table and row (simulate_row's inputs), as JSON text: the
// child is handed the row instead of reading its table again.
std::string row_spec_json(const ValidationTable& table, const ValidationRow& row);

// `process.executable` must be resolved (simgpt_executable).
inline nlohmann::ordered_json run_row_process_of(const ValidationTable& table, const ValidationRow& row,
                                                 const DataPaths& data, const RowProcess& process) {
  return run_row_process(table.id + "/" + row.id, row_spec_json(table, row), data.folders, data.profile_overrides,
                         process.executable, process.timeout_s);
}

// Predicts one row in this process: the workload of its table with the row's overrides, as
// `simgpt --set` would (the report's JSON form), or for a transfer table {"transfer_s": seconds}.
nlohmann::ordered_json simulate_row(const ValidationTable& table, const ValidationRow& row, const DataPaths& data);

// The quantities of a prediction a row is compared on, named as the report's JSON names them.
enum class PredictedMetric { step_time_s, transfer_s, peak_memory_gib, peak_allocated_gib, peak_reserved_gib };

// The prediction a case of `metric` (step time, transfer time, peak memory) is compared with:
// peak memory as the table counts it.
PredictedMetric predicted_metric(CaseMetric metric, PeakMemory counted);

// What one row's simulation predicts, read back from its process's JSON: a training step's
// report, or for a transfer table one transfer's time.
struct RowPrediction {
  std::optional<Report> report;
  double transfer_s = 0;
  double metric(PredictedMetric metric) const;
  static RowPrediction from_json(const nlohmann::ordered_json& j);
};

// The metric a row's simulation is judged on first: the step time, or the transfer's time in
// transfer tables.
CaseMetric primary_metric(const ValidationTable& table);

// One row's simulation, shared by its metrics.
struct RowRun {
  const ValidationTable* table;
  const ValidationRow* row;
  std::optional<RowPrediction> result;
  std::string error;
  bool process_failed = false; // the row's process died or timed out: the gate fails
};

// Runs the rows' simulations, `jobs` at a time, each in its own process, with a progress bar
// when process.progress says so. Rows whose plan is unknown or whose numbers the authors
// doubted are not simulated.
void run_rows(std::vector<RowRun>& runs, const DataPaths& data, unsigned jobs, const RowProcess& process);

} // namespace simgpt
