// `simgpt plan`: the fastest plan that fits, found by simulation. Every candidate of the search
// space is checked by the workload's rules, its memory estimated statically, its step time
// bounded from below and estimated in closed form (estimate/, --fidelity estimate), all in one
// `simgpt screen` process; the survivors are simulated, each in its own `simgpt point` process,
// in order of their estimate, until the next one's estimate is more than a margin above the best
// simulated (or its bound shows it cannot beat it).
#pragma once

#include "simgpt/core/enum_names.hpp"
#include "simgpt/planner/search_space.hpp"
#include "simgpt/report/report.hpp"

#include <memory>
#include <string>
#include <vector>

namespace simgpt {

// What "fastest" means: the step time (tokens per second ranks the same at a fixed global
// batch), or tokens per second per GPU, which lets a smaller job win when --gpus lists several.
enum class PlanObjective { step_time, tokens_per_s, tokens_per_s_per_gpu };
inline constexpr EnumName<PlanObjective> kPlanObjectiveNames[] = {
    {PlanObjective::step_time, "step_time"},
    {PlanObjective::tokens_per_s, "tokens_per_s"},
    {PlanObjective::tokens_per_s_per_gpu, "tokens_per_s_per_gpu"}};
constexpr std::span<const EnumName<PlanObjective>> enum_names(PlanObjective) { return kPlanObjectiveNames; }

PlanObjective parse_objective(const std::string& text); // throws InputError naming --objective

// Where the estimate errs long it misleads the search (a plan estimated too slow is never
// simulated). It errs long only where it prices flows that share a link as moving at once
// (StepEstimate::contended), which the replay can run out of step: on the validation rows such
// estimates are at most 10.4% above the replay (`simgpt validate`'s "estimate against replay"), and
// at most 13.4% above it on the 1,322 plans of GPT-3 XL's default space on six p3.16xlarge that fit
// (bench/plan_gpt3xl.sh). A candidate so estimated more than 15% slower than a simulated plan is not
// simulated.
inline constexpr double kDefaultEstimateMargin = 0.15;
// The other estimates were never above the replay on the validation rows (`simgpt validate --format
// json`: the 947 estimate_step_time cases without the estimate_contended flag are at most 3e-6%
// above their replay, at least 3.3% below): such a candidate is pruned once it is estimated more
// than 1% slower than a simulated plan, or the margin if smaller.
inline constexpr double kUncontendedEstimateMargin = 0.01;

// The most candidates `--exhaustive` simulates: each simulation takes from a tenth of a second to
// minutes, so past a thousand an exhaustive search runs for hours (the pruned search simulates a
// handful); it is refused, naming the count, before any is simulated.
inline constexpr size_t kMaxExhaustiveSimulations = 1000;

struct PlanRequest {
  std::string platform, workload;
  std::vector<std::string> sets; // KEY=VALUE overrides of the workload before the search
  SearchSpace space;             // the keys' values; its job sizes come from `gpus`
  std::string gpus;              // --gpus: "N" or "N1,N2,..."; empty: the platform's GPU count
  PlanObjective objective = PlanObjective::step_time;
  bool exhaustive = false;       // simulate every valid candidate: no memory, symmetry or bound pruning
                                 // (at most kMaxExhaustiveSimulations of them)
  bool neighbours = true;        // simulate the winner's neighbours the bound pruned, to cost each key
  unsigned jobs = 1;
  double timeout_s = 600;
  double memory_limit_bytes = 0; // the heap each simulation may take (--memory-limit); 0: no limit
  std::string executable;        // the simgpt that simulates; empty: this process's own
  std::vector<std::string> data_folders; // --data, in order; empty: $SIMGPT_DATA's (data_paths_at)
  // --fidelity for each simulation (symmetric, full, or estimate: every candidate answered in closed
  // form, the margin 0); empty: the default.
  std::string fidelity;
  // How far above the best simulated step a candidate's estimate may be and still be simulated,
  // as a fraction, where the estimate contended a link (kDefaultEstimateMargin); elsewhere the
  // smaller of it and kUncontendedEstimateMargin.
  double margin = kDefaultEstimateMargin;
  bool progress = false;         // a progress bar on stderr
};

// What became of a candidate.
enum class PlanStatus {
  ok,        // simulated; fits
  oom,       // simulated; does not fit
  invalid,   // refused by the workload's rules (or by its simulation as bad input)
  failed,    // the simulation crashed or ran past the timeout
  memory,    // pruned: its static memory estimate, a lower bound, exceeds the GPU's usable memory
  symmetric, // pruned: the same simulation as an earlier candidate
  bound,     // pruned: its step-time lower bound is no better than a plan already simulated
  estimate,  // pruned: its estimated step is more than the margin above a plan already simulated
  // simulated; fits, with the same step time and peak memory as an earlier candidate (selective
  // recompute where FlashAttention keeps no scores to drop, say): ranked once, as that one
  equivalent,
};
// As plan's table and CSV print them.
inline constexpr EnumName<PlanStatus> kPlanStatusNames[] = {
    {PlanStatus::ok, "ok"},
    {PlanStatus::oom, "oom"},
    {PlanStatus::invalid, "invalid"},
    {PlanStatus::failed, "failed"},
    {PlanStatus::memory, "pruned_memory"},
    {PlanStatus::symmetric, "pruned_symmetric"},
    {PlanStatus::bound, "pruned_bound"},
    {PlanStatus::estimate, "pruned_estimate"},
    {PlanStatus::equivalent, "equivalent"}};
constexpr std::span<const EnumName<PlanStatus>> enum_names(PlanStatus) { return kPlanStatusNames; }

struct PlanRow {
  int64_t index = 0; // in the search space's order
  PlanCandidate candidate;
  PlanStatus status = PlanStatus::invalid;
  double step_lower_bound_s = 0;  // for valid candidates
  double static_peak_bytes = 0;   // for valid candidates
  double estimate_s = 0;          // the closed-form step time, for candidates not pruned statically
  bool estimate_contended = false; // the estimate priced flows sharing a link (StepEstimate::contended)
  std::shared_ptr<const Report> report; // ok and oom (shared: rows are copied, reports are large)
  std::string reason;             // invalid, failed and pruned: why
  int64_t gpus() const { return candidate.gpus(); }
};

struct PlanResult {
  std::string platform, workload, gpu_model;
  int64_t platform_gpus = 0;
  int64_t global_batch = 0, seq_len = 0;
  PlanObjective objective = PlanObjective::step_time;
  std::vector<PlanRow> rows;   // every candidate, in the search space's order
  std::vector<int64_t> ranked; // indices of the ok rows, best first (ties: lower index first)
  double wall_s = 0;           // not printed in the CSV: it is not a function of the inputs
};

// The row's objective as a cost to minimise: the step time, or GPU-seconds per step.
double plan_cost(const PlanRow& row, PlanObjective objective);
double plan_cost_lower_bound(const PlanRow& row, PlanObjective objective);
double plan_cost_estimate(const PlanRow& row, PlanObjective objective);

// Runs the search. Throws InputError for bad input (unreadable files, a search that leaves no
// candidate), LimitError past a documented limit.
PlanResult plan(const PlanRequest& request);

// What `simgpt screen` runs in its process: every candidate of the request checked statically and
// estimated, as JSON text (a row per candidate in the search space's order; plan() reads it).
std::string screen_candidates(const PlanRequest& request);

} // namespace simgpt
