// Runs a validation row's simulation in a new process of the simgpt executable (`simgpt row`).
// SimGrid keeps one engine per process, so validate and calibrate give each simulation its own
// process; spawning (not forking) keeps that safe from their worker threads.
#pragma once

#include "process/child_process.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace simgpt {

// The row `row_id` ("TABLE/ROW") that `spec_json` holds (row_spec_json), simulated in a
// child `simgpt row` process of `executable` (resolved: simgpt_executable) on the data folders
// `data_folders` (each passed as --data, in order) with the profile parameters
// `profile_overrides` (key, value): its result, an InputError rethrown as an InputError, another
// error in the child as std::runtime_error, and a child that did not report (or ran past
// `timeout_s`) as ProcessFailure.
nlohmann::ordered_json run_row_process(const std::string& row_id, const std::string& spec_json,
                                       const std::vector<std::string>& data_folders,
                                       const std::vector<std::pair<std::string, double>>& profile_overrides,
                                       const std::string& executable, double timeout_s);

} // namespace simgpt
