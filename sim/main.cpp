// simgpt: predicts the step time of a distributed GPT training job on a simulated cluster.
// A thin driver over the simgpt library.
#include "simgpt/validation/calibration.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/core/output_file.hpp"
#include "number_options.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/framework/parameters.hpp"
#include "simgpt/process/child_main.hpp"
#include "simgpt/planner/plan_output.hpp"
#include "simgpt/planner/planner.hpp"
#include "simgpt/study/plot.hpp"
#include "simgpt/study/sweep.hpp"
#include "simgpt/system/platform_generator.hpp"
#include "simgpt/validation/validation.hpp"
#include "simgpt/workload/workload.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <functional>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

namespace {

// Bounds of the command line's numbers. --jobs past the cores is lowered to them (jobs_for_machine);
// a timeout of about 11.6 days outlasts any simulation simgpt runs; --top lists at most every
// candidate a plan may have.
constexpr int64_t kMaxJobs = 1'000'000;
constexpr double kMaxTimeoutSeconds = 1e6;
constexpr int64_t kMaxTop = 1'000'000;

// A message is one line of at most 300 characters (README): "simgpt: ", the message cut to this
// (a long list of valid values ends in "..."), and the newline.
constexpr size_t kMaxMessage = 285;

// The executable each simulation's child process runs: this one, whatever its file is named (the
// library, run from another program, checks that it is simgpt).
const std::string kThisSimgpt = "/proc/self/exe";

struct Options {
  std::string platform, workload, format = "text", data_dir, filter, profile;
  std::string trace; // --trace FILE.json
  bool trace_given = false;
  simgpt::SimulationOptions::Fidelity fidelity = simgpt::SimulationOptions::Fidelity::symmetric;
  std::string fidelity_name; // sweep and plan: passed on to each simulation when given
  std::vector<std::string> sets;
  std::string row_id, tables_dir;        // simgpt row
  std::vector<std::string> profile_sets; // simgpt row: KEY=VALUE profile parameters
  pid_t parent_pid = 0;                  // simgpt row: the process that started it
  double timeout = 600;
  bool gate = false;
  bool write = false;
  bool check = false; // simgpt calibrate --check
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  // simgpt sweep
  std::vector<std::string> grids, zips, parts;
  std::string output, shard = "1/1";
  simgpt::PlotSpec plot; // simgpt plot
  // simgpt plan
  std::string gpus, objective = "step_time";
  std::vector<std::string> searches;
  int top = 5;
  bool exhaustive = false;
};

// A report as JSON: a byte that is not UTF-8 (a file name's) written as U+FFFD, not refused.
template <class Json>
std::string json_text(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

simgpt::DataPaths data_paths(const Options& o) {
  return o.data_dir.empty() ? simgpt::default_data_paths() : simgpt::data_paths_at(o.data_dir, "--data");
}

// A command that simulates a job needs its platform and workload; `command` is "" for the
// simulation itself.
void require_job(const Options& o, const std::string& command) {
  if (o.platform.empty() || o.workload.empty())
    throw simgpt::InputError(command, fmt::format("--platform and --workload are required (see simgpt {}{}--help)",
                                                  command, command.empty() ? "" : " "));
}

int run_simulation(const Options& o) {
  require_job(o, "");
  if (o.trace_given && o.trace.empty())
    throw simgpt::InputError("--trace", "names no file (--trace FILE.json)");
  const simgpt::Workload w = simgpt::load_workload(o.workload, simgpt::parse_overrides(o.sets));
  const simgpt::Report report = simgpt::simulate(o.platform, w, data_paths(o),
      simgpt::SimulationOptions{.trace_path = o.trace, .fidelity = o.fidelity});
  std::cout << (o.format == "json" ? json_text(report.to_json()) : report.to_text());
  return 0;
}

int run_validate(const Options& o) {
  const simgpt::DataPaths data = data_paths(o);
  const auto tables = simgpt::load_validation_tables(data.root + "/validation/tables");
  const auto thresholds = simgpt::load_thresholds(data.root + "/validation/thresholds.yaml");
  const simgpt::ValidationReport report =
      simgpt::validate(tables, data, o.filter, thresholds, o.jobs, simgpt::RowProcess{kThisSimgpt, o.timeout});
  if (o.format == "markdown") {
    size_t total = 0;
    std::cout << "| measured table | source | rows |\n| --- | --- | ---: |\n";
    for (const auto& t : tables) {
      std::cout << fmt::format("| {} | {} | {} |\n", t.id, t.source_heading, t.rows.size());
      total += t.rows.size();
    }
    std::cout << fmt::format("| all {} tables | | {} |\n\n", tables.size(), total);
    std::cout << report.to_markdown();
  }
  else
    std::cout << (o.format == "json" ? json_text(report.to_json()) : report.to_text());
  return o.gate && !report.gate_failures.empty() ? 1 : 0;
}

int run_calibrate(const Options& o) {
  const simgpt::DataPaths data = data_paths(o);
  const auto tables = simgpt::load_validation_tables(data.root + "/validation/tables");
  if (o.check) {
    // What pins each parameter; exit 1 when a parameter lacks the rows a fit needs.
    const simgpt::CalibrationSupport support = simgpt::calibration_support(o.profile, tables, data);
    for (const auto& [key, moved] : support.parameters)
      std::cout << fmt::format("{}: {} row(s) of {} configuration(s): {}\n", key, moved.rows.size(),
                               moved.configurations, fmt::join(moved.rows, ", "));
    try {
      simgpt::require_support(support, "profile " + o.profile);
    } catch (const simgpt::InputError& e) {
      std::cout << e.what() << "\n";
      return 1;
    }
    return 0;
  }
  if (o.write)
    simgpt::check_fitted_writable(o.profile, data);
  const simgpt::CalibrationResult r =
      simgpt::calibrate_profile(o.profile, tables, data, simgpt::RowProcess{.executable = kThisSimgpt});
  std::cout << fmt::format("profile {} fitted on {} row(s):\n", r.profile, r.error_pct.size());
  // Durations show their SI unit; sizes and rates print as bare SI numbers, as they always have.
  for (const auto& [key, value] : r.fitted) {
    const simgpt::ProfileParameter& p = simgpt::find_profile_parameter(key, "--profile " + r.profile);
    std::cout << fmt::format("  {} = {:.6g}{}\n", key, value, p.si_unit == "s" ? " s" : "");
  }
  for (const auto& [row, error] : r.error_pct)
    std::cout << fmt::format("  {:<40} {:+.2f}%\n", row, error);
  if (o.write) {
    simgpt::write_fitted(r, data);
    std::cout << fmt::format("written to {}/{}.yaml\n", data.profiles(), r.profile);
  }
  return 0;
}

// One validation row by its "table/row" id, with the profile parameters of --profile-set.
nlohmann::ordered_json simulate_row_by_id(const Options& o) {
  simgpt::DataPaths data = data_paths(o);
  for (const std::string& s : o.profile_sets) {
    const auto [key, value] = simgpt::parse_override(s);
    try {
      data.profile_overrides.emplace_back(key, std::stod(value));
    } catch (const std::exception&) {
      throw simgpt::InputError("--profile-set " + key, "expected a number");
    }
  }
  const std::string dir = o.tables_dir.empty() ? data.root + "/validation/tables" : o.tables_dir;
  const auto tables = simgpt::load_validation_tables(dir);
  for (const auto& t : tables)
    for (const auto& r : t.rows)
      if (t.id + "/" + r.id == o.row_id)
        return simgpt::simulate_row(t, r, data);
  throw simgpt::InputError(dir, fmt::format("no validation row '{}'", o.row_id));
}

// One configuration of a sweep: the report of `simgpt --platform P --workload W --set ...`.
nlohmann::ordered_json simulate_point(const Options& o) {
  return simgpt::simulate(o.platform, simgpt::load_workload(o.workload, simgpt::parse_overrides(o.sets)), data_paths(o),
                          simgpt::SimulationOptions{.fidelity = o.fidelity})
      .to_json();
}

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
      shards < 1 || shard < 1 || shard > shards || shards > simgpt::kMaxSweepShards)
    throw simgpt::InputError("--shard " + simgpt::echo(text),
                             fmt::format("expected I/N with 1 <= I <= N <= {}, e.g. 2/8", simgpt::kMaxSweepShards));
  return {shard, shards};
}

