// A cluster as a SimGrid platform file. SimGrid reads platforms from files
// (s4u::Engine::load_platform), so the object names a checked, readable file; the simulation
// loads it into its engine.
#pragma once

#include <string>

namespace simgpt {

struct Platform {
  std::string path;
  // Checks that `path` is a readable regular file; throws InputError otherwise.
  static Platform load(const std::string& path);
  // The file's name without its folders, as reports print it.
  std::string name() const;
};

} // namespace simgpt
