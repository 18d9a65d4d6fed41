// simgpt: predicts the step time of a distributed GPT training job on a simulated cluster.
// A thin driver over the simgpt library: the command line of command.hpp's table, parsed, and the
// subcommand given run; errors become one line and an exit status (README).
#include "command.hpp"
#include "number_options.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/core/output_file.hpp"
#include "simgpt/core/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <vector>

namespace {

// A message is one line of at most 300 characters (README): "simgpt: ", the message cut to this
// (a long list of valid values ends in "..."), and the newline.
constexpr size_t kMaxMessage = 285;

// The simulation's own options (--platform, --set, --trace, ...) given before a subcommand's name
// belong to the simulation, which a subcommand does not run: `simgpt --set X sweep` would run
// the sweep without X. Refused, naming where the option goes.
void refuse_options_before_subcommand(const CLI::App& app) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  if (chosen.empty())
    return;
  const std::string name = chosen.front()->get_name();
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_name() == "--help")
      continue;
    const std::string flag = option->get_name();
    const bool taken = chosen.front()->get_option_no_throw(flag) != nullptr;
    throw simgpt::InputError(flag, taken ? fmt::format("given before '{}': give it after the subcommand (simgpt {} "
                                                       "{} ...)",
                                                       name, name, flag)
                                         : fmt::format("is not an option of simgpt {} (see simgpt {} --help)", name,
                                                       name));
  }
}

// The subcommand given, or the simulation itself.
int run_given(const simgpt::cli::Options& o, const CLI::App& app, const std::vector<CLI::App*>& subcommands) {
  const auto table = simgpt::cli::commands();
  for (size_t i = 0; i < table.size(); ++i)
    if (subcommands[i]->parsed())
      return table[i].run(o, *subcommands[i]);
  return simgpt::cli::run_simulation(o, app);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"simgpt: simulate distributed GPT training on a SimGrid cluster and predict its step time"};
  simgpt::cli::Options o;
  app.set_version_flag("--version", "simgpt " + std::string(simgpt::version()), "print simgpt's version and exit");
  simgpt::cli::declare_simulation(app, o);
  std::vector<CLI::App*> subcommands;
  for (const simgpt::cli::Command& command : simgpt::cli::commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.help);
    if (command.hidden)
      sub->group("");
    command.declare(*sub, o);
    subcommands.push_back(sub);
  }
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 echoes the offending argument whole: keep it to one bounded line.
    std::cerr << "simgpt: " << simgpt::one_line(e.what(), kMaxMessage - 20) << " (see simgpt --help)\n";
    return 2;
  }
  try {
    o.jobs = simgpt::cli::jobs_for_machine(o.jobs);
    refuse_options_before_subcommand(app);
    const int status = run_given(o, app, subcommands);
    simgpt::flush_stdout(); // a result that did not reach stdout (a closed pipe, /dev/full) is a failure
    return status;
  } catch (const simgpt::LimitError& e) {
    // Exit statuses (README): 0 a result, 1 a bug, 2 bad input, 3 a documented limit exceeded.
    std::cerr << "simgpt: " << simgpt::one_line(e.what(), kMaxMessage) << "\n";
    return 3;
  } catch (const simgpt::InputError& e) {
    std::cerr << "simgpt: " << simgpt::one_line(e.what(), kMaxMessage) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "simgpt: internal error: " << simgpt::one_line(e.what(), kMaxMessage) << "\n";
    return 1;
  }
}
