// Runs a simulation in a new process of the simgpt executable and reads its one-line JSON
// outcome. SimGrid keeps one engine per process, so each simulation gets its own process;
// spawning (not forking) keeps that safe from worker threads. Used by validate and calibrate
// (`simgpt row`) and by sweep (`simgpt point`).
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace simgpt {

// The simulation process crashed, was killed, exited non-zero, printed no readable result or ran
// past its timeout: the simulation could not run for a reason outside its inputs.
struct ProcessFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The process ran past its timeout and was killed: a limit the caller set, not a fault.
struct ProcessTimeout : ProcessFailure {
  using ProcessFailure::ProcessFailure;
};
// An allocation failed in the process: past its memory limit, or the machine's memory.
struct ProcessOutOfMemory : ProcessFailure {
  using ProcessFailure::ProcessFailure;
};

// `executable`, or this process's own when it is empty and this process is simgpt
// (std::runtime_error otherwise).
std::string simgpt_executable(const std::string& executable);

// Runs `executable` with `args` (args[0] is the program name), its stdout a pipe, and returns
// its outcome under the protocol of the child subcommands, one JSON object on stdout:
// {"ok": result} returns result; {"input_error": message, "where": where} throws InputError;
// {"error": message} throws std::runtime_error; a child that did not report so, or ran past
// `timeout_s` (then killed), throws ProcessFailure; a child whose allocation failed,
// ProcessOutOfMemory.
nlohmann::ordered_json run_simgpt_child(const std::string& executable, const std::vector<std::string>& args,
                                        double timeout_s);

} // namespace simgpt
