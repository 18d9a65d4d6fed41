#include "simgpt/planner/planner.hpp"

#include "process/child_process.hpp"
#include "estimate/collective_cost.hpp"
#include "estimate/step_estimate.hpp"
#include "system/cluster.hpp"
#include "core/parallel.hpp"
#include "simgpt/system/platform_generator.hpp"
#include "simgpt/core/error.hpp"
#include "cost/compute_cost.hpp"
#include "execution/plan.hpp"
#include "execution/schedule.hpp"
#include "simgpt/simulate.hpp"
#include "memory/footprint.hpp"
#include "memory/static_peak.hpp"
#include "planner/step_bound.hpp"
#include "report/report_json.hpp"
#include "process/point_process.hpp"
#include "core/progress_bar.hpp"
#include "core/units.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>

#include <unistd.h>

namespace simgpt {

PlanObjective parse_objective(const std::string& text) {
  if (const std::optional<PlanObjective> objective = parse_enum<PlanObjective>(text))
    return *objective;
  throw InputError("--objective " + echo(text),
                   fmt::format("is not valid (expected {})", valid_enum_names<PlanObjective>(" or ")));
}

namespace {

// Tokens per second ranks as the step time does: every candidate trains the workload's global
// batch. Per GPU, the cost is the GPU-seconds a step takes.
double cost_of_step(double step_s, const PlanRow& row, PlanObjective objective) {
  return objective == PlanObjective::tokens_per_s_per_gpu ? step_s * static_cast<double>(row.gpus()) : step_s;
}

} // namespace

double plan_cost(const PlanRow& row, PlanObjective objective) {
  return cost_of_step(row.report->step_time_s, row, objective);
}

double plan_cost_lower_bound(const PlanRow& row, PlanObjective objective) {
  return cost_of_step(row.step_lower_bound_s, row, objective);
}

double plan_cost_estimate(const PlanRow& row, PlanObjective objective) {
  return cost_of_step(row.estimate_s, row, objective);
}

namespace {


// The GPU of every rank: two placements that give each rank the same GPU simulate the same step.
std::vector<int> rank_gpus(const ExecutionPlan& plan) {
  std::vector<int> gpus;
  gpus.reserve(static_cast<size_t>(plan.gpus()));
  for (int s = 0; s < plan.pp; ++s)
    for (int d = 0; d < plan.dp; ++d)
      for (int r = 0; r < plan.tp; ++r)
        gpus.push_back(plan.gpu(s, d, r));
  return gpus;
}

using CandidateKey =
    std::tuple<int64_t, int64_t, int64_t, int64_t, int, int, int64_t, int64_t, bool, int, int64_t, int64_t>;
CandidateKey key_of(const PlanCandidate& c) {
  return {c.dp,     c.tp,   c.pp, c.micro_batch, static_cast<int>(c.recompute), static_cast<int>(c.schedule),
          c.chunks, c.zero, c.sequence_parallel, static_cast<int>(c.order), c.ep, c.cp};
}

// The step graph takes from the schedule only each stage's order of passes (stage_schedule):
// a 1F1B candidate whose stages run their passes in GPipe's order (one micro-batch, say)
// simulates the same step as its GPipe twin. Returns the twin's index.
std::optional<int64_t> same_pass_order(const PlanRow& row, const ExecutionPlan& plan,
                                       const std::map<CandidateKey, int64_t>& index_of,
                                       const std::vector<PlanRow>& rows) {
  if (row.candidate.schedule != Schedule::one_f_one_b)
    return std::nullopt;
  PlanCandidate gpipe = row.candidate;
  gpipe.schedule = Schedule::gpipe;
  const auto twin = index_of.find(key_of(gpipe));
  if (twin == index_of.end() || rows[static_cast<size_t>(twin->second)].status == PlanStatus::invalid)
    return std::nullopt;
  for (int s = 0; s < plan.pp; ++s)
    if (stage_schedule(Schedule::gpipe, s, plan.pp, plan.micro_batches, 1, plan.flushes) !=
        stage_schedule(Schedule::one_f_one_b, s, plan.pp, plan.micro_batches, 1, plan.flushes))
      return std::nullopt;
  return twin->second;
}

void estimate_into(PlanRow& row, const StepEstimate& step) {
  row.estimate_s = step.step_time_s;
  row.estimate_contended = step.contended;
}

// Everything known before simulating: the workload's verdict, the bounds, the symmetry, and the
// estimate of each candidate left to simulate (every valid one when exhaustive).
void check_statically(std::vector<PlanRow>& rows, const Workload& base, const Profile& profile,
                      const ComputeCostModel& cost, const GpuSpec& gpu, bool exhaustive, bool progress,
                      const std::function<StepEstimate(const ExecutionPlan&)>& estimate) {
  ProgressBar bar(static_cast<int64_t>(rows.size()), progress);
  std::map<CandidateKey, int64_t> index_of;
  for (const PlanRow& row : rows)
    index_of.emplace(key_of(row.candidate), row.index);
  // Candidates that differ only in placement come one after another (the innermost key) and
  // share their plan but for the rank order.
  std::optional<ExecutionPlan> plan;
  std::optional<StaticMemory> memory;
  double bound = 0;
  std::string invalid;
  std::vector<std::pair<std::vector<int>, int64_t>> placements; // of the group's valid candidates
  for (size_t i = 0; i < rows.size(); ++i) {
    struct Advance { // when the row is done, however
      ProgressBar& bar;
      ~Advance() { bar.advance(); }
    } advance{bar};
    PlanRow& row = rows[i];
    PlanCandidate without_order = row.candidate;
    without_order.order = RankOrder::tp_dp_pp;
    const bool same_group = i > 0 && [&] {
      PlanCandidate before = rows[i - 1].candidate;
      before.order = RankOrder::tp_dp_pp;
      return before == without_order;
    }();
    if (!same_group) {
      placements.clear();
      plan.reset();
      invalid.clear();
      try {
        const Workload w = apply_plan(row.candidate, base, profile.partition);
        check_workload(w);
        if (const auto unsupported = unsupported_by(profile.supports, profile.name, w.parallelism, w.training,
                                                     profile.fp8_recast_per_use))
          throw InputError(w.source + ": " + unsupported->key, unsupported->why);
        plan = make_plan(w, cost, profile);
        with_offload(*plan, w, profile, gpu);
        memory = static_peak(*plan, w, profile, gpu);
        bound = step_time_lower_bound(*plan, profile);
      } catch (const InputError& e) {
        invalid = e.message();
        const std::string& where = e.where();
        const auto colon = where.rfind(": ");
        if (colon != std::string::npos) // name the key, not the workload file every row shares
          invalid = where.substr(colon + 2) + ": " + invalid;
      }
    }
    if (!plan) {
      row.status = PlanStatus::invalid;
      row.reason = invalid;
      continue;
    }
    plan->order = row.candidate.order;
    row.step_lower_bound_s = bound;
    row.static_peak_bytes = memory->stage.peak;
    row.status = PlanStatus::bound; // a survivor, until simulated
    if (exhaustive) {
      estimate_into(row, estimate(*plan));
      continue;
    }
    std::vector<int> gpus = rank_gpus(*plan);
    const auto twin = std::find_if(placements.begin(), placements.end(), [&](const auto& p) { return p.first == gpus; });
    if (twin != placements.end()) {
      row.status = PlanStatus::symmetric;
      row.reason = fmt::format("every rank on the same GPU as candidate {} (placement.order {})", twin->second,
                               plan_values(rows[static_cast<size_t>(twin->second)].candidate).back());
      continue;
    }
    placements.emplace_back(std::move(gpus), row.index);
    if (const std::optional<int64_t> twin = same_pass_order(row, *plan, index_of, rows)) {
      row.status = PlanStatus::symmetric;
      row.reason = fmt::format("every stage runs its passes in the same order as candidate {} (gpipe)", *twin);
      continue;
    }
    if (!memory->fits()) {
      row.status = PlanStatus::memory;
      row.reason = fmt::format("static peak {:.2f} GiB on stage {} exceeds the {:.2f} GiB usable", memory->stage.needed() / kBytesPerGiB,
                               memory->stage_index, memory->stage.usable / kBytesPerGiB);
      continue;
    }
    estimate_into(row, estimate(*plan));
  }
}

struct Simulator {
  const PlanRequest& request;
  const Workload& base;
  Partition framework_partition;
  PointProcess process;

