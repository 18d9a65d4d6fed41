// `simgpt --platform P --workload W`: one simulated step, its report on stdout.
#include "command.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/study/draws.hpp"
#include "simgpt/report/trace_selection.hpp"
#include "simgpt/workload/workload.hpp"

#include <iostream>

namespace simgpt::cli {

void declare_simulation(CLI::App& app, Options& o) {
  app.add_option("--platform", o.platform, "SimGrid platform XML (e.g. platforms/p3_16xlarge.xml)");
  app.add_option("--workload", o.workloads,
                 "workload YAML (e.g. workloads/gpt3xl.yaml); again for each further job sharing the platform's "
                 "fabric, each on its own GPUs (placement.first_gpu)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--set", o.sets, "override a workload key: SECTION.KEY=VALUE (e.g. network.delay=10ms)");
  app.add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json"}));
  add_data_option(app, o.data_dirs);
  app.add_option("--trace", o.trace,
                 "write a Chrome trace of the step (Perfetto, chrome://tracing) to FILE.json, or FILE.json.gz (gzip)");
  app.add_option("--trace-gpus", o.trace_gpus, "the GPUs the trace draws, e.g. 0-7,64 (default: all)");
  app.add_option("--trace-window", o.trace_window,
                 "the part of the step the trace draws, START:END, e.g. 10s:12s, 10s: or :500ms (default: all)");
  add_fidelity_option(app, o.fidelity);
  add_memory_headroom_option(app, o, "the profile's, 0");
  add_train_tokens_option(app, o);
  app.add_option("--draws", o.draws,
                 "simulate N seeded draws of the workload's random slow GPUs (conditions.random_fraction), seeds "
                 "conditions.seed to seed + N - 1, and report the step time's distribution");
  add_process_options(app, o, "each draw's simulation");
}

namespace {

// `simgpt --draws N`: the Monte Carlo study, each draw in a process of its own.
int run_draws(const Options& o, const CLI::App& app) {
  for (const char* option : {"--trace", "--trace-gpus", "--trace-window"})
    if (app.count(option) > 0)
      throw InputError(option, "draws one step, and --draws simulates many: trace one draw by its conditions.seed");
  DrawRequest request{.platform = o.platform, .workload = o.workload, .sets = workload_sets(o), .draws = o.draws,
                      .jobs = o.jobs, .executable = kThisSimgpt, .data_folders = data_paths(o).folders,
                      .fidelity = o.fidelity == SimulationOptions::Fidelity::full ? "full"
                                  : o.fidelity == SimulationOptions::Fidelity::estimate ? "estimate"
                                                                                         : "",
                      .timeout_s = o.timeout, .progress = stderr_is_terminal()};
  const DrawSummary summary = simgpt::run_draws(request);
  std::cout << (o.format == "json" ? summary.to_json().dump(2) + "\n"
                                   : summary.to_text(o.workload + " on " + o.platform));
  return 0;
}

// `simgpt --workload A --workload B`: the jobs on one fabric, a report each.
int run_jobs(const Options& o, const CLI::App& app) {
  for (const char* option : {"--trace", "--trace-gpus", "--trace-window", "--draws", "--jobs", "--timeout"})
    if (app.count(option) > 0)
      throw InputError(option, "applies to one job: give one --workload");
  std::vector<Workload> workloads;
  for (const std::string& path : o.workloads)
    workloads.push_back(load_workload(path, parse_overrides(workload_sets(o))));
  const std::vector<Report> reports =
      simulate_jobs(o.platform, workloads, data_paths(o), SimulationOptions{.fidelity = o.fidelity});
  if (o.format == "json") {
    nlohmann::ordered_json j;
    auto& each = j["jobs"] = nlohmann::ordered_json::array();
    for (const Report& r : reports)
      each.push_back(nlohmann::ordered_json::parse(r.to_json_text()));
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (size_t i = 0; i < reports.size(); ++i)
    std::cout << (i > 0 ? "\n" : "") << reports[i].to_text();
  return 0;
}

} // namespace

int run_simulation(const Options& given, const CLI::App& app) {
  Options o = given;
  o.workload = o.workloads.empty() ? "" : o.workloads.front();
  require_job(o, "");
  if (o.workloads.size() > 1)
    return run_jobs(o, app);
  if (app.count("--draws") > 0)
    return run_draws(o, app);
  for (const char* option : {"--jobs", "--timeout"})
    if (app.count(option) > 0)
      throw InputError(option, "applies to --draws, whose simulations run in processes of their own");
  if (app.count("--trace") > 0 && o.trace.empty())
    throw InputError("--trace", "names no file (--trace FILE.json)");
  for (const char* option : {"--trace-gpus", "--trace-window"})
    if (app.count(option) > 0 && app.count("--trace") == 0)
      throw InputError(option, "selects what a trace draws, and no --trace FILE.json is written");
  const Workload w = load_workload(o.workload, parse_overrides(workload_sets(o)));
  TraceSelection selection;
  if (app.count("--trace-gpus") > 0)
    selection.gpus = parse_trace_gpus(o.trace_gpus, w.gpus());
  if (app.count("--trace-window") > 0)
    selection.window = parse_trace_window(o.trace_window);
  const Report report = simulate(o.platform, w, data_paths(o),
                                 SimulationOptions{.trace_path = o.trace, .trace_selection = selection,
                                                   .fidelity = o.fidelity});
  std::cout << (o.format == "json" ? report.to_json_text() : report.to_text());
  return 0;
}

} // namespace simgpt::cli