// `simgpt platform`: the preset's values, then the options given, in the library's order.
struct PlatformCli {
  std::string preset;
  std::map<std::string, std::string> values; // by option name, bound to CLI11
};

int run_platform(const Options& o, const CLI::App& cmd, const PlatformCli& p) {
  const simgpt::DataPaths data = data_paths(o);
  std::vector<std::pair<std::string, std::string>> given;
  for (const simgpt::PlatformOption& option : simgpt::platform_options())
    if (cmd.count(std::string("--") + option.name) > 0)
      given.emplace_back(option.name, p.values.at(option.name));
  const std::string presets = data.root + "/platforms/presets.yaml";
  simgpt::check_output_path(o.output, "-o", {presets, data.catalog()});
  const simgpt::PlatformSpec spec = simgpt::platform_spec(presets, p.preset, given);
  std::cout << simgpt::write_platform(spec, simgpt::load_catalog(data), o.output, {presets, data.catalog()}) << "\n";
  return 0;
}

int run_sweep(const Options& o, const CLI::App& sweep) {
  if (o.platform.empty() || o.workload.empty() || o.output.empty())
    throw simgpt::InputError("sweep", "--platform, --workload and -o are required (see simgpt sweep --help)");
  simgpt::Sweep s{o.platform, o.workload, o.sets, {}, 1, 1};
  for (const std::string& set : o.sets)
    simgpt::check_override_key(simgpt::parse_override(set).first);
  // --grid and --zip in the order given: a --zip joins the axis before it.
  size_t grid = 0, zip = 0;
  for (const CLI::Option* option : sweep.parse_order()) {
    if (option->get_name() == "--grid")
      s.grid.add(o.grids.at(grid++), false);
    else if (option->get_name() == "--zip")
      s.grid.add(o.zips.at(zip++), true);
  }
  std::tie(s.shard, s.shards) = parse_shard(o.shard);
  simgpt::SweepRun run;
  run.output = o.output;
  run.format = o.format == "jsonl" ? simgpt::SweepFormat::jsonl : simgpt::SweepFormat::csv;
  run.jobs = o.jobs;
  run.timeout_s = o.timeout;
  run.data_dir = o.data_dir;
  run.fidelity = o.fidelity_name;
  run.progress = ::isatty(STDERR_FILENO) != 0;
  const simgpt::SweepSummary summary = simgpt::run_sweep(s, run);
  std::string statuses;
  for (const auto& [status, count] : summary.statuses)
    statuses += fmt::format(", {} {}", count, status);
  std::cout << fmt::format("{} configurations, {} already in {}{}\n", summary.configurations,
                           summary.already_written, o.output, statuses);
  return 0;
}