  void simulate(PlanRow& row) const {
    std::vector<std::string> sets = request.sets;
    for (std::string& s : plan_overrides(row.candidate, base, framework_partition))
      sets.push_back(std::move(s));
    PointOutcome outcome = run_point(request.platform, request.workload, sets, process);
    row.reason = outcome.reason;
    if (outcome.status == "invalid") {
      row.status = PlanStatus::invalid;
    } else if (outcome.status == "failed") {
      row.status = PlanStatus::failed;
    } else {
      try {
        row.report = std::make_shared<const Report>(report_from_json(outcome.report));
        row.status = row.report->oom ? PlanStatus::oom : PlanStatus::ok;
      } catch (const std::exception& e) {
        row.status = PlanStatus::failed;
        row.reason = one_line(std::string("unreadable report: ") + e.what(), 1024);
      }
    }
  }
};

// The margin a candidate is pruned by: none when the search's "simulations" are estimates
// themselves (--fidelity estimate), which give each candidate the estimate it is ranked by; the
// request's where its estimate contended a link, which the replay may run faster; at most
// kUncontendedEstimateMargin elsewhere.
double margin_of(bool contended, const PlanRequest& request) {
  if (request.fidelity == "estimate")
    return 0;
  return contended ? request.margin : std::min(request.margin, kUncontendedEstimateMargin);
}
double margin_of(const PlanRow& row, const PlanRequest& request) { return margin_of(row.estimate_contended, request); }

// Why a candidate needs no simulation once `best` is the cost of the best plan simulated before
// it: its lower bound is no better (a proof), or its estimate is more than the margin above.
std::optional<PlanStatus> pruned_by(const PlanRow& row, double best, const PlanRequest& request) {
  if (request.exhaustive)
    return std::nullopt;
  if (plan_cost_lower_bound(row, request.objective) >= best)
    return PlanStatus::bound;
  if (plan_cost_estimate(row, request.objective) > (1 + margin_of(row, request)) * best)
    return PlanStatus::estimate;
  return std::nullopt;
}

constexpr double kNoPlan = std::numeric_limits<double>::infinity();

// Simulates `order` (row indices by estimate, then index) as a sequential search would: each
// candidate unless what was simulated before it, or a plan costing `known_best` simulated before
// the search, prunes it (pruned_by); past the first candidate whose estimate is above the widest
// margin, all after it are pruned too (their estimates are no lower). Workers take candidates in
// order and skip one only when the candidates before it already finished prune it, which the
// whole sequence then does too (its best is no worse), so the rows simulated do not depend on
// --jobs: a speculative simulation that the sequence prunes is discarded, the row left as it
// was. `pruned_row` is then told of each row the sequence prunes: how, and the best plan
// simulated before it (index -1: none).
using PrunedRow = std::function<void(PlanRow& row, PlanStatus how, int64_t best_index, double best)>;
void simulate_unless_pruned(std::vector<PlanRow>& rows, const std::vector<size_t>& order, const Simulator& sim,
                            const PlanRequest& request, double known_best, const PrunedRow& pruned_row) {
  const PlanObjective objective = request.objective;
  std::mutex mutex;
  std::vector<char> done(order.size(), 0);
  std::vector<PlanRow> before(order.size());        // the rows simulated, as they were
  std::vector<double> costs(order.size(), kNoPlan); // of the fitting results
  size_t cut_at = order.size();                     // a candidate known to be at or past the estimate's cut
  ProgressBar progress(static_cast<int64_t>(order.size()), request.progress);
  run_parallel(order.size(), request.jobs, [&](size_t i) {
    PlanRow& row = rows[order[i]];
    {
      const std::lock_guard lock(mutex);
      double best = known_best;
      for (size_t j = 0; j < i; ++j)
        best = std::min(best, costs[j]);
      const std::optional<PlanStatus> pruned = i >= cut_at ? PlanStatus::estimate : pruned_by(row, best, request);
      if (pruned) {
        if (plan_cost_estimate(row, objective) > (1 + margin_of(true, request)) * best)
          cut_at = std::min(cut_at, i);
        progress.advance();
        return;
      }
    }
    PlanRow result = row;
    sim.simulate(result);
    const std::lock_guard lock(mutex);
    before[i] = std::exchange(row, std::move(result));
    done[i] = 1;
    if (row.status == PlanStatus::ok)
      costs[i] = plan_cost(row, objective);
    progress.advance();
  });
  double best = known_best;
  int64_t best_index = -1;
  for (size_t i = 0; i < order.size(); ++i) {
    PlanRow& row = rows[order[i]];
    if (const std::optional<PlanStatus> pruned = pruned_by(row, best, request)) {
      if (done[i])
        row = std::move(before[i]);
      pruned_row(row, *pruned, best_index, best);
      continue;
    }
    if (!done[i])
      throw std::logic_error("plan: a candidate the search does not prune was not simulated");
    if (row.status == PlanStatus::ok && plan_cost(row, objective) < best) {
      best = plan_cost(row, objective);
      best_index = row.index;
    }
  }
}

// The search: simulate_unless_pruned over every candidate, then each pruned row says what pruned it.
void simulate_in_estimate_order(std::vector<PlanRow>& rows, const std::vector<size_t>& order, const Simulator& sim,
                                const PlanRequest& request) {
  const PlanObjective objective = request.objective;
  simulate_unless_pruned(rows, order, sim, request, kNoPlan,
                         [&](PlanRow& row, PlanStatus how, int64_t best_index, double best) {
                           row.status = how;
                           row.reason =
                               how == PlanStatus::bound
                                   ? fmt::format("lower bound {:.4g} s is no better than candidate {}'s simulated {:.4g} s",
                                                 plan_cost_lower_bound(row, objective), best_index, best)
                                   : fmt::format("estimated {:.4g} s, more than {:g}% above candidate {}'s simulated {:.4g} s",
                                                 plan_cost_estimate(row, objective), 100 * margin_of(row, request),
                                                 best_index, best);
                         });
}

// --set of a plan: keys the search does not cover (a searched key is restricted with --search).
Overrides fixed_overrides(const std::vector<std::string>& sets) {
  Overrides overrides;
  const std::vector<std::string>& keys = plan_keys();
  for (const std::string& s : sets) {
    overrides.push_back(parse_override(s));
    check_override_key(overrides.back().first);
    if (std::find(keys.begin(), keys.end(), overrides.back().first) != keys.end() ||
        overrides.back().first == "placement.gpus")
      throw InputError("--set " + echo(overrides.back().first),
                       "is a key the planner searches: restrict it with --search KEY=V1,V2,... instead");
  }
  return overrides;
}

// The simulated plans that fit, best first by the objective.
void rank_simulated(PlanResult& result, PlanObjective objective) {
  // Plans that predict the same step and memory are one answer: the first of them is ranked.
  std::map<std::pair<double, double>, int64_t> seen; // (step time, peak memory) -> candidate
  for (PlanRow& row : result.rows) {
    if (row.status != PlanStatus::ok)
      continue;
    const auto [first, fresh] = seen.try_emplace({row.report->step_time_s, row.report->peak_memory_bytes}, row.index);
    if (!fresh) {
      row.status = PlanStatus::equivalent;
      row.reason = fmt::format("the same step time and peak memory as candidate {}", first->second);
    }
  }
  result.ranked.clear();
  for (const PlanRow& row : result.rows)
    if (row.status == PlanStatus::ok)
      result.ranked.push_back(row.index);
  std::stable_sort(result.ranked.begin(), result.ranked.end(), [&](int64_t a, int64_t b) {
    return plan_cost(result.rows[static_cast<size_t>(a)], objective) <
           plan_cost(result.rows[static_cast<size_t>(b)], objective);
  });
}

// The winner's neighbours that the bound or the estimate pruned, simulated to say what each key
// costs: in each key's group, those that can still be its best (next best to the winner), found as
// the search finds the winner (simulate_unless_pruned, from the best neighbour the search
// simulated), so a neighbour estimated well above one already simulated is not simulated.
void simulate_pruned_neighbours(PlanResult& result, const Simulator& sim, const PlanRequest& request) {
  const PlanCandidate winner = result.rows[static_cast<size_t>(result.ranked.front())].candidate;
  for (size_t group = 0; group < kNeighbourGroups; ++group) {
    std::vector<size_t> order;
    double best = kNoPlan;
    for (const PlanRow& row : result.rows) {
      if (!neighbours_in(winner, row.candidate, group))
        continue;
      if (row.status == PlanStatus::ok)
        best = std::min(best, plan_cost(row, request.objective));
      else if (row.status == PlanStatus::bound || row.status == PlanStatus::estimate)
        order.push_back(static_cast<size_t>(row.index));
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return plan_cost_estimate(result.rows[a], request.objective) <
             plan_cost_estimate(result.rows[b], request.objective);
    });
    simulate_unless_pruned(result.rows, order, sim, request, best, [](PlanRow&, PlanStatus, int64_t, double) {});
  }
}

} // namespace

