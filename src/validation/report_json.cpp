// A validation report as JSON (`simgpt validate --format json`).
#include "simgpt/validation/validation.hpp"

#include "core/json_text.hpp"
#include "validation/names.hpp"

#include <nlohmann/json.hpp>

namespace simgpt {
namespace {

nlohmann::ordered_json summary_json(const TableSummary& s) {
  // No row compared: no error (null), not 0.
  const auto pct = [&s](double x) { return s.compared > 0 ? nlohmann::ordered_json(x) : nlohmann::ordered_json(); };
  nlohmann::ordered_json j{{"table", s.table},
                           {"rows", s.rows},
                           {"compared", s.compared},
                           {"median_abs_pct", pct(s.median_abs)},
                           {"mean_abs_pct", pct(s.mean_abs)},
                           {"max_abs_pct", pct(s.max_abs)}};
  j["spearman"] = s.spearman ? nlohmann::ordered_json(*s.spearman) : nlohmann::ordered_json();
  return j;
}

nlohmann::ordered_json case_json(const CaseResult& c) {
  nlohmann::ordered_json e{
      {"id", c.id}, {"table", c.table}, {"metric", to_string(c.metric)}, {"status", to_string(c.status)}};
  e["measured"] = c.measured ? nlohmann::ordered_json(*c.measured) : nlohmann::ordered_json();
  e["predicted"] = c.predicted ? nlohmann::ordered_json(*c.predicted) : nlohmann::ordered_json();
  e["error_pct"] = c.status == CaseStatus::compared ? nlohmann::ordered_json(c.error_pct) : nlohmann::ordered_json();
  e["flags"] = c.flags;
  if (!c.message.empty())
    e["message"] = c.message;
  return e;
}

nlohmann::ordered_json fastest_json(const FastestCheck& f) {
  const bool picked = !f.planner_pick.empty();
  return {{"table", f.table},
          {"row", f.group},
          {"configurations", f.configurations},
          {"measured_fastest", f.measured_fastest},
          {"predicted_fastest", f.predicted_fastest},
          {"agrees", f.agrees()},
          {"measured_regret_pct", f.measured_regret_pct},
          {"planner_pick", picked ? nlohmann::ordered_json(f.planner_pick) : nlohmann::ordered_json()},
          {"planner_regret_pct", picked ? nlohmann::ordered_json(f.planner_regret_pct) : nlohmann::ordered_json()}};
}

nlohmann::ordered_json planner_json(const PlannerComparison& c) {
  nlohmann::ordered_json e{{"table", c.table}, {"row", c.row}, {"gpus", c.gpus}, {"measured_best", c.measured_best},
                           {"measured_best_s", c.measured_best_s}, {"plan", c.plan}};
  e["predicted_s"] = c.predicted_s ? nlohmann::ordered_json(*c.predicted_s) : nlohmann::ordered_json();
  if (!c.message.empty())
    e["message"] = c.message;
  return e;
}

nlohmann::ordered_json validation_report_json(const ValidationReport& r) {
  nlohmann::ordered_json j;
  auto& cs = j["cases"] = nlohmann::ordered_json::array();
  for (const CaseResult& c : r.cases)
    cs.push_back(case_json(c));
  auto& ts = j["tables"] = nlohmann::ordered_json::array();
  for (const TableSummary& s : r.tables)
    ts.push_back(summary_json(s));
  j["calibration"] = summary_json(r.calibration);
  j["held_out"] = summary_json(r.held_out);
  j["calibration_transfer"] = summary_json(r.calibration_transfer);
  j["held_out_transfer"] = summary_json(r.held_out_transfer);
  j["calibration_memory"] = summary_json(r.calibration_memory);
  j["held_out_memory"] = summary_json(r.held_out_memory);
  j["held_out_estimate"] = summary_json(r.held_out_estimate);
  j["estimate_vs_replay"] = summary_json(r.estimate_vs_replay);
  auto& fs = j["fastest"] = nlohmann::ordered_json::array();
  for (const FastestCheck& f : r.fastest)
    fs.push_back(fastest_json(f));
  auto& gaps = j["known_gaps"] = nlohmann::ordered_json::array();
  for (const KnownGap& g : r.known_gaps)
    gaps.push_back({{"table", g.table}, {"median_abs_pct", g.median_abs}, {"reason", g.reason}});
  auto& planners = j["planner_comparisons"] = nlohmann::ordered_json::array();
  for (const PlannerComparison& c : r.planner_comparisons)
    planners.push_back(planner_json(c));
  j["gate_failures"] = r.gate_failures;
  return j;
}

} // namespace

std::string ValidationReport::to_json_text() const { return json_text(validation_report_json(*this)); }

} // namespace simgpt
