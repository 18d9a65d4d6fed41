#include "simgpt/study/draws.hpp"

#include "core/parallel.hpp"
#include "core/progress_bar.hpp"
#include "process/child_process.hpp"
#include "process/point_process.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"
#include "study/sweep_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace simgpt {

double percentile(std::vector<double> values, double p) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100 * static_cast<double>(values.size() - 1);
  const auto below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (rank - static_cast<double>(below)) * (values[above] - values[below]);
}

namespace {

PointOutcome run_one(const DrawRequest& r, const std::string& executable, std::vector<std::string> sets) {
  return run_point(r.platform, r.workload, sets,
                   PointProcess{executable, r.data_folders, r.timeout_s, r.fidelity, 0});
}

// A number at a dotted path of a report's JSON, 0 where there is none.
double number_at(const nlohmann::ordered_json& report, const std::string& path) {
  const nlohmann::ordered_json* v = report_value(report, path);
  return v != nullptr && v->is_number() ? v->get<double>() : 0;
}

} // namespace

DrawSummary run_draws(const DrawRequest& r) {
  if (r.draws < 1 || r.draws > kMaxDraws)
    throw InputError("--draws", fmt::format("{} is out of range (expected 1 to {})", r.draws, kMaxDraws));
  const Workload w = load_workload(r.workload, parse_overrides(r.sets));
  if (w.conditions.random_fraction <= 0)
    throw InputError("--draws", fmt::format("{} draws no slow GPUs at random: set conditions.random_fraction (and "
                                            "conditions.random_slowdown) for a Monte Carlo study",
                                            w.source));
  DrawSummary s;
  s.first_seed = w.conditions.seed;
  s.draws.resize(static_cast<size_t>(r.draws));
  const std::string executable = simgpt_executable(r.executable); // once, before any thread starts
  std::mutex mutex;
  ProgressBar progress(r.draws + 1, r.progress);
  PointOutcome baseline;
  // The baseline first (index 0), then the draws: all `jobs` at a time.
  run_parallel(static_cast<size_t>(r.draws) + 1, std::max(1u, r.jobs), [&](size_t i) {
    std::vector<std::string> sets = r.sets;
    if (i == 0) {
      sets.push_back("conditions.random_fraction=0");
      PointOutcome out = run_one(r, executable, sets);
      const std::lock_guard lock(mutex);
      baseline = std::move(out);
      progress.advance();
      return;
    }
    const uint64_t seed = s.first_seed + (i - 1);
    sets.push_back(fmt::format("conditions.seed={}", seed));
    PointOutcome out = run_one(r, executable, sets);
    DrawSummary::Draw d;
    d.seed = seed;
    d.status = out.status;
    d.reason = out.reason;
    if (out.status == "ok" || out.status == "oom") {
      d.step_time_s = number_at(out.report, "step_time_s");
      d.path_cost_s = number_at(out.report, "conditions.path_cost_s");
    }
    const std::lock_guard lock(mutex);
    s.draws[i - 1] = std::move(d);
    progress.advance();
  });
  std::vector<double> times;
  for (const DrawSummary::Draw& d : s.draws)
    if (d.status == "ok" || d.status == "oom")
      times.push_back(d.step_time_s);
  s.ok = static_cast<int>(times.size());
  if (times.empty())
    throw InputError(r.workload, fmt::format("no draw could be simulated; the first (seed {}): {}", s.first_seed,
                                             s.draws.front().reason));
  s.median_s = percentile(times, 50);
  s.p90_s = percentile(times, 90);
  s.p99_s = percentile(times, 99);
  s.min_s = *std::min_element(times.begin(), times.end());
  s.max_s = *std::max_element(times.begin(), times.end());
  s.baseline_status = baseline.status;
  if (baseline.status == "ok" || baseline.status == "oom")
    s.baseline_s = number_at(baseline.report, "step_time_s");
  // The median draw's report again, from its own process (reports are not kept for every draw).
  const DrawSummary::Draw* nearest = nullptr;
  for (const DrawSummary::Draw& d : s.draws)
    if ((d.status == "ok" || d.status == "oom") &&
        (nearest == nullptr || std::abs(d.step_time_s - s.median_s) < std::abs(nearest->step_time_s - s.median_s)))
      nearest = &d;
  s.median_seed = nearest->seed;
  std::vector<std::string> sets = r.sets;
  sets.push_back(fmt::format("conditions.seed={}", nearest->seed));
  const PointOutcome median = run_one(r, executable, sets);
  if (median.status == "ok" || median.status == "oom")
    s.median_report = median.report;
  return s;
}