namespace {

// The search's inputs, loaded alike by plan() and by its screen process.
struct PlanSetup {
  DataPaths data;
  Platform platform_file;
  PlatformGpus platform;
  Workload base;
  Profile profile;
  GpuCatalog catalog;
  std::vector<PlanCandidate> candidates;

  // In the order the inputs' errors are reported: --set, the platform, the workload, the data.
  explicit PlanSetup(const PlanRequest& request) : data(data_paths_at(request.data_folders)) {
    const Overrides overrides = fixed_overrides(request.sets);
    platform_file = Platform::load(request.platform);
    platform = read_platform_gpus(request.platform);
    base = load_workload(request.workload, overrides);
    // The search ranks plans by their closed-form estimates, which price every GPU and route
    // alike, and places each from the platform's first GPU.
    if (base.conditions.any() || base.conditions.random_fraction_given)
      throw InputError(base.source + ": conditions",
                       "the plan search ranks plans on a cluster without conditions: compare plans under conditions "
                       "with simgpt sweep (--grid over the parallelism keys, --draws for random ones)");
    if (base.placement.first_gpu > 0)
      throw InputError(base.source + ": placement.first_gpu",
                       "the plan search places every plan from the platform's first GPU: leave it out");
    profile = load_workload_profile(base, data);
    catalog = load_catalog(data);
    gpu(request); // a platform of GPUs the catalog does not know is refused before the search
    SearchSpace space = request.space;
    space.set_gpus(request.gpus.empty() ? std::vector<int64_t>{platform.count}
                                        : parse_gpus(request.gpus, platform.count));
    space.check_expert_degrees(base);
    candidates = space.candidates(base, profile.supports);
    if (candidates.empty())
      throw InputError("--search", fmt::format("leaves no candidate plan of {} GPUs", fmt::join(space.gpus(), ", ")));
  }
  const GpuSpec& gpu(const PlanRequest& request) const {
    return catalog.at(platform.model, request.platform + ": gpu-0's gpu property");
  }
};

std::vector<PlanRow> rows_of(const std::vector<PlanCandidate>& candidates) {
  std::vector<PlanRow> rows(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    rows[i].index = static_cast<int64_t>(i);
    rows[i].candidate = candidates[i];
  }
  return rows;
}

// The request as `simgpt screen` takes it on its command line.
std::vector<std::string> screen_arguments(const PlanRequest& request) {
  std::vector<std::string> args{"simgpt", "screen", "--platform", request.platform, "--workload", request.workload,
                                "--parent-pid", std::to_string(::getpid())};
  for (const std::string& folder : request.data_folders)
    args.insert(args.end(), {"--data", folder});
  for (const std::string& set : request.sets)
    args.insert(args.end(), {"--set", set});
  for (const std::string& search : request.space.restrictions())
    args.insert(args.end(), {"--search", search});
  if (!request.gpus.empty())
    args.insert(args.end(), {"--gpus", request.gpus});
  if (request.exhaustive)
    args.emplace_back("--exhaustive");
  if (request.progress)
    args.emplace_back("--progress");
  return args;
}

// Each row's screening from `simgpt screen`'s JSON: [status, reason, bound, peak, estimate, contended].
void read_screening(std::vector<PlanRow>& rows, const nlohmann::ordered_json& screened) {
  if (!screened.is_array() || screened.size() != rows.size())
    throw std::runtime_error("simgpt screen: expected one row per candidate");
  for (size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::ordered_json& r = screened[i];
    const std::optional<PlanStatus> status = parse_enum<PlanStatus>(r.at(0).get<std::string>());
    if (!status)
      throw std::runtime_error("simgpt screen: an unknown status");
    rows[i].status = *status;
    rows[i].reason = r.at(1).get<std::string>();
    rows[i].step_lower_bound_s = r.at(2).get<double>();
    rows[i].static_peak_bytes = r.at(3).get<double>();
    rows[i].estimate_s = r.at(4).get<double>();
    rows[i].estimate_contended = r.at(5).get<bool>();
  }
}

} // namespace