// `simgpt plan`: the ranking on stdout, every candidate in the CSV of -o.
int run_plan(const Options& o) {
  require_job(o, "plan");
  simgpt::PlanRequest request;
  request.platform = o.platform;
  request.workload = o.workload;
  request.sets = o.sets;
  for (const std::string& search : o.searches)
    request.space.restrict(search);
  request.gpus = o.gpus;
  request.objective = simgpt::parse_objective(o.objective);
  request.exhaustive = o.exhaustive;
  request.jobs = o.jobs;
  request.executable = kThisSimgpt;
  request.timeout_s = o.timeout;
  request.data_dir = o.data_dir;
  request.fidelity = o.fidelity_name;
  request.progress = ::isatty(STDERR_FILENO) != 0;
  // -o is refused before the search, not after it, when it names a file the plan reads.
  std::vector<std::string> inputs;
  if (!o.output.empty()) {
    inputs = simgpt::simulation_input_files(o.platform, o.workload, simgpt::parse_overrides(o.sets), data_paths(o));
    simgpt::check_output_path(o.output, "-o", inputs);
  }
  const simgpt::PlanResult result = simgpt::plan(request);
  if (!o.output.empty())
    simgpt::write_output_file(o.output, simgpt::plan_csv(result), "-o", inputs);
  std::cout << simgpt::plan_text(result, o.top);
  return 0;
}

