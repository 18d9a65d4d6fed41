#include "simgpt/validation/planner_comparison.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/output_file.hpp"
#include "core/temporary_directory.hpp"
#include "simgpt/planner/plan_output.hpp"
#include "simgpt/planner/planner.hpp"
#include "simgpt/validation/validation.hpp"
#include "validation/table_platform.hpp"

#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <map>

namespace simgpt {

namespace {

// The table's workload as a file, for the planner and its `simgpt point` processes; removed with
// its directory when done.
class ScratchWorkload {
public:
  explicit ScratchWorkload(const std::string& yaml) {
    dir_ = make_temporary_directory("simgpt-validate");
    path_ = dir_ + "/workload.yaml";
    write_output_file(path_, yaml, "");
  }
  ~ScratchWorkload() { remove_temporary_directory(dir_); }
  ScratchWorkload(const ScratchWorkload&) = delete;
  ScratchWorkload& operator=(const ScratchWorkload&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string dir_, path_;
};

bool searched_key(const std::string& key) {
  const std::vector<std::string>& keys = plan_keys();
  return key == "placement.gpus" || std::find(keys.begin(), keys.end(), key) != keys.end();
}

// The rows of one table row (one model size), in the table's order.
struct RowGroup {
  std::vector<const ValidationRow*> rows;
};

PlannerComparison compare_group(const ValidationTable& table, const RowGroup& group, const DataPaths& data,
                                unsigned jobs, const std::string& executable, double timeout_s) {
  PlannerComparison c;
  c.table = table.id;
  c.row = group.rows.front()->row;
  PlanRequest request;
  request.platform = table_platform(table, data);
  request.data_folders = data.folders;
  request.executable = executable;
  request.jobs = jobs;
  request.timeout_s = timeout_s;
  request.neighbours = false;
  for (const std::string& restriction : table.planner_search)
    request.space.restrict(restriction);
  // The model and GPUs are the row's; whatever the planner searches is left to it.
  for (const auto& [key, value] : group.rows.front()->set) {
    if (key == "placement.gpus") {
      request.gpus = value;
      c.gpus = std::stoll(value);
    } else if (!searched_key(key)) {
      request.sets.push_back(key + "=" + value);
    }
  }
  for (const ValidationRow* row : group.rows) {
    const auto it = row->measured.find("step_time_s");
    if (it != row->measured.end() && (c.measured_best.empty() || it->second < c.measured_best_s)) {
      c.measured_best = row->id;
      c.measured_best_s = it->second;
    }
  }
  const ScratchWorkload workload(table.workload_yaml);
  request.workload = workload.path();
  try {
    const PlanResult result = plan(request);
    if (request.gpus.empty()) // the row runs on the whole platform
      c.gpus = result.platform_gpus;
    if (result.ranked.empty()) {
      c.message = "no candidate fits";
    } else {
      const PlanRow& best = result.rows[static_cast<size_t>(result.ranked.front())];
      c.plan = plan_name(best.candidate);
      c.predicted_s = best.report->step_time_s;
    }
  } catch (const InputError& e) {
    c.message = e.where() + ": " + e.message();
  }
  return c;
}

} // namespace

std::vector<PlannerComparison> compare_planner(const std::vector<ValidationTable>& tables, const DataPaths& data,
                                               const std::string& filter, unsigned jobs,
                                               const std::string& executable, double timeout_s) {
  std::vector<PlannerComparison> out;
  for (const ValidationTable& table : tables) {
    if (table.planner_search.empty())
      continue;
    std::vector<std::string> order;
    std::map<std::string, RowGroup> groups;
    for (const ValidationRow& row : table.rows) {
      if (!row.measured.contains("step_time_s") ||
          (!filter.empty() && (table.id + "/" + row.id).find(filter) == std::string::npos))
        continue;
      if (!groups.contains(row.row))
        order.push_back(row.row);
      groups[row.row].rows.push_back(&row);
    }
    for (const std::string& name : order)
      out.push_back(compare_group(table, groups[name], data, jobs, executable, timeout_s));
  }
  return out;
}

} // namespace simgpt
