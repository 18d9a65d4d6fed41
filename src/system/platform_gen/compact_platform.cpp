// The compact platform file: `simgpt_platform:` and the spec's options, as presets write them.
#include "simgpt/system/platform_generator.hpp"

#include "system/platform_gen/spec_yaml.hpp"

namespace simgpt {

bool is_compact_platform(const std::string& path) { return path.ends_with(".yaml") || path.ends_with(".yml"); }

PlatformSpec read_compact_platform(const std::string& path) {
  const YamlReader root = YamlReader::file(path);
  root.only({"simgpt_platform"});
  PlatformSpec spec;
  platform_gen::set_platform_options(spec, root.map("simgpt_platform"));
  return spec;
}

} // namespace simgpt
