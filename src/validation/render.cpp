// A validation report as text (`simgpt validate`) and Markdown (`--format markdown`, README's
// accuracy tables, after the list of measured tables): the summary, known gaps and planner comparison are built once as tables and
// drawn in either style; the per-row cases and fastest configurations are text's alone.
#include "simgpt/validation/validation.hpp"

#include "validation/names.hpp"
#include "validation/table_drawing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

namespace simgpt {
namespace {

// Each row's cases, a table per measured table: measured, predicted, error, flags and why a
// case was not compared.
std::vector<Table> case_tables(const ValidationReport& r) {
  std::vector<Table> tables;
  for (const CaseResult& c : r.cases) {
    if (tables.empty() || tables.back().caption != c.table) {
      Table& t = tables.emplace_back();
      t.caption = c.table;
      t.indent = 2;
      t.columns = {left_column("row", 44), right_column("measured", 10), right_column("predicted", 10),
                   right_column("error", 8), left_column("notes", 0, 2)};
    }
    std::string flags;
    for (const auto& f : c.flags)
      flags += (flags.empty() ? "" : ",") + f;
    std::string notes = flags + (c.message.empty() ? "" : (flags.empty() ? "" : "; ") + c.message);
    tables.back().rows.push_back({c.id.substr(c.table.size() + 1) + " " + to_string(c.metric),
                                  c.measured ? fmt::format("{:.3f}", *c.measured) : "-",
                                  c.predicted ? fmt::format("{:.3f}", *c.predicted) : "-",
                                  c.status == CaseStatus::compared ? fmt::format("{:+.1f}%", c.error_pct)
                                                                   : to_string(c.status),
                                  notes});
  }
  return tables;
}

Table fastest_table(const ValidationReport& r) {
  Table t;
  t.caption = "fastest configuration per table row (regret: measured time of the predicted pick over the measured "
              "best)";
  t.indent = 2;
  // The last column marks a row whose picks differ, right after the regret.
  t.columns = {left_column("table / row", 44), left_column("measured", 14), left_column("predicted", 14),
               right_column("regret", 7), left_column("", 0, 0)};
  for (const FastestCheck& f : r.fastest)
    t.rows.push_back({f.table + " / " + f.group, f.measured_fastest, f.predicted_fastest,
                      fmt::format("{:.1f}%", f.measured_regret_pct), f.agrees() ? "" : "  differs"});
  return t;
}

// simgpt plan's pick: the same choice, but never a configuration the simulation says does not fit.
std::string planner_picks(const ValidationReport& r) {
  double sum = 0, worst = 0;
  int picked = 0;
  std::string differs;
  for (const FastestCheck& f : r.fastest) {
    if (f.planner_pick.empty())
      continue;
    ++picked;
    sum += f.planner_regret_pct;
    worst = std::max(worst, f.planner_regret_pct);
    if (f.planner_pick != f.predicted_fastest)
      differs += fmt::format("\n    {} / {}: plan picks {} ({:.1f}%)", f.table, f.group, f.planner_pick,
                             f.planner_regret_pct);
  }
  if (picked == 0)
    return "";
  return fmt::format("  planner (the predicted fastest that fits): regret {:.1f}% on average, {:.1f}% at worst over "
                     "{} rows{}\n",
                     sum / picked, worst, picked, differs);
}

// The summary table: per table, then pooled over calibration and held-out rows. Beside each
// step-time row, the closed-form estimate's median error on the same rows (its own summary,
// "<table>:estimate", in JSON); then the estimate against the replay over every row.
Table summary_table(const ValidationReport& r) {
  Table t;
  t.columns = {left_column("table (step time; :memory peak; :oom disagreement)", 44, 1, "table"),
               right_column("rows", 5),
               right_column("compared", 8),
               right_column("median", 8),
               right_column("mean", 8),
               right_column("max", 8),
               right_column("spearman", 9, 1, "Spearman"),
               right_column("estimate", 9, 1, "estimate median")};
  std::map<std::string, const TableSummary*> estimates;
  for (const TableSummary& s : r.tables)
    if (s.table.ends_with(kEstimateSuffix))
      estimates[s.table.substr(0, s.table.size() - std::string_view(kEstimateSuffix).size())] = &s;
  estimates["held-out rows"] = &r.held_out_estimate;
  std::vector<const TableSummary*> all;
  for (const TableSummary& s : r.tables)
    if (!s.table.ends_with(kEstimateSuffix))
      all.push_back(&s);
  for (const TableSummary* s : {&r.calibration, &r.held_out, &r.calibration_transfer, &r.held_out_transfer,
                                &r.calibration_memory, &r.held_out_memory, &r.estimate_vs_replay})
    all.push_back(s);
  for (const TableSummary* s : all) {
    const auto estimate = estimates.find(s->table);
    const bool has_estimate = estimate != estimates.end() && estimate->second->compared > 0;
    // A table with no row compared has no error: "-", not a 0.0% that reads as a perfect fit.
    const auto pct = [s](double x) { return s->compared > 0 ? fmt::format("{:.1f}%", x) : std::string("-"); };
    t.rows.push_back({s->table, std::to_string(s->rows), std::to_string(s->compared), pct(s->median_abs),
                      pct(s->mean_abs), pct(s->max_abs), s->spearman ? fmt::format("{:.2f}", *s->spearman) : "-",
                      has_estimate ? fmt::format("{:.1f}%", estimate->second->median_abs) : ""});
  }
  return t;
}

// Tables whose residual has no mechanism yet, with what is known of it.
NamedList known_gaps_list(const ValidationReport& r) {
  NamedList list;
  list.caption = "known gaps (no mechanism yet; their thresholds still gate)";
  list.markdown_caption = "Known gaps (no mechanism yet; their thresholds still gate):";
  for (const KnownGap& g : r.known_gaps)
    list.items.push_back({g.table, fmt::format(" (median {:.1f}%): {}", g.median_abs, g.reason)});
  return list;
}

// Another planner's fastest measured run of each table row beside simgpt plan's pick: a
// comparison of planners, not an error.
Table planner_table(const ValidationReport& r) {
  Table t;
  t.caption = "another planner's runs beside simgpt plan over the same space (a comparison, not an error)";
  t.markdown_caption = "Another planner's runs beside `simgpt plan` over the same space (a comparison, not an error):";
  t.indent = 2;
  t.columns = {left_column("table / row", 34),
               right_column("gpus", 4, 1, "GPUs"),
               left_column("measured", 12, 2, "measured best"),
               right_column("s", 8),
               left_column("simgpt plan's pick", 38, 2),
               right_column("predicted", 9, 1, "predicted s"),
               right_column("ratio", 7, 1, "predicted / measured")};
  for (const PlannerComparison& c : r.planner_comparisons) {
    const std::string pick = c.plan.empty() ? c.message : c.plan;
    const std::string predicted = c.predicted_s ? fmt::format("{:.2f}", *c.predicted_s) : "-";
    const std::string ratio = c.predicted_s ? fmt::format("{:.2f}", *c.predicted_s / c.measured_best_s) : "-";
    t.rows.push_back({c.table + " / " + c.row, std::to_string(c.gpus), c.measured_best,
                      fmt::format("{:.2f}", c.measured_best_s), pick, predicted, ratio});
  }
  return t;
}

} // namespace

std::string tables_markdown(const std::vector<ValidationTable>& tables) {
  std::string out = "| measured table | source | rows |\n| --- | --- | ---: |\n";
  size_t total = 0;
  for (const ValidationTable& t : tables) {
    out += fmt::format("| {} | {} | {} |\n", t.id, t.source_heading, t.rows.size());
    total += t.rows.size();
  }
  return out + fmt::format("| all {} tables | | {} |\n\n", tables.size(), total);
}

std::string ValidationReport::to_markdown() const {
  std::string out = draw(summary_table(*this), DrawingStyle::markdown);
  if (!known_gaps.empty())
    out += draw(known_gaps_list(*this), DrawingStyle::markdown);
  if (!planner_comparisons.empty())
    out += draw(planner_table(*this), DrawingStyle::markdown);
  return out;
}

std::string ValidationReport::to_text() const {
  std::string out;
  for (const Table& t : case_tables(*this))
    out += draw(t, DrawingStyle::text);
  if (!fastest.empty())
    out += draw(fastest_table(*this), DrawingStyle::text) + planner_picks(*this);
  if (!planner_comparisons.empty())
    out += draw(planner_table(*this), DrawingStyle::text);
  out += draw(summary_table(*this), DrawingStyle::text);
  if (!known_gaps.empty())
    out += draw(known_gaps_list(*this), DrawingStyle::text);
  for (const std::string& f : gate_failures)
    out += "GATE FAILED: " + f + "\n";
  return out;
}

} // namespace simgpt
