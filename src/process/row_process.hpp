// Runs a validation row's simulation in a new process of the simgpt executable (`simgpt row`).
// SimGrid keeps one engine per process, so validate and calibrate give each simulation its own
// process; spawning (not forking) keeps that safe from their worker threads.
#pragma once

#include "process/child_process.hpp"
#include "simgpt/validation/validation.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace simgpt {

// The executable that runs rows: process.executable, or this process's own when it is simgpt
// (std::runtime_error otherwise).
std::string simgpt_executable(const RowProcess& process);

// simulate_row(table, row, data) in a child `simgpt row` process, with data's profile overrides:
// its result, an InputError rethrown as an InputError, another error in the child as
// std::runtime_error, and a child that did not report as ProcessFailure. The child reloads the
// tables from table.file's directory, so `table` must come from load_validation_tables.
nlohmann::ordered_json run_row_process(const ValidationTable& table, const ValidationRow& row, const DataPaths& data,
                                       const RowProcess& process);

} // namespace simgpt
