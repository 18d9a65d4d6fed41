// Where the data files are, and the loaders that turn them into what a simulation takes.
#include "simgpt/simulate.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>

namespace simgpt {

namespace {

bool holds_data(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / "platforms" / "gpus.yaml", ec) &&
         std::filesystem::is_directory(dir / "profiles", ec);
}

} // namespace

DataPaths data_paths_at(const std::string& dir, const std::string& where) {
  if (!holds_data(dir))
    throw InputError(where + " " + echo(dir), "is not a simgpt data folder: it needs platforms/gpus.yaml and profiles/");
  return {dir, {}};
}

std::vector<std::string> simulation_input_files(const std::string& platform_path, const std::string& workload_path,
                                                const Overrides& overrides, const DataPaths& data) {
  const Workload w = load_workload(workload_path, overrides);
  return {platform_path, workload_path, data.profiles() + "/" + w.framework + ".yaml", data.catalog()};
}

DataPaths default_data_paths() {
  if (const char* env = std::getenv("SIMGPT_DATA"); env != nullptr && *env != '\0')
    return data_paths_at(env, "SIMGPT_DATA");
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (const auto& dir : {exe.parent_path().parent_path() / "share" / "simgpt", exe.parent_path().parent_path()})
      if (holds_data(dir))
        return {dir.string(), {}};
  throw InputError("data files", "cannot find platforms/gpus.yaml and profiles/ beside the simgpt executable "
                                 "(../share/simgpt or ..): set SIMGPT_DATA or pass --data DIR");
}

GpuCatalog load_catalog(const DataPaths& data) { return GpuCatalog::load(data.catalog()); }

Profile load_profile_of(const DataPaths& data, const std::string& name, const std::string& where,
                        const std::map<std::string, std::string>& options) {
  Profile profile = load_profile(data.profiles(), name, where, options);
  for (const auto& [key, value] : data.profile_overrides)
    set_profile_parameter(profile, key, value);
  return profile;
}

Profile load_workload_profile(const Workload& w, const DataPaths& data) {
  return load_profile_of(data, w.framework, w.source + ": framework", w.framework_options);
}

} // namespace simgpt
