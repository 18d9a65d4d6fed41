// A validation row in its own `simgpt row` process (process/row_process), as validate and
// calibrate run it.
#pragma once

#include "process/row_process.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/validation/validation.hpp"

#include <filesystem>

namespace simgpt {

// The child reloads the tables from table.file's directory, so `table` must come from
// load_validation_tables; `process.executable` must be resolved (simgpt_executable).
inline nlohmann::ordered_json run_row_process_of(const ValidationTable& table, const ValidationRow& row,
                                                 const DataPaths& data, const RowProcess& process) {
  return run_row_process(table.id + "/" + row.id, std::filesystem::path(table.file).parent_path().string(), data.root,
                         data.profile_overrides, process.executable, process.timeout_s);
}

} // namespace simgpt