// `simgpt plot`: the chart, and a line on stderr for each note (rows left out). The data files
// are looked for only when --measured needs a validation table.
int run_plot(const Options& o) {
  const simgpt::DataPaths data = o.plot.measured.empty() ? simgpt::DataPaths{} : data_paths(o);
  for (const std::string& note : simgpt::plot(o.plot, data))
    std::cerr << "simgpt plot: " << note << "\n";
  return 0;
}

// The simulation's own options (--platform, --set, --trace, ...) given before a subcommand's name
// belong to the simulation, which a subcommand does not run: `simgpt --set X sweep` would run
// the sweep without X. Refused, naming where the option goes.
void refuse_options_before_subcommand(const CLI::App& app) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  if (chosen.empty())
    return;
  const std::string name = chosen.front()->get_name();
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_name() == "--help")
      continue;
    const std::string flag = option->get_name();
    const bool taken = chosen.front()->get_option_no_throw(flag) != nullptr;
    throw simgpt::InputError(flag, taken ? fmt::format("given before '{}': give it after the subcommand (simgpt {} "
                                                       "{} ...)",
                                                       name, name, flag)
                                         : fmt::format("is not an option of simgpt {} (see simgpt {} --help)", name,
                                                       name));
  }
}

// --data DIR, which every command that reads data files takes; `holding` says which of them.
void add_data_option(CLI::App& app, std::string& data_dir,
                     const std::string& holding = "platforms/, profiles/ and validation/") {
  app.add_option("--data", data_dir, "directory holding " + holding);
}

// --jobs and --timeout of a command that runs simulations in processes of their own; `timed`
// names what the timeout stops.
void add_process_options(CLI::App& app, Options& o, const std::string& timed) {
  app.add_option("--jobs", o.jobs, "simulations run at once (default: one per core)")
      ->check(simgpt::cli::whole_number(1, kMaxJobs));
  app.add_option("--timeout", o.timeout, "seconds " + timed + " may run before it is killed (default 600)")
      ->check(simgpt::cli::seconds(kMaxTimeoutSeconds));
}

