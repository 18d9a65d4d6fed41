#include "simgpt/system/platform.hpp"

#include "simgpt/core/error.hpp"
#include "core/input_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

namespace simgpt {

Platform Platform::load(const std::string& path) {
  // Before SimGrid opens it: a FIFO would block it, /dev/zero or a huge file exhaust it.
  check_input_file(path, "platform");
  if (!std::ifstream(path))
    throw InputError(path, "cannot read the platform file");
  return Platform{path};
}

HostCpu host_cpu_named(const std::string& name, const std::string& where) {
  if (const std::optional<HostCpu> cpu = parse_enum<HostCpu>(name))
    return *cpu;
  throw InputError(where, fmt::format("unknown cpu '{}' (expected {})", echo(name), valid_enum_names<HostCpu>(" or ")));
}

std::string Platform::name() const { return std::filesystem::path(path).filename().string(); }

} // namespace simgpt
