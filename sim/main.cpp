// simgpt: predicts the step time of a distributed GPT training job on a simulated cluster.
// A thin driver over the simgpt library.
#include "simgpt/error.hpp"
#include "simgpt/simulation.hpp"
#include "simgpt/workload.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <iostream>

namespace {

int run_simulation(const std::string& platform, const std::string& workload_path,
                   const std::vector<std::string>& sets, const std::string& format, const std::string& data_dir) {
  simgpt::Overrides overrides;
  for (const std::string& s : sets)
    overrides.push_back(simgpt::parse_override(s));
  simgpt::DataPaths data = data_dir.empty() ? simgpt::default_data_paths() : simgpt::DataPaths{data_dir};
  const simgpt::Workload w = simgpt::load_workload(workload_path, overrides);
  const simgpt::Report report = simgpt::simulate(platform, w, data);
  if (format == "json")
    std::cout << report.to_json().dump(2) << "\n";
  else
    std::cout << report.to_text();
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"simgpt: simulate distributed GPT training on a SimGrid cluster and predict its step time"};
  std::string platform, workload, format = "text", data_dir;
  std::vector<std::string> sets;
  app.add_option("--platform", platform, "SimGrid platform XML (e.g. platforms/p3_16xlarge.xml)")->required();
  app.add_option("--workload", workload, "workload YAML (e.g. workloads/gpt3xl.yaml)")->required();
  app.add_option("--set", sets, "override a workload key: SECTION.KEY=VALUE (e.g. network.delay=10ms)");
  app.add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--data", data_dir, "directory holding platforms/gpus.yaml and profiles/");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "simgpt: " << e.what() << " (see simgpt --help)\n";
    return 2;
  }
  try {
    return run_simulation(platform, workload, sets, format, data_dir);
  } catch (const simgpt::InputError& e) {
    std::cerr << "simgpt: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "simgpt: internal error: " << e.what() << "\n";
    return 1;
  }
}
