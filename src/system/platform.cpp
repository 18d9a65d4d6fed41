#include "simgpt/system/platform.hpp"

#include "simgpt/core/error.hpp"
#include "core/input_file.hpp"

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

std::string Platform::name() const { return std::filesystem::path(path).filename().string(); }

} // namespace simgpt
