#include "process/row_process.hpp"

#include "process/child_process.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <vector>

namespace simgpt {

std::string simgpt_executable(const RowProcess& process) { return simgpt_executable(process.executable); }

namespace {

// `simgpt row TABLE/ROW`; doubles with 17 digits, which read back as the same double.
std::vector<std::string> row_arguments(const ValidationTable& table, const ValidationRow& row, const DataPaths& data) {
  std::vector<std::string> args{"simgpt",
                                "row",
                                table.id + "/" + row.id,
                                "--data",
                                data.root,
                                "--tables",
                                std::filesystem::path(table.file).parent_path().string(),
                                "--parent-pid",
                                std::to_string(::getpid())};
  for (const auto& [key, value] : data.profile_overrides) {
    args.push_back("--profile-set");
    args.push_back(fmt::format("{}={:.17g}", key, value));
  }
  return args;
}

} // namespace

nlohmann::ordered_json run_row_process(const ValidationTable& table, const ValidationRow& row, const DataPaths& data,
                                       const RowProcess& process) {
  return run_simgpt_child(simgpt_executable(process), row_arguments(table, row, data), process.timeout_s);
}

} // namespace simgpt
