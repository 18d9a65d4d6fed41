// `simgpt platform`: a SimGrid platform file written from a preset node and the options given.
#include "command.hpp"

#include "simgpt/core/output_file.hpp"
#include "simgpt/system/platform_generator.hpp"

#include <iostream>

namespace simgpt::cli {

void declare_platform(CLI::App& cmd, Options& o) {
  cmd.add_option("--preset", o.preset, "a node of platforms/presets.yaml (p3.16xlarge, dgx-a100, ...)");
  for (const PlatformOption& option : platform_options())
    cmd.add_option(std::string("--") + option.name, o.platform_values[option.name], option.help);
  cmd.add_option("-o,--output", o.output, "the platform file to write")->required();
  add_data_option(cmd, o.data_dirs, "platforms/ (presets.yaml, gpus.yaml)");
}

// The preset's values, then the options given, in the library's order.
int run_platform(const Options& o, const CLI::App& cmd) {
  const DataPaths data = data_paths(o);
  std::vector<std::pair<std::string, std::string>> given;
  for (const PlatformOption& option : platform_options())
    if (cmd.count(std::string("--") + option.name) > 0)
      given.emplace_back(option.name, o.platform_values.at(option.name));
  std::vector<std::string> inputs = data.presets();
  for (const std::string& catalog : data.catalog())
    inputs.push_back(catalog);
  check_output_path(o.output, "-o", inputs);
  const PlatformSpec spec = platform_spec(data.presets(), o.preset, given);
  std::cout << write_platform(spec, load_catalog(data), o.output, inputs) << "\n";
  return 0;
}

} // namespace simgpt::cli
