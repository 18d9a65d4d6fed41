#include "validation/cases.hpp"

#include "simgpt/framework/profile.hpp"
#include "validation/names.hpp"

#include <algorithm>
#include <filesystem>

namespace simgpt {

std::set<std::string> calibration_rows(const DataPaths& data) {
  std::set<std::string> rows;
  for (const std::string& file : data.list("profiles", ".yaml")) {
    const Profile p = load_profile(data.profiles(), std::filesystem::path(file).stem().string(), file);
    rows.insert(p.calibration_rows.begin(), p.calibration_rows.end());
  }
  return rows;
}

namespace {

bool is_count(CaseMetric metric) {
  return metric == CaseMetric::allreduce_count || metric == CaseMetric::allgather_count ||
         metric == CaseMetric::reducescatter_count;
}

// One metric of one row: measured against predicted, or why it was not compared.
CaseResult row_case(const RowRun& run, CaseMetric metric, std::optional<double> measured,
                    std::optional<double> predicted, const std::set<std::string>& calibration) {
  const ValidationRow& row = *run.row;
  CaseResult c;
  c.table = run.table->id;
  c.id = run.table->id + "/" + row.id;
  c.group = row.row;
  c.metric = metric;
  c.flags = row.flags;
  if (((metric == primary_metric(*run.table) || metric == CaseMetric::estimate_step_time) && calibration.contains(c.id)) ||
      (metric == CaseMetric::oom && calibration.contains(c.id + ":oom")) ||
      (metric == CaseMetric::peak_memory && calibration.contains(c.id + ":memory")))
    c.flags.push_back("calibration");
  c.measured = measured;
  if (row.flagged("questionable") || row.flagged("not_reproducible")) {
    c.status = CaseStatus::skipped;
    c.message = row.flagged("questionable") ? "flagged questionable by the authors" : "plan not reproducible";
  } else if (!run.result) {
    c.status = CaseStatus::not_simulated;
    c.message = run.error;
  } else {
    c.predicted = predicted;
    c.status = CaseStatus::compared;
    if (is_count(metric)) // a measured count may be zero
      c.error_pct = *measured > 0 ? 100 * (*predicted - *measured) / *measured : (*predicted > 0 ? 100 : 0);
    else if (metric == CaseMetric::oom)
      c.error_pct = *measured == *predicted ? 0 : 100;
    else
      c.error_pct = 100 * (*predicted - *measured) / *measured;
  }
  return c;
}

// The seed's own estimator against its runs: a reference for a profile-based estimator's error.
CaseResult estimator_case(const RowRun& run) {
  const ValidationRow& row = *run.row;
  CaseResult c;
  c.table = run.table->id;
  c.id = run.table->id + "/" + row.id;
  c.metric = CaseMetric::estimator_step_time;
  c.flags = row.flags;
  c.measured = row.measured.at("step_time_s");
  c.predicted = row.measured.at("estimated_step_time_s");
  c.error_pct = 100 * (*c.predicted - *c.measured) / *c.measured;
  c.status = CaseStatus::compared;
  return c;
}

// Collectives per step of `kind` on GPU 0 (0 when it runs none).
double collectives_per_gpu(const Report& r, const std::string& kind) {
  auto c = std::find_if(r.collectives.begin(), r.collectives.end(),
                        [&](const Report::Collectives& x) { return x.kind == kind; });
  return c == r.collectives.end() ? 0.0 : static_cast<double>(c->per_gpu);
}

// A count metric's collective, as a table measures it and the report names its kind.
struct CountedCollective {
  CaseMetric metric;
  const char* kind;
};
constexpr CountedCollective kCountedCollectives[] = {{CaseMetric::allreduce_count, "allreduce"},
                                                     {CaseMetric::allgather_count, "allgather"},
                                                     {CaseMetric::reducescatter_count, "reducescatter"}};

} // namespace

void add_row_cases(std::vector<CaseResult>& cases, const RowRun& run, const std::set<std::string>& calibration) {
  const ValidationRow& row = *run.row;
  const auto& r = run.result;
  auto value = [&](CaseMetric metric) {
    return r ? std::optional<double>(r->metric(predicted_metric(metric, run.table->peak_memory))) : std::nullopt;
  };
  auto add = [&](CaseMetric metric, double measured, std::optional<double> predicted) {
    cases.push_back(row_case(run, metric, measured, predicted, calibration));
  };
  const CaseMetric primary = primary_metric(*run.table);
  if (auto m = row.measured.find(to_string(primary)); m != row.measured.end())
    add(primary, m->second, value(primary));
  if (auto m = row.measured.find("peak_mem_gb"); m != row.measured.end())
    add(CaseMetric::peak_memory, m->second, value(CaseMetric::peak_memory));
  // Beside the counts the benchmark reports (for comparison only: frameworks count fused or
  // split collectives differently).
  for (const CountedCollective& counted : kCountedCollectives)
    if (auto m = row.measured.find(counted.kind); m != row.measured.end())
      add(counted.metric, m->second,
          r && r->report ? std::optional<double>(collectives_per_gpu(*r->report, counted.kind)) : std::nullopt);
  // The closed-form estimate the replay's process computed beside it.
  if (const auto m = row.measured.find("step_time_s"); m != row.measured.end() && r && r->report &&
                                                       r->report->estimate)
  {
    add(CaseMetric::estimate_step_time, m->second, r->report->estimate->step_time_s);
    if (r->report->estimate->contended)
      cases.back().flags.push_back("estimate_contended");
  }
  if (row.flagged("estimator_reference") && row.measured.contains("step_time_s") &&
      row.measured.contains("estimated_step_time_s"))
    cases.push_back(estimator_case(run));
  // A run that finished did not run out of memory; a failed one did.
  if (run.table->kind == TableKind::workload && (row.oom || row.measured.contains("step_time_s")))
    add(CaseMetric::oom, row.oom ? 1.0 : 0.0, r ? std::optional<double>(r->report->oom ? 1.0 : 0.0) : std::nullopt);
}

} // namespace simgpt
