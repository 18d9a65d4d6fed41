// Named presets (platforms/presets.yaml): a node's hardware and network with their source.
#include "simgpt/system/platform_generator.hpp"

#include "simgpt/core/error.hpp"
#include "core/yaml_read.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace simgpt {

PlatformSpec load_platform_preset(const std::string& presets_file, const std::string& name) {
  const YamlReader root = YamlReader::file(presets_file);
  if (!root.has(name)) {
    std::string known;
    for (const std::string& k : root.keys())
      known += (known.empty() ? "" : ", ") + k;
    throw InputError("--preset", fmt::format("unknown preset '{}' ({} has: {})", echo(name), presets_file, known));
  }
  const YamlReader preset = root.map(name);
  preset.text("source"); // every preset says where its numbers come from
  PlatformSpec spec;
  spec.preset = name;
  for (const std::string& key : preset.keys()) {
    if (key == "source")
      continue;
    std::string option = key;
    std::replace(option.begin(), option.end(), '_', '-');
    set_platform_option(spec, option, preset.text(key), preset.where(key));
  }
  return spec;
}

} // namespace simgpt
