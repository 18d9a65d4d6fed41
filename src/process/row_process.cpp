#include "process/row_process.hpp"

#include "process/child_process.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <vector>

namespace simgpt {

namespace {

// `simgpt row TABLE/ROW --spec JSON`; doubles with 17 digits, which read back as the same double.
std::vector<std::string> row_arguments(const std::string& row_id, const std::string& spec_json,
                                       const std::vector<std::string>& data_folders,
                                       const std::vector<std::pair<std::string, double>>& profile_overrides) {
  std::vector<std::string> args{"simgpt", "row", row_id, "--spec", spec_json, "--parent-pid",
                                std::to_string(::getpid())};
  for (const std::string& folder : data_folders)
    args.insert(args.end(), {"--data", folder});
  for (const auto& [key, value] : profile_overrides) {
    args.push_back("--profile-set");
    args.push_back(fmt::format("{}={:.17g}", key, value));
  }
  return args;
}

} // namespace

nlohmann::ordered_json run_row_process(const std::string& row_id, const std::string& spec_json,
                                       const std::vector<std::string>& data_folders,
                                       const std::vector<std::pair<std::string, double>>& profile_overrides,
                                       const std::string& executable, double timeout_s) {
  return run_simgpt_child(executable, row_arguments(row_id, spec_json, data_folders, profile_overrides), timeout_s);
}

} // namespace simgpt
