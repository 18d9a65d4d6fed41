#include "options.hpp"

#include "number_options.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/process/memory_limit.hpp"

#include <fmt/format.h>

namespace simgpt::cli {

namespace {
// Bounds of the command line's numbers. --jobs past the cores is lowered to them (jobs_for_machine);
// a timeout of about 11.6 days outlasts any simulation simgpt runs.
constexpr int64_t kMaxJobs = 1'000'000;
constexpr double kMaxTimeoutSeconds = 1e6;
} // namespace

void add_data_option(CLI::App& app, std::vector<std::string>& data_dirs, const std::string& holding) {
  // One folder an occurrence: `row --data DIR ID` leaves ID to the positional argument.
  app.add_option("--data", data_dirs,
                 "a folder holding " + holding + ", searched before the built-in one (repeatable: the first "
                                                 "given wins)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void add_process_options(CLI::App& app, Options& o, const std::string& timed) {
  app.add_option("--jobs", o.jobs, "simulations run at once (default: one per core)")
      ->check(whole_number(1, kMaxJobs));
  app.add_option("--timeout", o.timeout, "seconds " + timed + " may run before it is killed (default 600)")
      ->check(seconds(kMaxTimeoutSeconds));
}

void add_memory_limit_option(CLI::App& app, Options& o) {
  app.add_option("--memory-limit", o.memory_limit,
                 "the memory each simulation's heap may take, e.g. 2GiB; past it that simulation fails and says so "
                 "(default: no limit)");
}

double memory_limit_bytes(const Options& o) { return o.memory_limit.empty() ? 0 : parse_memory_limit(o.memory_limit); }

void add_fidelity_option(CLI::App& app, SimulationOptions::Fidelity& fidelity) {
  app.add_option("--fidelity", fidelity,
                 "symmetric: alike data-parallel replicas and tensor ranks' transfers on links of their own "
                 "simulated once; full: every one; estimate: no replay, the step in closed form from the same costs")
      ->transform(CLI::CheckedTransformer(std::map<std::string, SimulationOptions::Fidelity>{
          {"symmetric", SimulationOptions::Fidelity::symmetric},
          {"full", SimulationOptions::Fidelity::full},
          {"estimate", SimulationOptions::Fidelity::estimate}}));
}

void add_fidelity_name_option(CLI::App& app, std::string& fidelity_name, bool estimate) {
  app.add_option("--fidelity", fidelity_name, "each simulation's --fidelity (default symmetric)")
      ->check(CLI::IsMember(estimate ? std::vector<std::string>{"symmetric", "full", "estimate"}
                                     : std::vector<std::string>{"symmetric", "full"}));
}

void add_memory_headroom_option(CLI::App& app, Options& o, const std::string& default_text) {
  app.add_option("--memory-headroom", o.memory_headroom_pct,
                 "percent of each GPU's memory kept free beyond what the model counts (the allocator's "
                 "fragmentation, what simgpt leaves out); a peak above the rest is out of memory (default " +
                     default_text + ")")
      ->check(percent(50));
}

void add_train_tokens_option(CLI::App& app, Options& o) {
  app.add_option("--train-tokens", o.train_tokens,
                 "tokens to train, e.g. 15T or 300B: the report gives the days and GPU-hours at this step's "
                 "throughput (training.tokens)");
}

std::vector<std::string> workload_sets(const Options& o, double default_headroom_pct) {
  std::vector<std::string> sets;
  const double headroom = o.memory_headroom_pct >= 0 ? o.memory_headroom_pct : default_headroom_pct;
  if (headroom >= 0)
    sets.push_back(fmt::format("framework_options.memory.headroom={}", headroom / 100));
  if (!o.train_tokens.empty())
    sets.push_back("training.tokens=" + o.train_tokens);
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  return sets;
}

DataPaths data_paths(const Options& o) { return data_paths_at(o.data_dirs, "--data"); }

void require_job(const Options& o, const std::string& command) {
  if (o.platform.empty() || o.workload.empty())
    throw InputError(command, fmt::format("--platform and --workload are required (see simgpt {}{}--help)", command,
                                          command.empty() ? "" : " "));
}

} // namespace simgpt::cli