// --fidelity symmetric|full (SimulationOptions::Fidelity).
void add_fidelity_option(CLI::App& app, simgpt::SimulationOptions::Fidelity& fidelity) {
  app.add_option("--fidelity", fidelity,
                 "symmetric: alike data-parallel replicas and tensor ranks' transfers on links of their own "
                 "simulated once; full: every one")
      ->transform(CLI::CheckedTransformer(std::map<std::string, simgpt::SimulationOptions::Fidelity>{
          {"symmetric", simgpt::SimulationOptions::Fidelity::symmetric},
          {"full", simgpt::SimulationOptions::Fidelity::full}}));
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"simgpt: simulate distributed GPT training on a SimGrid cluster and predict its step time"};
  Options o;
  app.add_option("--platform", o.platform, "SimGrid platform XML (e.g. platforms/p3_16xlarge.xml)");
  app.add_option("--workload", o.workload, "workload YAML (e.g. workloads/gpt3xl.yaml)");
  app.add_option("--set", o.sets, "override a workload key: SECTION.KEY=VALUE (e.g. network.delay=10ms)");
  app.add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json"}));
  add_data_option(app, o.data_dir);
  app.add_option("--trace", o.trace, "write a Chrome trace of the step (Perfetto, chrome://tracing) to FILE.json");
  add_fidelity_option(app, o.fidelity);
  CLI::App* validate = app.add_subcommand("validate", "replay every measured table and report the errors");
  validate->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json", "markdown"}));
  validate->add_option("--filter", o.filter, "only rows whose table/row id contains PATTERN");
  add_process_options(*validate, o, "a row's simulation");
  validate->add_flag("--gate", o.gate, "exit 1 when a table is worse than validation/thresholds.yaml");
  add_data_option(*validate, o.data_dir);
  CLI::App* calibrate = app.add_subcommand("calibrate", "fit a profile's parameters to its calibration rows");
  calibrate->add_option("--profile", o.profile, "profile name (profiles/NAME.yaml)")->required();
  calibrate->add_flag("--write", o.write, "write the fitted values into the profile file");
  add_data_option(*calibrate, o.data_dir);
  calibrate->add_flag("--check", o.check, "only list the rows that move each parameter; exit 1 unless each has "
                                          "3 rows of 2 configurations");
  CLI::App* parameters =
      app.add_subcommand("profile-parameters", "list the profile parameters calibrate can fit (README's table)");
  parameters->add_option("--format", o.format, "output format")->check(CLI::IsMember({"markdown"}));
  // Hidden (no group): one row's simulation, for validate and calibrate.
  CLI::App* row = app.add_subcommand("row", "simulate one validation row and print its outcome as JSON")->group("");
  row->add_option("id", o.row_id, "TABLE/ROW")->required();
  add_data_option(*row, o.data_dir);
  row->add_option("--tables", o.tables_dir, "directory of the validation tables (default: DATA/validation/tables)");
  row->add_option("--profile-set", o.profile_sets, "a profile parameter: SECTION.KEY=VALUE");
  row->add_option("--parent-pid", o.parent_pid, "exit at once unless this is the parent's process id");
  CLI::App* point = app.add_subcommand("point", "simulate one sweep configuration, its outcome as JSON")->group("");
  point->add_option("--platform", o.platform)->required();
  point->add_option("--workload", o.workload)->required();
  point->add_option("--set", o.sets);
  add_data_option(*point, o.data_dir);
  point->add_option("--parent-pid", o.parent_pid);
  add_fidelity_option(*point, o.fidelity);
  CLI::App* sweep = app.add_subcommand("sweep", "simulate every configuration of a grid of workload keys, in parallel");
  sweep->add_option("--platform", o.platform, "SimGrid platform XML");
  sweep->add_option("--workload", o.workload, "workload YAML");
  sweep->add_option("--set", o.sets, "override a workload key in every configuration: SECTION.KEY=VALUE");
  sweep->add_option("--grid", o.grids, "an axis: KEY=V1,V2,... (any --set key, platform or workload; "
                                       "`default` leaves the key as the workload has it)");
  sweep->add_option("--zip", o.zips, "KEY=V1,V2,... advancing together with the axis before it");
  sweep->add_option("-o,--output", o.output, "the CSV (or JSON lines) file; rerunning skips what it holds");
  sweep->add_option("--format", o.format, "output format")->check(CLI::IsMember({"csv", "jsonl"}))->default_str("csv");
  add_process_options(*sweep, o, "a simulation");
  sweep->add_option("--shard", o.shard, "run the I-th of N disjoint parts: I/N (default 1/1)");
  add_data_option(*sweep, o.data_dir);
  sweep->add_option("--fidelity", o.fidelity_name, "each simulation's --fidelity (default symmetric)")
      ->check(CLI::IsMember({"symmetric", "full"}));
  CLI::App* merge = sweep->add_subcommand("merge", "join the files of a sharded sweep, in configuration order");
  merge->add_option("parts", o.parts, "the shards' output files")->required();
  merge->add_option("-o,--output", o.output, "the merged file")->required();
  CLI::App* plan = app.add_subcommand("plan", "find the fastest parallel plan that fits, by simulating candidates");
  plan->add_option("--platform", o.platform, "SimGrid platform XML");
  plan->add_option("--workload", o.workload, "workload YAML: the model, global batch and fixed settings");
  plan->add_option("--set", o.sets, "override a workload key that is not searched: SECTION.KEY=VALUE");
  plan->add_option("--gpus", o.gpus, "GPUs the job uses: N or a list N1,N2,... (default: all the platform's)");
  plan->add_option("--search", o.searches, "search only these values of a key: KEY=V1,V2,... (parallelism.dp, "
                                           "tp, pp, schedule, chunks, zero, sequence_parallel, training.micro_batch, "
                                           "recompute, placement.order)");
  plan->add_option("--objective", o.objective, "step_time, tokens_per_s or tokens_per_s_per_gpu (default step_time)");
  plan->add_option("--top", o.top, "plans listed (default 5)")->check(simgpt::cli::whole_number(1, kMaxTop));
  add_process_options(*plan, o, "a simulation");
  plan->add_flag("--exhaustive", o.exhaustive, "simulate every valid candidate: no memory, symmetry or bound pruning");
  plan->add_option("-o,--output", o.output, "write every candidate, pruned ones with their reason, to FILE.csv");
  add_data_option(*plan, o.data_dir);
  plan->add_option("--fidelity", o.fidelity_name, "each simulation's --fidelity (default symmetric)")
      ->check(CLI::IsMember({"symmetric", "full"}));
  CLI::App* plot = app.add_subcommand("plot", "chart a metric of a sweep's CSV against an input, as SVG (gnuplot)");
  plot->add_option("csv", o.plot.csv, "the CSV simgpt sweep wrote")->required();
  plot->add_option("--x", o.plot.x, "the column on the x axis (an input key)")->required();
  plot->add_option("--y", o.plot.y, "the metric on the y axis (step_time_s, tokens_per_s, ...)")->required();
  plot->add_option("--series", o.plot.series, "one line (or bar group) per value of this column");
  plot->add_option("--where", o.plot.where, "keep the rows whose KEY is VALUE: KEY=VALUE (one KEY twice: either)");
  plot->add_option("--measured", o.plot.measured, "overlay a validation table's measured values: its id or YAML file");
  const auto set_kind = [&o](const std::string& kind) {
    o.plot.kind = kind == "bar" ? simgpt::ChartKind::bar : simgpt::ChartKind::line;
  };
  plot->add_option_function<std::string>("--kind", set_kind, "line or bar (default line)")
      ->check(CLI::IsMember({"line", "bar"}));
  plot->add_flag("--logx", o.plot.log_x, "a log scale on a numeric x axis");
  plot->add_option("--title", o.plot.title, "the chart's title");
  plot->add_option("-o,--output", o.plot.output, "the SVG file to write")->required();
  add_data_option(*plot, o.data_dir, "validation/tables/ (for --measured TABLE)");
  CLI::App* platform = app.add_subcommand("platform", "write a SimGrid platform file: GPU nodes joined by a network");
  PlatformCli platform_cli;
  platform->add_option("--preset", platform_cli.preset, "a node of platforms/presets.yaml (p3.16xlarge, dgx-a100, ...)");
  for (const simgpt::PlatformOption& option : simgpt::platform_options())
    platform->add_option(std::string("--") + option.name, platform_cli.values[option.name], option.help);
  platform->add_option("-o,--output", o.output, "the platform file to write")->required();
  add_data_option(*platform, o.data_dir, "platforms/ (presets.yaml, gpus.yaml)");
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 echoes the offending argument whole: keep it to one bounded line.
    std::cerr << "simgpt: " << simgpt::one_line(e.what(), kMaxMessage - 20) << " (see simgpt --help)\n";
    return 2;
  }
  try {
    o.jobs = simgpt::cli::jobs_for_machine(o.jobs);
    o.trace_given = app.count("--trace") > 0;
    refuse_options_before_subcommand(app);
    const auto dispatch = [&]() -> int {
    if (validate->parsed())
      return run_validate(o);
    if (calibrate->parsed())
      return run_calibrate(o);
    if (parameters->parsed()) {
      std::cout << simgpt::profile_parameters_markdown();
      return 0;
    }
    if (row->parsed())
      return simgpt::child_main(o.parent_pid, [&] { return simulate_row_by_id(o); });
    if (point->parsed())
      return simgpt::child_main(o.parent_pid, [&] { return simulate_point(o); });
    if (merge->parsed()) {
      const int64_t n = simgpt::merge_sweep_parts(o.parts, o.output);
      std::cout << fmt::format("{} configurations written to {}\n", n, o.output);
      return 0;
    }
    if (sweep->parsed())
      return run_sweep(o, *sweep);
    if (plot->parsed())
      return run_plot(o);
    if (plan->parsed())
      return run_plan(o);
    if (platform->parsed())
      return run_platform(o, *platform, platform_cli);
    return run_simulation(o);
    };
    const int status = dispatch();
    simgpt::flush_stdout(); // a result that did not reach stdout (a closed pipe, /dev/full) is a failure
    return status;
  } catch (const simgpt::LimitError& e) {
    // Exit statuses (README): 0 a result, 1 a bug, 2 bad input, 3 a documented limit exceeded.
    std::cerr << "simgpt: " << simgpt::one_line(e.what(), kMaxMessage) << "\n";
    return 3;
  } catch (const simgpt::InputError& e) {
    std::cerr << "simgpt: " << simgpt::one_line(e.what(), kMaxMessage) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "simgpt: internal error: " << simgpt::one_line(e.what(), kMaxMessage) << "\n";
    return 1;
  }
}