std::string screen_candidates(const PlanRequest& request) {
  const PlanSetup setup(request);
  const GpuSpec& gpu = setup.gpu(request);
  const ComputeCostModel cost(gpu, setup.profile, setup.base.training, setup.base.source);
  std::vector<PlanRow> rows = rows_of(setup.candidates);
  // One cluster for every candidate: their collectives and transfers over the same links are
  // priced once (CollectiveCosts keeps them).
  const Cluster cluster(setup.platform_file, setup.catalog, setup.base.network, setup.profile);
  CollectiveCosts costs(setup.profile, cluster);
  check_statically(rows, setup.base, setup.profile, cost, gpu, request.exhaustive, request.progress,
                   [&](const ExecutionPlan& plan) {
    return estimate_step(plan, setup.profile, costs);
  });
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const PlanRow& row : rows)
    out.push_back({name_of(row.status), row.reason, row.step_lower_bound_s, row.static_peak_bytes, row.estimate_s,
                   row.estimate_contended});
  return out.dump();
}

PlanResult plan(const PlanRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  const PlanSetup setup(request);
  PlanResult result;
  result.platform = request.platform;
  result.workload = request.workload;
  result.gpu_model = setup.platform.model;
  result.platform_gpus = setup.platform.count;
  result.global_batch = setup.base.training.global_batch;
  result.seq_len = setup.base.model.seq_len;
  result.objective = request.objective;
  result.rows = rows_of(setup.candidates);
  // The estimates load the platform in SimGrid, one engine a process: in a process of their own.
  const std::string executable = simgpt_executable(request.executable);
  // The screening is the search's own step, not a candidate's simulation: past --timeout the
  // search cannot go on, and says so as a limit (a candidate past it is a failed row instead).
  try {
    read_screening(result.rows, run_simgpt_child(executable, screen_arguments(request), request.timeout_s));
  } catch (const ProcessTimeout&) {
    throw LimitError("--timeout", fmt::format("the screening of {} candidate plans ran past --timeout {:g} s (give it "
                                              "more)",
                                              result.rows.size(), request.timeout_s));
  }

  std::vector<size_t> order;
  for (const PlanRow& row : result.rows)
    if (row.status == PlanStatus::bound)
      order.push_back(static_cast<size_t>(row.index));
  if (request.exhaustive && order.size() > kMaxExhaustiveSimulations)
    throw LimitError("--exhaustive", fmt::format("{} of the {} candidate plans are valid and would each be simulated, "
                                                 "more than {}; without --exhaustive the search simulates only those "
                                                 "that fit and that no bound or estimate rules out, or narrow it with "
                                                 "--search",
                                                 order.size(), result.rows.size(), kMaxExhaustiveSimulations));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return plan_cost_estimate(result.rows[a], request.objective) <
           plan_cost_estimate(result.rows[b], request.objective);
  });
  const Simulator sim{request, setup.base, setup.profile.partition,
                      PointProcess{executable, setup.data.folders, request.timeout_s, request.fidelity,
                                   request.memory_limit_bytes}};
  simulate_in_estimate_order(result.rows, order, sim, request);

  rank_simulated(result, request.objective);
  if (request.neighbours && !result.ranked.empty()) {
    simulate_pruned_neighbours(result, sim, request);
    rank_simulated(result, request.objective);
  }
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

} // namespace simgpt
