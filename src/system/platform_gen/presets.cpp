// Named presets (platforms/presets.yaml): a node's hardware and network with their source.
#include "simgpt/system/platform_generator.hpp"

#include "simgpt/core/error.hpp"
#include "core/yaml_read.hpp"
#include "system/platform_gen/spec_yaml.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace simgpt {

void platform_gen::set_platform_options(PlatformSpec& spec, const YamlReader& options, const char* skipped) {
  for (const std::string& key : options.keys()) {
    if (skipped != nullptr && key == skipped)
      continue;
    std::string option = key;
    std::replace(option.begin(), option.end(), '_', '-');
    set_platform_option(spec, option, options.text(key), options.where(key));
  }
}

namespace {

PlatformSpec read_preset(const YamlReader& root, const std::string& name) {
  const YamlReader preset = root.map(name);
  preset.text("source"); // every preset says where its numbers come from
  PlatformSpec spec;
  spec.preset = name;
  platform_gen::set_platform_options(spec, preset, "source");
  return spec;
}

} // namespace

PlatformSpec load_platform_preset(const std::vector<std::string>& presets_files, const std::string& name) {
  // The first file that has the preset: a user's presets.yaml adds or replaces presets one by one.
  std::set<std::string> known;
  for (const std::string& file : presets_files) {
    const YamlReader root = YamlReader::file(file);
    if (root.has(name))
      return read_preset(root, name);
    const std::vector<std::string> keys = root.keys();
    known.insert(keys.begin(), keys.end());
  }
  if (presets_files.empty())
    throw InputError("--preset", fmt::format("unknown preset '{}' (no platforms/presets.yaml among the data folders)",
                                             echo(name)));
  throw InputError("--preset", fmt::format("unknown preset '{}' ({} {}: {})", echo(name),
                                           fmt::join(presets_files, ", "), presets_files.size() == 1 ? "has" : "have",
                                           fmt::join(known, ", ")));
}

} // namespace simgpt
