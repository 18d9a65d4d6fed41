// A validation report as text (`simgpt validate`) and Markdown (`--format markdown`, README's
// accuracy tables).
#include "simgpt/validation/validation.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace simgpt {

namespace {

// The summary table, in one layout for text and one for Markdown: per table, then pooled over
// calibration and held-out rows.
std::string summary_table(const ValidationReport& r, bool markdown) {
  std::string out =
      markdown ? "| table | rows | compared | median | mean | max | Spearman |\n"
                 "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
               : fmt::format("\n{:<44} {:>5} {:>8} {:>8} {:>8} {:>8} {:>9}\n",
                             "table (step time; :memory peak; :oom disagreement)", "rows", "compared", "median",
                             "mean", "max", "spearman");
  std::vector<const TableSummary*> all;
  for (const TableSummary& s : r.tables)
    all.push_back(&s);
  for (const TableSummary* s : {&r.calibration, &r.held_out, &r.calibration_transfer, &r.held_out_transfer,
                                &r.calibration_memory, &r.held_out_memory})
    all.push_back(s);
  for (const TableSummary* s : all) {
    const std::string rho = s->spearman ? fmt::format("{:.2f}", *s->spearman) : "-";
    out += markdown ? fmt::format("| {} | {} | {} | {:.1f}% | {:.1f}% | {:.1f}% | {} |\n", s->table, s->rows,
                                  s->compared, s->median_abs, s->mean_abs, s->max_abs, rho)
                    : fmt::format("{:<44} {:>5} {:>8} {:>7.1f}% {:>7.1f}% {:>7.1f}% {:>9}\n", s->table, s->rows,
                                  s->compared, s->median_abs, s->mean_abs, s->max_abs, rho);
  }
  return out;
}

// Tables whose residual has no mechanism yet, with what is known of it.
std::string known_gaps_section(const ValidationReport& r, bool markdown) {
  if (r.known_gaps.empty())
    return "";
  std::string out = markdown ? "\nKnown gaps (no mechanism yet; their thresholds still gate):\n\n"
                             : "\nknown gaps (no mechanism yet; their thresholds still gate)\n";
  for (const KnownGap& g : r.known_gaps)
    out += markdown ? fmt::format("- `{}` (median {:.1f}%): {}\n", g.table, g.median_abs, g.reason)
                    : fmt::format("  {} (median {:.1f}%): {}\n", g.table, g.median_abs, g.reason);
  return out;
}

// Another planner's fastest measured run of each table row beside simgpt plan's pick: a
// comparison of planners, not an error.
std::string planner_section(const ValidationReport& r, bool markdown) {
  if (r.planner_comparisons.empty())
    return "";
  std::string out =
      markdown ? "\nAnother planner's runs beside `simgpt plan` over the same space (a comparison, not an error):\n\n"
                 "| table / row | GPUs | measured best | s | simgpt plan's pick | predicted s | predicted / measured |\n"
                 "| --- | ---: | --- | ---: | --- | ---: | ---: |\n"
               : fmt::format("\nanother planner's runs beside simgpt plan over the same space (a comparison, not an "
                             "error)\n  {:<34} {:>4}  {:<12} {:>8}  {:<38} {:>9} {:>7}\n",
                             "table / row", "gpus", "measured", "s", "simgpt plan's pick", "predicted", "ratio");
  for (const PlannerComparison& c : r.planner_comparisons) {
    const std::string pick = c.plan.empty() ? c.message : c.plan;
    const std::string predicted = c.predicted_s ? fmt::format("{:.2f}", *c.predicted_s) : "-";
    const std::string ratio = c.predicted_s ? fmt::format("{:.2f}", *c.predicted_s / c.measured_best_s) : "-";
    out += markdown ? fmt::format("| {} / {} | {} | {} | {:.2f} | {} | {} | {} |\n", c.table, c.row, c.gpus,
                                  c.measured_best, c.measured_best_s, pick, predicted, ratio)
                    : fmt::format("  {:<34} {:>4}  {:<12} {:>8.2f}  {:<38} {:>9} {:>7}\n", c.table + " / " + c.row,
                                  c.gpus, c.measured_best, c.measured_best_s, pick, predicted, ratio);
  }
  return out;
}

} // namespace

std::string ValidationReport::to_markdown() const {
  return summary_table(*this, true) + known_gaps_section(*this, true) + planner_section(*this, true);
}

std::string ValidationReport::to_text() const {
  std::string out;
  std::string table;
  for (const CaseResult& c : cases) {
    if (c.table != table) {
      table = c.table;
      out += fmt::format("\n{}\n  {:<44} {:>10} {:>10} {:>8}  {}\n", table, "row", "measured", "predicted", "error",
                         "notes");
    }
    std::string flags;
    for (const auto& f : c.flags)
      flags += (flags.empty() ? "" : ",") + f;
    std::string notes = flags + (c.message.empty() ? "" : (flags.empty() ? "" : "; ") + c.message);
    out += fmt::format("  {:<44} {:>10} {:>10} {:>8}  {}\n", c.id.substr(c.table.size() + 1) + " " + c.metric,
                       c.measured ? fmt::format("{:.3f}", *c.measured) : "-",
                       c.predicted ? fmt::format("{:.3f}", *c.predicted) : "-",
                       c.status == "compared" ? fmt::format("{:+.1f}%", c.error_pct) : c.status, notes);
  }
  if (!fastest.empty()) {
    out += fmt::format("\nfastest configuration per table row (regret: measured time of the predicted pick over the "
                       "measured best)\n  {:<44} {:<14} {:<14} {:>7}\n",
                       "table / row", "measured", "predicted", "regret");
    for (const FastestCheck& f : fastest)
      out += fmt::format("  {:<44} {:<14} {:<14} {:>6.1f}%{}\n", f.table + " / " + f.group, f.measured_fastest,
                         f.predicted_fastest, f.measured_regret_pct, f.agrees() ? "" : "  differs");
    // simgpt plan's pick: the same choice, but never a configuration the simulation says does not fit.
    double sum = 0, worst = 0;
    int picked = 0;
    std::string differs;
    for (const FastestCheck& f : fastest) {
      if (f.planner_pick.empty())
        continue;
      ++picked;
      sum += f.planner_regret_pct;
      worst = std::max(worst, f.planner_regret_pct);
      if (f.planner_pick != f.predicted_fastest)
        differs += fmt::format("\n    {} / {}: plan picks {} ({:.1f}%)", f.table, f.group, f.planner_pick,
                               f.planner_regret_pct);
    }
    if (picked > 0)
      out += fmt::format("  planner (the predicted fastest that fits): regret {:.1f}% on average, {:.1f}% at worst over "
                         "{} rows{}\n",
                         sum / picked, worst, picked, differs);
  }
  out += planner_section(*this, false);
  out += summary_table(*this, false);
  out += known_gaps_section(*this, false);
  for (const std::string& f : gate_failures)
    out += "GATE FAILED: " + f + "\n";
  return out;
}

} // namespace simgpt
