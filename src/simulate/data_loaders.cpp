// The loaders that turn the data folders' files into what a simulation takes.
#include "simgpt/simulate.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <map>

namespace simgpt {

std::vector<std::string> simulation_input_files(const std::string& platform_path, const std::string& workload_path,
                                                const Overrides& overrides, const DataPaths& data) {
  const Workload w = load_workload(workload_path, overrides);
  std::vector<std::string> files{platform_path, workload_path};
  if (const std::string profile = data.find("profiles/" + w.framework + ".yaml"); !profile.empty())
    files.push_back(profile);
  for (const std::string& catalog : data.catalog())
    files.push_back(catalog);
  return files;
}

GpuCatalog load_catalog(const DataPaths& data) {
  const std::vector<std::string> files = data.catalog();
  if (files.empty())
    throw InputError("platforms/gpus.yaml", fmt::format("no data folder holds the GPU catalog (folders: {})",
                                                        data.folder_list()));
  return GpuCatalog::load(files, data.find_all("platforms/kernels"));
}

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
