// Where the data files are: the data folders, the user's before the built-in one, and how a file's
// name resolves among them.
#include "simgpt/simulate/data_paths.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

namespace simgpt {

namespace {

namespace fs = std::filesystem;

// What a data folder holds, one at least: a folder holding none of them is a mistyped path.
constexpr const char* kDataSubfolders[] = {"platforms", "profiles", "validation"};

// The built-in folder holds everything a simulation needs.
bool holds_builtin_data(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "platforms" / "gpus.yaml", ec) && fs::is_directory(dir / "profiles", ec);
}

bool holds_some_data(const fs::path& dir) {
  std::error_code ec;
  return std::any_of(std::begin(kDataSubfolders), std::end(kDataSubfolders),
                     [&](const char* sub) { return fs::is_directory(dir / sub, ec); });
}

void check_user_folder(const std::string& dir, const std::string& where) {
  std::error_code ec;
  if (dir.empty())
    throw InputError(where, "an empty folder name (expected a simgpt data folder)");
  if (!fs::is_directory(dir, ec))
    throw InputError(where + " " + echo(dir), "is not a simgpt data folder: no such folder");
  if (!holds_some_data(dir))
    throw InputError(where + " " + echo(dir),
                     "is not a simgpt data folder: it holds none of platforms/, profiles/, validation/");
}

// ../share/simgpt (installed) or .. (a build folder of a checkout) beside the executable; empty
// when neither holds the data files.
std::string builtin_folder() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (const auto& dir : {exe.parent_path().parent_path() / "share" / "simgpt", exe.parent_path().parent_path()})
      if (holds_builtin_data(dir))
        return dir.string();
  return {};
}

std::vector<std::string> environment_folders() {
  std::vector<std::string> folders;
  const char* env = std::getenv("SIMGPT_DATA");
  if (env == nullptr)
    return folders;
  std::istringstream list(env);
  for (std::string dir; std::getline(list, dir, ':');)
    if (!dir.empty()) // "$SIMGPT_DATA:more" with SIMGPT_DATA unset
      folders.push_back(dir);
  return folders;
}

// The same folder named twice (./data and data) is searched once, where it first comes.
void add_folder(std::vector<std::string>& folders, std::vector<fs::path>& seen, const std::string& dir) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(dir, ec);
  if (ec)
    canonical = dir;
  if (std::find(seen.begin(), seen.end(), canonical) != seen.end())
    return;
  seen.push_back(canonical);
  folders.push_back(dir);
}

} // namespace

std::string DataPaths::find(const std::string& relative) const {
  for (const std::string& dir : folders) {
    std::error_code ec;
    if (fs::exists(fs::path(dir) / relative, ec))
      return dir + "/" + relative;
  }
  return {};
}

std::vector<std::string> DataPaths::find_all(const std::string& relative) const {
  std::vector<std::string> found;
  for (const std::string& dir : folders) {
    std::error_code ec;
    if (fs::exists(fs::path(dir) / relative, ec))
      found.push_back(dir + "/" + relative);
  }
  return found;
}

std::vector<std::string> DataPaths::list(const std::string& relative, const std::string& extension) const {
  std::map<std::string, std::string> by_name; // sorted by name; the first folder's file kept
  for (const std::string& dir : find_all(relative)) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == extension)
        by_name.emplace(entry.path().filename().string(), dir + "/" + entry.path().filename().string());
    if (ec)
      throw InputError(dir, fmt::format("cannot read the folder: {}", ec.message()));
  }
  std::vector<std::string> files;
  for (auto& [name, path] : by_name)
    files.push_back(std::move(path));
  return files;
}

std::string DataPaths::folder_list() const { return fmt::format("{}", fmt::join(folders, ", ")); }

DataPaths data_paths_at(const std::vector<std::string>& given, const std::string& where) {
  const std::vector<std::string> user = given.empty() ? environment_folders() : given;
  const std::string named = given.empty() ? "SIMGPT_DATA" : where;
  DataPaths data;
  std::vector<fs::path> seen;
  for (const std::string& dir : user) {
    check_user_folder(dir, named);
    add_folder(data.folders, seen, dir);
  }
  if (const std::string builtin = builtin_folder(); !builtin.empty())
    add_folder(data.folders, seen, builtin);
  if (data.folders.empty())
    throw InputError("data files", "cannot find platforms/gpus.yaml and profiles/ beside the simgpt executable "
                                   "(../share/simgpt or ..): set SIMGPT_DATA or pass --data DIR");
  return data;
}

DataPaths default_data_paths() { return data_paths_at({}); }

std::string data_file_name(const std::string& path, const std::string& folder) {
  const std::filesystem::path p(path);
  return p.parent_path().filename() == folder ? folder + "/" + p.filename().string() : path;
}

} // namespace simgpt
