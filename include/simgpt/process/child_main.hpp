// The child side of "a simulation in its own process" (SimGrid allows one engine per process),
// kept apart from the parent side (child_process.hpp) as clang keeps cc1_main: `simgpt row` and
// `simgpt point` run here. The parent reads one JSON object on the child's stdout:
// {"ok": result}, {"input_error": message, "where": where} or {"error": message}.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace simgpt {

// Runs `simulate`, which returns its result as JSON text, and prints its outcome as above;
// returns the exit status (0 once the outcome is written). Dies with the parent: with `parent_pid` given, exits at once if the process that
// started it is already gone. Anything else the simulation prints goes to stderr.
int child_main(pid_t parent_pid, const std::function<std::string()>& simulate);

} // namespace simgpt
