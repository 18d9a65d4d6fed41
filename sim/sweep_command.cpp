// `simgpt sweep`: every configuration of a grid, each simulated in its own process; and
// `simgpt sweep merge`: a sharded sweep's parts joined in configuration order.
#include "command.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/study/sweep.hpp"
#include "simgpt/workload/workload.hpp"

#include <fmt/format.h>

#include <iostream>

namespace simgpt::cli {

namespace {
// `--shard I/N`.
std::pair<int, int> parse_shard(const std::string& text) {
  // Digits only, each number whole and within int: sscanf's %d took 4294967297 as 1 and " 2" as 2.
  const auto number = [](const std::string& digits, int& n) {
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
      return false; // 9 digits fit an int; the bound on N is far below
    n = std::stoi(digits);
    return true;
  };
  const size_t slash = text.find('/');
  int shard = 0, shards = 0;
  if (slash == std::string::npos || !number(text.substr(0, slash), shard) || !number(text.substr(slash + 1), shards) ||
      shards < 1 || shard < 1 || shard > shards || shards > kMaxSweepShards)
    throw InputError("--shard " + echo(text),
                     fmt::format("expected I/N with 1 <= I <= N <= {}, e.g. 2/8", kMaxSweepShards));
  return {shard, shards};
}

// The grid of --grid and --zip in the order given: a --zip joins the axis before it.
SweepGrid grid_of(const Options& o, const CLI::App& sweep) {
  SweepGrid grid;
  size_t grids = 0, zips = 0;
  for (const CLI::Option* option : sweep.parse_order()) {
    if (option->get_name() == "--grid")
      grid.add(o.grids.at(grids++), false);
    else if (option->get_name() == "--zip")
      grid.add(o.zips.at(zips++), true);
  }
  return grid;
}

int run_merge(const Options& o) {
  const int64_t n = merge_sweep_parts(o.parts, o.output);
  std::cout << fmt::format("{} configurations written to {}\n", n, o.output);
  return 0;
}
} // namespace

void declare_sweep(CLI::App& cmd, Options& o) {
  cmd.add_option("--platform", o.platform, "SimGrid platform XML");
  cmd.add_option("--workload", o.workload, "workload YAML");
  cmd.add_option("--set", o.sets, "override a workload key in every configuration: SECTION.KEY=VALUE");
  cmd.add_option("--grid", o.grids, "an axis: KEY=V1,V2,... (any --set key, platform or workload; "
                                    "`default` leaves the key as the workload has it)");
  cmd.add_option("--zip", o.zips, "KEY=V1,V2,... advancing together with the axis before it");
  cmd.add_option("-o,--output", o.output, "the CSV (or JSON lines) file; rerunning skips what it holds");
  cmd.add_option("--format", o.format, "output format")->check(CLI::IsMember({"csv", "jsonl"}))->default_str("csv");
  add_process_options(cmd, o, "a simulation");
  cmd.add_option("--draws", o.draws,
                 "simulate each configuration over N seeded draws of its random slow GPUs (conditions.random_fraction); "
                 "its line is the median draw's, with the step time's percentiles (draws.median_s, p90, p99)");
  add_memory_limit_option(cmd, o);
  cmd.add_option("--shard", o.shard, "run the I-th of N disjoint parts: I/N (default 1/1)");
  add_data_option(cmd, o.data_dirs);
  add_fidelity_name_option(cmd, o.fidelity_name, true);
  add_memory_headroom_option(cmd, o, "the profile's, 0");
  add_train_tokens_option(cmd, o);
  CLI::App* merge = cmd.add_subcommand("merge", "join the files of a sharded sweep, in configuration order");
  merge->add_option("parts", o.parts, "the shards' output files")->required();
  merge->add_option("-o,--output", o.output, "the merged file")->required();
}

int run_sweep(const Options& o, const CLI::App& cmd) {
  if (cmd.get_subcommand("merge")->parsed())
    return run_merge(o);
  if (o.platform.empty() || o.workload.empty() || o.output.empty())
    throw InputError("sweep", "--platform, --workload and -o are required (see simgpt sweep --help)");
  Sweep s{o.platform, o.workload, workload_sets(o), {}, 1, 1};
  for (const std::string& set : o.sets)
    check_override_key(parse_override(set).first);
  s.grid = grid_of(o, cmd);
  std::tie(s.shard, s.shards) = parse_shard(o.shard);
  SweepRun run;
  run.executable = kThisSimgpt; // this executable, whatever its file is called (a copy, a rename)
  run.output = o.output;
  run.format = o.format == "jsonl" ? SweepFormat::jsonl : SweepFormat::csv;
  run.jobs = o.jobs;
  run.timeout_s = o.timeout;
  run.memory_limit_bytes = memory_limit_bytes(o);
  run.data_folders = data_paths(o).folders; // checked here, once, not by each simulation
  run.fidelity = o.fidelity_name;
  run.progress = stderr_is_terminal();
  run.draws = o.draws;
  const SweepSummary summary = simgpt::run_sweep(s, run);
  std::string statuses;
  for (const auto& [status, count] : summary.statuses)
    statuses += fmt::format(", {} {}", count, status);
  std::cout << fmt::format("{} configurations, {} already in {}{}\n", summary.configurations,
                           summary.already_written, o.output, statuses);
  return 0;
}

} // namespace simgpt::cli
