#include "validation/cases.hpp"

#include "simgpt/framework/profile.hpp"

#include <algorithm>
#include <filesystem>

namespace simgpt {

std::set<std::string> calibration_rows(const DataPaths& data) {
  std::set<std::string> rows;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(data.profiles(), ec))
    if (entry.path().extension() == ".yaml") {
      Profile p = load_profile(data.profiles(), entry.path().stem().string(), entry.path().string());
      rows.insert(p.calibration_rows.begin(), p.calibration_rows.end());
    }
  return rows;
}

namespace {

// One metric of one row: measured against predicted, or why it was not compared.
CaseResult row_case(const RowRun& run, const std::string& metric, std::optional<double> measured,
                    std::optional<double> predicted, const std::set<std::string>& calibration) {
  const ValidationRow& row = *run.row;
  CaseResult c;
  c.table = run.table->id;
  c.id = run.table->id + "/" + row.id;
  c.group = row.row;
  c.metric = metric;
  c.flags = row.flags;
  if ((metric == primary_metric(*run.table) && calibration.contains(c.id)) ||
      (metric == "oom" && calibration.contains(c.id + ":oom")) ||
      (metric == "peak_mem_gb" && calibration.contains(c.id + ":memory")))
    c.flags.push_back("calibration");
  c.measured = measured;
  if (row.flagged("questionable") || row.flagged("not_reproducible")) {
    c.status = "skipped";
    c.message = row.flagged("questionable") ? "flagged questionable by the authors" : "plan not reproducible";
  } else if (!run.result) {
    c.status = "not_simulated";
    c.message = run.error;
  } else {
    c.predicted = predicted;
    c.status = "compared";
    if (metric.rfind("count:", 0) == 0) // a measured count may be zero
      c.error_pct = *measured > 0 ? 100 * (*predicted - *measured) / *measured : (*predicted > 0 ? 100 : 0);
    else if (metric == "oom")
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
  c.metric = "estimator_step_time";
  c.flags = row.flags;
  c.measured = row.measured.at("step_time_s");
  c.predicted = row.measured.at("estimated_step_time_s");
  c.error_pct = 100 * (*c.predicted - *c.measured) / *c.measured;
  c.status = "compared";
  return c;
}

// Collectives per step of `kind` on GPU 0 (0 when it runs none).
double collectives_per_gpu(const Report& r, const std::string& kind) {
  auto c = std::find_if(r.collectives.begin(), r.collectives.end(),
                        [&](const Report::Collectives& x) { return x.kind == kind; });
  return c == r.collectives.end() ? 0.0 : static_cast<double>(c->per_gpu);
}

} // namespace

void add_row_cases(std::vector<CaseResult>& cases, const RowRun& run, const std::set<std::string>& calibration) {
  const ValidationRow& row = *run.row;
  const auto& r = run.result;
  auto value = [&](const char* key) { return r ? std::optional<double>(r->metric(key)) : std::nullopt; };
  auto add = [&](const std::string& metric, double measured, std::optional<double> predicted) {
    cases.push_back(row_case(run, metric, measured, predicted, calibration));
  };
  const char* primary = primary_metric(*run.table);
  if (auto m = row.measured.find(primary); m != row.measured.end())
    add(primary, m->second, value(primary));
  if (auto m = row.measured.find("peak_mem_gb"); m != row.measured.end())
    add("peak_mem_gb", m->second, value(run.table->peak_memory == "allocated" ? "peak_allocated_gib" : "peak_memory_gib"));
  // Beside the counts the benchmark reports (for comparison only: frameworks count fused or
  // split collectives differently).
  for (const char* kind : {"allreduce", "allgather", "reducescatter"})
    if (auto m = row.measured.find(kind); m != row.measured.end())
      add(std::string("count:") + kind, m->second,
          r && r->report ? std::optional<double>(collectives_per_gpu(*r->report, kind)) : std::nullopt);
  if (row.flagged("estimator_reference") && row.measured.contains("step_time_s") &&
      row.measured.contains("estimated_step_time_s"))
    cases.push_back(estimator_case(run));
  // A run that finished did not run out of memory; a failed one did.
  if (run.table->kind == "workload" && (row.oom || row.measured.contains("step_time_s")))
    add("oom", row.oom ? 1.0 : 0.0, r ? std::optional<double>(r->report->oom ? 1.0 : 0.0) : std::nullopt);
}

} // namespace simgpt
