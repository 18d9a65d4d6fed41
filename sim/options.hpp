// What the command line sets, and the options several subcommands share, declared once.
#pragma once

#include "simgpt/planner/planner.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/study/plot.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace simgpt::cli {

// The executable each simulation's child process runs: this one, whatever its file is named (the
// library, run from another program, checks that it is simgpt).
inline const std::string kThisSimgpt = "/proc/self/exe";

// Every value of the command line, whichever subcommand sets it.
struct Options {
  std::string platform, workload, format = "text", filter, profile;
  std::vector<std::string> data_dirs; // --data, in order
  std::string trace; // --trace FILE.json
  std::string trace_gpus, trace_window;
  SimulationOptions::Fidelity fidelity = SimulationOptions::Fidelity::symmetric;
  std::string fidelity_name; // sweep and plan: passed on to each simulation when given
  std::vector<std::string> sets;
  // --memory-headroom: the percentage of each GPU's memory kept free (the profile's
  // memory.headroom); below 0: not given, the profile's own (plan's default is 5).
  double memory_headroom_pct = -1;
  std::string train_tokens; // --train-tokens: training.tokens (15T, 300B)
  std::string row_id, tables_dir, row_spec; // simgpt row
  std::vector<std::string> profile_sets; // simgpt row: KEY=VALUE profile parameters
  pid_t parent_pid = 0;                  // simgpt row and point: the process that started it
  double timeout = 600;
  std::string memory_limit; // plan and sweep: --memory-limit, the heap each simulation may take
  bool gate = false;
  bool extended = false; // validate: also the tables of tier extended
  bool write = false;
  bool check = false; // simgpt calibrate --check
  std::vector<std::string> calibration_tables; // simgpt calibrate --table: the user's measured rows
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> grids, zips, parts; // simgpt sweep
  std::string output, shard = "1/1";
  PlotSpec plot;                               // simgpt plot
  std::string gpus, objective = "step_time";  // simgpt plan
  std::vector<std::string> searches;
  int top = 5;
  std::vector<std::string> workloads; // simgpt --workload A --workload B: jobs sharing the platform's fabric
  int draws = 0; // simgpt --draws N: a Monte Carlo study of the workload's random slow GPUs
  bool exhaustive = false;
  bool progress = false; // screen: a progress bar on stderr (plan passes it when its stderr is a terminal)
  double margin_pct = 100 * kDefaultEstimateMargin; // simgpt plan --margin
  std::vector<std::string> import_words;             // simgpt import: the framework's command line
  std::string deepspeed_config;                      // simgpt import deepspeed CONFIG.json
  int64_t import_gpus = 0;                           // simgpt import --gpus (0: as the command line says)
  std::string preset;                                // simgpt platform
  std::map<std::string, std::string> platform_values; // by option name
};

// --memory-headroom PCT, with its default's words ("the profile's, 0" or "5").
void add_memory_headroom_option(CLI::App& app, Options& o, const std::string& default_text);

// --train-tokens N: the tokens to train (training.tokens), for the report's time to train.
void add_train_tokens_option(CLI::App& app, Options& o);

// --set's overrides, after those --memory-headroom and --train-tokens stand for (so that a --set
// of the same key wins, as a later --set does).
std::vector<std::string> workload_sets(const Options& o, double default_headroom_pct = -1);

// --data DIR, which every command that reads data files takes, as often as there are folders;
// `holding` says which of the files it reads.
void add_data_option(CLI::App& app, std::vector<std::string>& data_dirs,
                     const std::string& holding = "platforms/, profiles/ and validation/");

// --jobs and --timeout of a command that runs simulations in processes of their own; `timed`
// names what the timeout stops.
void add_process_options(CLI::App& app, Options& o, const std::string& timed);

// --memory-limit of a command whose simulations run in processes of their own (plan, sweep).
void add_memory_limit_option(CLI::App& app, Options& o);
// Its bytes (parse_memory_limit), 0 when not given.
double memory_limit_bytes(const Options& o);

// --fidelity symmetric|full|estimate (SimulationOptions::Fidelity).
void add_fidelity_option(CLI::App& app, SimulationOptions::Fidelity& fidelity);

// --fidelity of a command that passes it on to each simulation by name (`estimate` among them
// where the command takes it).
void add_fidelity_name_option(CLI::App& app, std::string& fidelity_name, bool estimate);

// The data folders: --data's (else $SIMGPT_DATA's), then the one found beside the executable.
DataPaths data_paths(const Options& o);

// The search the options describe, as `simgpt plan` runs it and its `simgpt screen` process
// checks and estimates its candidates (plan_command.cpp).
PlanRequest plan_request(const Options& o); // --memory-headroom as given; `plan` adds its default

// A command that simulates a job needs its platform and workload; `command` is "" for the
// simulation itself.
void require_job(const Options& o, const std::string& command);

// Whether progress bars are drawn: only on a terminal.
inline bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

} // namespace simgpt::cli
