// `simgpt kernels --platform P --workload W`: the kernel shapes the job runs that a kernel table can
// time, with their times now and where those came from (platforms/kernels/README.md): the list a
// user measures on their GPU with bench/device/measure_kernels.py.
#include "command.hpp"

#include "simgpt/core/output_file.hpp"
#include "simgpt/simulate/kernel_listing.hpp"
#include "simgpt/workload/workload.hpp"

#include <iostream>

namespace simgpt::cli {

void declare_kernels(CLI::App& cmd, Options& o) {
  cmd.add_option("--platform", o.platform, "SimGrid platform XML (e.g. platforms/dgx_b200.xml)");
  cmd.add_option("--workload", o.workload, "workload YAML (e.g. workloads/llama3_70b.yaml)");
  cmd.add_option("--set", o.sets, "override a workload key: SECTION.KEY=VALUE");
  cmd.add_option("--format", o.format, "yaml (the kernel table's rows) or json (measure_kernels.py's input)")
      ->check(CLI::IsMember({"yaml", "json"}));
  cmd.add_option("-o,--output", o.output, "write to this file instead of standard output");
  add_data_option(cmd, o.data_dirs, "platforms/ (gpus.yaml, kernels/) and profiles/");
}

int run_kernels(const Options& o, const CLI::App& cmd) {
  require_job(o, "kernels");
  const Workload w = load_workload(o.workload, parse_overrides(o.sets));
  const DataPaths data = data_paths(o);
  if (cmd.count("--output") > 0)
    check_output_path(o.output, "-o", simulation_input_files(o.platform, o.workload, parse_overrides(o.sets), data));
  const KernelListing listing = list_kernels(o.platform, w, data);
  const bool json = cmd.count("--format") > 0 && o.format == "json";
  const std::string text = json ? listing.to_json_text() : listing.to_yaml_text();
  if (cmd.count("--output") > 0)
    write_output_file(o.output, text, "-o");
  else
    std::cout << text;
  return 0;
}

} // namespace simgpt::cli
