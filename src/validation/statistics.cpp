#include "validation/statistics.hpp"

#include "validation/names.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace simgpt {
namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
      ++j;
    for (size_t k = i; k <= j; ++k)
      r[order[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    i = j + 1;
  }
  return r;
}

TableSummary summarize(const std::string& name, const std::vector<const CaseResult*>& cases) {
  TableSummary s;
  s.table = name;
  s.rows = static_cast<int>(cases.size());
  std::vector<double> errors, measured, predicted;
  for (const CaseResult* c : cases)
    if (c->status == CaseStatus::compared) {
      errors.push_back(std::fabs(c->error_pct));
      measured.push_back(*c->measured);
      predicted.push_back(*c->predicted);
    }
  s.compared = static_cast<int>(errors.size());
  if (errors.empty())
    return s;
  std::vector<double> sorted = errors;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.median_abs = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  s.mean_abs = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  s.max_abs = sorted.back();
  s.spearman = spearman(measured, predicted);
  return s;
}

bool is_flagged(const CaseResult& c, const char* flag) {
  return std::find(c.flags.begin(), c.flags.end(), flag) != c.flags.end();
}

// The summary a case is counted in: its table's for the primary metric, else the table's with
// the metric's suffix; summaries are ordered primary first, then memory, oom, estimator, counts.
struct SummaryGroup {
  const char* suffix;
  int rank;
};

SummaryGroup summary_group(CaseMetric metric) {
  switch (metric) {
  case CaseMetric::step_time:
  case CaseMetric::transfer: return {"", 0};
  case CaseMetric::peak_memory: return {":memory", 1};
  case CaseMetric::oom: return {":oom", 2};
  case CaseMetric::estimator_step_time: return {":estimator (reference)", 3};
  case CaseMetric::allreduce_count:
  case CaseMetric::allgather_count:
  case CaseMetric::reducescatter_count: return {":collective counts", 4};
  case CaseMetric::estimate_step_time: return {kEstimateSuffix, 5};
  }
  throw std::logic_error("a case metric without a summary");
}

} // namespace

std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 3)
    return std::nullopt;
  std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (va == 0 || vb == 0)
    return std::nullopt;
  return cov / std::sqrt(va * vb);
}

// Per-table statistics over held-out rows (a row a profile was fitted on says nothing of how the
// fit transfers, so the gate's thresholds judge the others), and step time and memory over
// calibration and held-out rows.
void summarize_cases(ValidationReport& report) {
  std::vector<std::pair<int, std::string>> order; // (rank, summary) as first met
  std::map<std::string, std::vector<const CaseResult*>> by_name;
  std::vector<const CaseResult*> fitted, held_out, fitted_transfer, held_out_transfer, fitted_memory, held_out_memory,
      held_out_estimate;
  std::map<std::string, const CaseResult*> replayed; // step-time cases by row
  for (const CaseResult& c : report.cases)
    if (c.metric == CaseMetric::step_time && c.status == CaseStatus::compared)
      replayed.emplace(c.id, &c);
  std::vector<CaseResult> against_replay; // each estimate with its row's replayed step as "measured"
  for (const CaseResult& c : report.cases) {
    const SummaryGroup group = summary_group(c.metric);
    const std::string name = c.table + group.suffix;
    auto [table, added] = by_name.try_emplace(name);
    if (added)
      order.emplace_back(group.rank, name);
    const bool fitted_on = is_flagged(c, "calibration");
    if (!fitted_on)
      table->second.push_back(&c);
    if (c.metric == CaseMetric::step_time)
      (fitted_on ? fitted : held_out).push_back(&c);
    if (c.metric == CaseMetric::transfer) // a transfer is not a step: reported apart
      (fitted_on ? fitted_transfer : held_out_transfer).push_back(&c);
    if (c.metric == CaseMetric::peak_memory)
      (fitted_on ? fitted_memory : held_out_memory).push_back(&c);
    if (c.metric == CaseMetric::estimate_step_time && !fitted_on)
      held_out_estimate.push_back(&c);
    if (const auto replay = replayed.find(c.id);
        c.metric == CaseMetric::estimate_step_time && c.status == CaseStatus::compared && replay != replayed.end()) {
      CaseResult& d = against_replay.emplace_back(c);
      d.measured = replay->second->predicted;
      d.error_pct = 100 * (*d.predicted - *d.measured) / *d.measured;
    }
  }
  std::vector<const CaseResult*> estimate_replay;
  for (const CaseResult& c : against_replay)
    estimate_replay.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, name] : order)
    report.tables.push_back(summarize(name, by_name[name]));
  report.calibration = summarize("calibration rows", fitted);
  report.held_out = summarize("held-out rows", held_out);
  report.calibration_transfer = summarize("calibration rows:transfer", fitted_transfer);
  report.held_out_transfer = summarize("held-out rows:transfer", held_out_transfer);
  report.calibration_memory = summarize("calibration rows:memory", fitted_memory);
  report.held_out_memory = summarize("held-out rows:memory", held_out_memory);
  report.held_out_estimate = summarize("held-out rows:estimate", held_out_estimate);
  report.estimate_vs_replay = summarize("estimate against replay", estimate_replay);
}

std::vector<FastestCheck> fastest_per_row(const std::vector<CaseResult>& cases) {
  std::vector<std::pair<std::string, std::string>> order; // (table, group) as first seen
  std::map<std::pair<std::string, std::string>, std::vector<const CaseResult*>> groups;
  std::set<std::string> predicted_oom; // rows whose simulation does not fit: the planner never picks them
  for (const CaseResult& c : cases)
    if (c.metric == CaseMetric::oom && c.predicted && *c.predicted > 0.5)
      predicted_oom.insert(c.id);
  for (const CaseResult& c : cases) {
    if (c.metric != CaseMetric::step_time || c.status != CaseStatus::compared || c.group.empty())
      continue;
    auto key = std::make_pair(c.table, c.group);
    if (!groups.contains(key))
      order.push_back(key);
    groups[key].push_back(&c);
  }
  std::vector<FastestCheck> checks;
  for (const auto& key : order) {
    const auto& g = groups[key];
    if (g.size() < 2)
      continue;
    auto by = [](auto field) {
      return [field](const CaseResult* a, const CaseResult* b) { return *(a->*field) < *(b->*field); };
    };
    const CaseResult* measured = *std::min_element(g.begin(), g.end(), by(&CaseResult::measured));
    const CaseResult* predicted = *std::min_element(g.begin(), g.end(), by(&CaseResult::predicted));
    FastestCheck f;
    f.table = key.first;
    f.group = key.second;
    f.configurations = static_cast<int>(g.size());
    f.measured_fastest = measured->id.substr(f.table.size() + 1);
    f.predicted_fastest = predicted->id.substr(f.table.size() + 1);
    f.measured_regret_pct = 100 * (*predicted->measured / *measured->measured - 1);
    const CaseResult* pick = nullptr;
    for (const CaseResult* c : g)
      if (!predicted_oom.contains(c->id) && (pick == nullptr || *c->predicted < *pick->predicted))
        pick = c;
    if (pick != nullptr) {
      f.planner_pick = pick->id.substr(f.table.size() + 1);
      f.planner_regret_pct = 100 * (*pick->measured / *measured->measured - 1);
    }
    checks.push_back(f);
  }
  return checks;
}

} // namespace simgpt
