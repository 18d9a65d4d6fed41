// `simgpt plan`: the ranking on stdout, every candidate in the CSV of -o.
#include "command.hpp"

#include "number_options.hpp"
#include "simgpt/core/output_file.hpp"
#include "simgpt/planner/plan_output.hpp"
#include "simgpt/planner/planner.hpp"
#include "simgpt/workload/workload.hpp"

#include <fmt/format.h>

#include <iostream>

namespace simgpt::cli {

namespace {

// A plan is chosen with room to spare: PyTorch's caching allocator holds a few percent beyond
// what is allocated (fragmentation between its blocks; the seeds' Megatron OOM cells leave
// allocator_overhead anywhere from 0 to 0.13), and a plan at 99% of the memory runs out on the
// first step that allocates differently.
constexpr double kPlanMemoryHeadroomPct = 5;
// --top lists at most every candidate a plan may have.
constexpr int64_t kMaxTop = 1'000'000;
} // namespace

PlanRequest plan_request(const Options& o) {
  PlanRequest request;
  request.platform = o.platform;
  request.workload = o.workload;
  request.sets = workload_sets(o); // the screening child's: the headroom its parent's --set holds
  for (const std::string& search : o.searches)
    request.space.restrict(search);
  request.gpus = o.gpus;
  request.objective = parse_objective(o.objective);
  request.exhaustive = o.exhaustive;
  request.margin = o.margin_pct / 100;
  request.jobs = o.jobs;
  request.executable = kThisSimgpt;
  request.timeout_s = o.timeout;
  request.memory_limit_bytes = memory_limit_bytes(o);
  request.data_folders = o.data_dirs;
  request.fidelity = o.fidelity_name;
  request.progress = stderr_is_terminal();
  return request;
}

void declare_plan(CLI::App& cmd, Options& o) {
  cmd.add_option("--platform", o.platform, "SimGrid platform XML");
  cmd.add_option("--workload", o.workload, "workload YAML: the model, global batch and fixed settings");
  cmd.add_option("--set", o.sets, "override a workload key that is not searched: SECTION.KEY=VALUE");
  cmd.add_option("--gpus", o.gpus, "GPUs the job uses: N or a list N1,N2,... (default: all the platform's)");
  cmd.add_option("--search", o.searches, "search only these values of a key: KEY=V1,V2,... (parallelism.dp, "
                                         "tp, pp, ep, cp, schedule, chunks, zero, sequence_parallel, "
                                         "training.micro_batch, recompute, placement.order)");
  cmd.add_option("--objective", o.objective, "step_time, tokens_per_s or tokens_per_s_per_gpu (default step_time)");
  cmd.add_option("--top", o.top, "plans listed (default 5)")->check(whole_number(1, kMaxTop));
  add_process_options(cmd, o, "a simulation");
  add_memory_limit_option(cmd, o);
  cmd.add_flag("--exhaustive", o.exhaustive, "simulate every valid candidate: no memory, symmetry or bound pruning");
  cmd.add_option("--margin", o.margin_pct,
                 fmt::format("simulate candidates estimated at most this many percent slower than the best simulated "
                             "(default {:g}) where the estimate contends a link; others at most {:g}",
                             100 * kDefaultEstimateMargin, 100 * kUncontendedEstimateMargin))
      ->check(percent(1000));
  cmd.add_option("-o,--output", o.output, "write every candidate, pruned ones with their reason, to FILE.csv");
  add_data_option(cmd, o.data_dirs);
  add_fidelity_name_option(cmd, o.fidelity_name, true);
  add_memory_headroom_option(cmd, o, fmt::format("{:g}", kPlanMemoryHeadroomPct));
}

int run_plan(const Options& o, const CLI::App&) {
  require_job(o, "plan");
  PlanRequest request = plan_request(o);
  request.sets = workload_sets(o, kPlanMemoryHeadroomPct); // a plan keeps 5% free unless told otherwise
  // -o is refused before the search, not after it, when it names a file the plan reads.
  std::vector<std::string> inputs;
  if (!o.output.empty()) {
    inputs = simulation_input_files(o.platform, o.workload, parse_overrides(workload_sets(o, kPlanMemoryHeadroomPct)), data_paths(o));
    check_output_path(o.output, "-o", inputs);
  }
  const PlanResult result = plan(request);
  if (!o.output.empty())
    write_output_file(o.output, plan_csv(result), "-o", inputs);
  std::cout << plan_text(result, o.top);
  return 0;
}

} // namespace simgpt::cli
