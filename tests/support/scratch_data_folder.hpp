// A data folder of a user's own for one test (what --data names): a few files written under a
// scratch folder, removed with it.
#pragma once

#include "support/scratch_file.hpp"

#include <filesystem>
#include <fstream>
#include <string>

namespace simgpt::testing {

class ScratchDataFolder {
public:
  explicit ScratchDataFolder(const std::string& stem) : dir_(scratch_path(stem, "")) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDataFolder() { std::filesystem::remove_all(dir_); }
  ScratchDataFolder(const ScratchDataFolder&) = delete;
  ScratchDataFolder& operator=(const ScratchDataFolder&) = delete;

  // Writes `text` to `relative` ("profiles/p.yaml") in the folder; returns its path.
  std::string write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path path = std::filesystem::path(dir_) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return dir_ + "/" + relative;
  }
  const std::string& path() const { return dir_; }

private:
  std::string dir_;
};

} // namespace simgpt::testing