std::string DrawSummary::to_text(const std::string& title) const {
  const auto pct = [this](double t) { return baseline_s > 0 ? fmt::format("{:+.1f}%", 100 * (t / baseline_s - 1)) : ""; };
  std::string out = fmt::format("simgpt: {}: {} seeded draws (conditions.seed {} to {})\n", title, draws.size(),
                                first_seed, first_seed + draws.size() - 1);
  out += fmt::format("  step time   median {:.3f} s, 90th percentile {:.3f} s, 99th {:.3f} s (min {:.3f}, max {:.3f}; "
                     "percentiles linear between ranks)\n",
                     median_s, p90_s, p99_s, min_s, max_s);
  if (baseline_s > 0)
    out += fmt::format("  baseline    {:.3f} s with no GPU drawn: the median draw {}, the 90th percentile {}, the 99th "
                       "{}\n",
                       baseline_s, pct(median_s), pct(p90_s), pct(p99_s));
  else
    out += fmt::format("  baseline    {} (no GPU drawn)\n", baseline_status);
  if (ok < static_cast<int>(draws.size())) {
    const auto bad = std::find_if(draws.begin(), draws.end(), [](const Draw& d) { return d.status != "ok" && d.status != "oom"; });
    out += fmt::format("  not run     {} of the draws; seed {}: {}\n", draws.size() - static_cast<size_t>(ok), bad->seed,
                       bad->reason);
  }
  if (median_report.is_object() && median_report.contains("conditions")) {
    const auto& c = median_report["conditions"];
    out += fmt::format("  median draw seed {}: {} GPUs slowed, {:.3f} s of the critical path's compute their slowdowns\n",
                       median_seed,
                       c.contains("gpus") ? c["gpus"].size() : 0, number_at(median_report, "conditions.path_cost_s"));
  }
  constexpr size_t kListed = 20; // more: --format json lists each
  if (draws.size() > kListed)
    return out + fmt::format("  each draw   --format json lists the {} draws\n", draws.size());
  out += fmt::format("  {:>6} {:>12} {:>16}\n", "seed", "step time s", "slowdowns on path");
  for (const Draw& d : draws)
    out += d.status == "ok" || d.status == "oom"
               ? fmt::format("  {:>6} {:>12.3f} {:>16.3f}{}\n", d.seed, d.step_time_s, d.path_cost_s,
                             d.status == "oom" ? "  OOM" : "")
               : fmt::format("  {:>6} {:>12} {:>16}  {}\n", d.seed, d.status, "-", d.reason);
  return out;
}

nlohmann::ordered_json DrawSummary::to_json() const {
  nlohmann::ordered_json j;
  j["draws"] = draws.size();
  j["first_seed"] = first_seed;
  j["simulated"] = ok;
  j["step_time_s"] = {{"median", median_s}, {"p90", p90_s}, {"p99", p99_s}, {"min", min_s}, {"max", max_s}};
  j["baseline"] = {{"status", baseline_status}, {"step_time_s", baseline_s}};
  auto& each = j["each"] = nlohmann::ordered_json::array();
  for (const Draw& d : draws) {
    nlohmann::ordered_json e{{"seed", d.seed}, {"status", d.status}};
    if (d.status == "ok" || d.status == "oom") {
      e["step_time_s"] = d.step_time_s;
      e["path_cost_s"] = d.path_cost_s;
    } else {
      e["reason"] = d.reason;
    }
    each.push_back(std::move(e));
  }
  j["median_report"] = median_report;
  return j;
}

} // namespace simgpt
