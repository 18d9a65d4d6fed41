// A planner's measured runs beside simgpt's planner: for a table whose rows are the runs of the
// plans another planner chose (seed 002's AutoDist, whose plans are not given), the fastest
// measured run of each table row, and the plan `simgpt plan` picks over the same space with its
// predicted step time. A comparison of two planners, not an error: it enters no statistic.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace simgpt {

struct DataPaths;
struct ValidationTable;

struct PlannerComparison {
  std::string table;
  std::string row;            // the table row: a model size
  int64_t gpus = 0;
  std::string measured_best;  // the row id of the fastest measured run
  double measured_best_s = 0;
  std::string plan;           // simgpt's pick (plan_name), empty when none fits
  std::optional<double> predicted_s;
  std::string message;        // why there is no pick
};

// For each table with a `planner_search` (the --search restrictions the other planner's space
// implies) and each table row with a measured step time: the planner over the row's model and
// GPUs. Simulations run in `simgpt point` processes of `executable` (empty: this process's own),
// `jobs` at a time. Rows whose "table/row id" does not contain `filter` are left out.
std::vector<PlannerComparison> compare_planner(const std::vector<ValidationTable>& tables, const DataPaths& data,
                                               const std::string& filter, unsigned jobs,
                                               const std::string& executable, double timeout_s);

} // namespace simgpt
