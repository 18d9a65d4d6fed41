#include "simgpt/validation/validation.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/planner/search_space.hpp"
#include "simgpt/system/platform_generator.hpp"
#include "workload/workload_limits.hpp"
#include "validation/cases.hpp"
#include "validation/gate.hpp"
#include "validation/row_runner.hpp"
#include "validation/statistics.hpp"
#include "validation/table_platform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>
#include <set>

namespace simgpt {
namespace {

// The job size the planner comparison searches for a row: its placement.gpus, else the platform's.
std::vector<int64_t> comparison_gpus(const ValidationTable& table, const ValidationRow& row, const DataPaths& data) {
  for (const auto& [key, value] : row.set)
    if (key == "placement.gpus")
      return parse_gpus(value, kMaxGpus.max);
  return {read_platform_gpus(table_platform(table, data)).count};
}

// The planner comparison searches a table's planner_search once per model size, after the rows
// have run, and reports a search it cannot make as a message: one past the planner's candidate
// limit is refused here instead, before any work. The space is counted with every framework
// feature allowed, as many candidates as the profile's own support leaves or more.
void check_planner_spaces(const std::vector<ValidationTable>& tables, const DataPaths& data,
                          const std::string& filter) {
  const std::vector<std::string>& searched = plan_keys();
  for (const ValidationTable& table : tables) {
    if (table.planner_search.empty())
      continue;
    SearchSpace space;
    for (const std::string& restriction : table.planner_search)
      space.restrict(restriction);
    std::set<std::string> groups;
    for (const ValidationRow& row : table.rows) {
      if (!row.measured.contains("step_time_s") ||
          (!filter.empty() && (table.id + "/" + row.id).find(filter) == std::string::npos) ||
          !groups.insert(row.row).second)
        continue;
      Overrides sets; // the row's model; the keys the planner searches are left to it
      for (const auto& [key, value] : row.set)
        if (key != "placement.gpus" && std::find(searched.begin(), searched.end(), key) == searched.end())
          sets.emplace_back(key, value);
      Workload base;
      try {
        base = parse_workload(table.workload_yaml, table.file + " (" + row.id + ")", sets);
        space.set_gpus(comparison_gpus(table, row, data));
      } catch (const InputError&) {
        continue; // the comparison reports it, as it reports every search it cannot make
      }
      try {
        space.candidates(base);
      } catch (const LimitError& e) {
        throw LimitError(table.file + ": planner_search", fmt::format("for row '{}': {}", row.row, e.message()));
      }
    }
  }
}

} // namespace

ValidationReport validate(const std::vector<ValidationTable>& tables, const DataPaths& data,
                          const std::string& filter, const std::map<std::string, Threshold>& thresholds,
                          const RowProcess& process) {
  const unsigned jobs = process.jobs > 0 ? process.jobs : std::max(1u, std::thread::hardware_concurrency());
  check_planner_spaces(tables, data, filter);
  std::vector<RowRun> runs;
  for (const ValidationTable& table : tables)
    for (const ValidationRow& row : table.rows)
      if (filter.empty() || (table.id + "/" + row.id).find(filter) != std::string::npos)
        runs.push_back({&table, &row, std::nullopt, "", false});
  run_rows(runs, data, jobs, process);

  ValidationReport report;
  const std::set<std::string> calibration = calibration_rows(data);
  for (const RowRun& run : runs)
    add_row_cases(report.cases, run, calibration);
  summarize_cases(report);
  report.fastest = fastest_per_row(report.cases);
  apply_gate(report, runs, thresholds, filter);
  report.planner_comparisons = compare_planner(tables, data, filter, jobs, process.executable, process.timeout_s);
  return report;
}

} // namespace simgpt
