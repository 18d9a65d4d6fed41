// simgpt's subcommands as a table (as ninja's tools): each declares its options on its own
// CLI11 subcommand and runs from the parsed values. main() builds the command line from the table
// and runs the subcommand given, or the simulation itself when none is.
#pragma once

#include "options.hpp"

#include <CLI/CLI.hpp>

#include <span>
#include <string>

namespace simgpt::cli {

struct Command {
  const char* name;
  const char* help;
  bool hidden; // the child processes' own entries, not listed by --help
  void (*declare)(CLI::App& command, Options& o);
  int (*run)(const Options& o, const CLI::App& command);
};

// In --help's order.
std::span<const Command> commands();

// The simulation itself: `simgpt --platform P --workload W`, options on the top-level app.
void declare_simulation(CLI::App& app, Options& o);
int run_simulation(const Options& o, const CLI::App& app);

} // namespace simgpt::cli
