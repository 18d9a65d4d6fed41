// Runs a simulation in a forked child process. SimGrid keeps one engine per process, so the
// tests and the benchmark give each simulation its own. fork() is only safe from a process with
// one thread: validate and calibrate, which run rows from worker threads, spawn `simgpt row`
// processes instead (process/row_process.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>

namespace simgpt {

// Runs `fn` in a forked child and returns what it returned. An InputError in the child is
// rethrown as an InputError; a crash or any other exception becomes std::runtime_error.
nlohmann::ordered_json run_isolated(const std::function<nlohmann::ordered_json()>& fn);

} // namespace simgpt
