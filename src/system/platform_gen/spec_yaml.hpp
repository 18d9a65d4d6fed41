// A spec's options as a YAML mapping writes them (a preset in presets.yaml, a compact platform
// file's simgpt_platform): the options' names with '_' for '-'.
#pragma once

#include "core/yaml_read.hpp"
#include "simgpt/system/platform_generator.hpp"

#include <string>

namespace simgpt::platform_gen {

// Sets each key of `options` (but `skipped`, when given) on `spec` (set_platform_option), naming the key in errors.
void set_platform_options(PlatformSpec& spec, const YamlReader& options, const char* skipped = nullptr);

} // namespace simgpt::platform_gen
