// The child processes' entries: `simgpt row` (one validation row, for validate and calibrate),
// `simgpt point` (one configuration, for sweep and plan) and `simgpt screen` (a plan search's
// candidates checked and estimated, for plan). Each prints its outcome as JSON under
// the protocol of process/child_main.hpp.
#include "command.hpp"

#include "simgpt/planner/planner.hpp"
#include "simgpt/process/child_main.hpp"
#include "simgpt/process/memory_limit.hpp"
#include "simgpt/validation/validation.hpp"
#include "simgpt/workload/workload.hpp"

namespace simgpt::cli {

void declare_row(CLI::App& cmd, Options& o) {
  cmd.add_option("id", o.row_id, "TABLE/ROW")->required();
  add_data_option(cmd, o.data_dirs);
  cmd.add_option("--tables", o.tables_dir, "a validation table file, or a directory of them (default: the data folders' validation/tables)");
  cmd.add_option("--spec", o.row_spec, "the row itself, as validate passes it (JSON), instead of finding it in --tables");
  cmd.add_option("--profile-set", o.profile_sets, "a profile parameter: SECTION.KEY=VALUE");
  cmd.add_option("--parent-pid", o.parent_pid, "exit at once unless this is the parent's process id");
}

int run_row(const Options& o, const CLI::App&) {
  return child_main(o.parent_pid, [&] {
    DataPaths data = data_paths(o);
    for (const std::string& s : o.profile_sets)
      data.profile_overrides.push_back(parse_profile_set(s));
    return o.row_spec.empty() ? simulate_row_by_id(o.row_id, o.tables_dir, data) : simulate_row_spec(o.row_spec, data);
  });
}

void declare_point(CLI::App& cmd, Options& o) {
  cmd.add_option("--platform", o.platform)->required();
  cmd.add_option("--workload", o.workload)->required();
  cmd.add_option("--set", o.sets);
  add_data_option(cmd, o.data_dirs);
  cmd.add_option("--parent-pid", o.parent_pid);
  add_fidelity_option(cmd, o.fidelity);
  cmd.add_option("--memory-limit", o.memory_limit);
}

// One configuration of a sweep: the report of `simgpt --platform P --workload W --set ...`.
int run_point(const Options& o, const CLI::App&) {
  return child_main(o.parent_pid, [&] {
    if (!o.memory_limit.empty())
      limit_heap_growth(parse_memory_limit(o.memory_limit));
    return simulate(o.platform, load_workload(o.workload, parse_overrides(o.sets)), data_paths(o),
                    SimulationOptions{.fidelity = o.fidelity})
        .to_json_text();
  });
}

void declare_screen(CLI::App& cmd, Options& o) {
  cmd.add_option("--platform", o.platform)->required();
  cmd.add_option("--workload", o.workload)->required();
  cmd.add_option("--set", o.sets);
  cmd.add_option("--search", o.searches);
  cmd.add_option("--gpus", o.gpus);
  cmd.add_flag("--exhaustive", o.exhaustive);
  cmd.add_flag("--progress", o.progress);
  add_data_option(cmd, o.data_dirs);
  cmd.add_option("--parent-pid", o.parent_pid);
}

// What plan knows of each candidate before it simulates any (planner.hpp, screen_candidates).
int run_screen(const Options& o, const CLI::App&) {
  return child_main(o.parent_pid, [&] {
    PlanRequest request = plan_request(o);
    request.progress = o.progress;
    return screen_candidates(request);
  });
}

} // namespace simgpt::cli
