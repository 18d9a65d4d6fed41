// Runs a simulation in a child process. SimGrid keeps one engine per process, so a driver
// that runs many simulations (validate, calibrate, tests) gives each its own process.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>

namespace simgpt {

// Runs `fn` in a forked child and returns what it returned. An InputError in the child is
// rethrown as an InputError; a crash or any other exception becomes std::runtime_error.
nlohmann::ordered_json run_isolated(const std::function<nlohmann::ordered_json()>& fn);

} // namespace simgpt
