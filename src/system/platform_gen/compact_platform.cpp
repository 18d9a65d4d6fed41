// The compact platform file: `simgpt_platform:` and the spec's options, as presets write them.
#include "simgpt/system/platform_generator.hpp"

#include "core/yaml_read.hpp"

#include <algorithm>

namespace simgpt {

bool is_compact_platform(const std::string& path) { return path.ends_with(".yaml") || path.ends_with(".yml"); }

PlatformSpec read_compact_platform(const std::string& path) {
  const YamlReader root = YamlReader::file(path);
  root.only({"simgpt_platform"});
  const YamlReader platform = root.map("simgpt_platform");
  PlatformSpec spec;
  for (const std::string& key : platform.keys()) {
    std::string option = key;
    std::replace(option.begin(), option.end(), '_', '-');
    set_platform_option(spec, option, platform.text(key), platform.where(key));
  }
  return spec;
}

} // namespace simgpt
