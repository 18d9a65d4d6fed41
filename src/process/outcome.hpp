// The outcome of a simulation run in a child process, as the child prints it and the parent
// reads it: one JSON object, {"ok": result}, {"input_error": message, "where": where},
// {"error": message} or, when an allocation failed, {"error": message, "out_of_memory": true}. `simgpt row` and `simgpt point` (child_main) and the tests' forked
// children (tests/support/isolate) speak it.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>

namespace simgpt {

// Runs `simulate` and turns what it returned or threw into the outcome object.
nlohmann::ordered_json outcome_of(const std::function<nlohmann::ordered_json()>& simulate);

// The result an outcome object carries: an input error rethrown as InputError, an allocation that
// failed as ProcessOutOfMemory, another error as std::runtime_error, an object that is none of
// these (no "ok") as ProcessFailure.
nlohmann::ordered_json result_of(const nlohmann::ordered_json& outcome);

} // namespace simgpt
