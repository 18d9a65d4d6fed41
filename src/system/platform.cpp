#include "simgpt/system/platform.hpp"

#include "simgpt/core/error.hpp"

#include <filesystem>
#include <fstream>

namespace simgpt {

Platform Platform::load(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, "is a directory; expected a SimGrid platform XML file");
  if (!std::ifstream(path))
    throw InputError(path, "cannot read the platform file");
  return Platform{path};
}

std::string Platform::name() const { return std::filesystem::path(path).filename().string(); }

} // namespace simgpt
