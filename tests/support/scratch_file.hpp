// Scratch files for tests: ctest runs test cases in parallel processes, so each names its files
// by its process id.
#pragma once

#include <unistd.h>

#include <fstream>
#include <string>

namespace simgpt::testing {

// /tmp/simgpt_test_<stem>_<pid><extension>.
inline std::string scratch_path(const std::string& stem, const std::string& extension) {
  return "/tmp/simgpt_test_" + stem + "_" + std::to_string(::getpid()) + extension;
}

// Writes `text` to scratch_path(stem, extension); returns the path.
inline std::string scratch_file(const std::string& stem, const std::string& extension, const std::string& text) {
  const std::string path = scratch_path(stem, extension);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

} // namespace simgpt::testing
