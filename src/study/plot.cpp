#include "simgpt/study/plot.hpp"

#include "simgpt/core/output_file.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "study/chart.hpp"
#include "study/column_label.hpp"
#include "study/figure_format.hpp"
#include "study/gnuplot.hpp"
#include "study/gnuplot_script.hpp"
#include "study/input_value.hpp"
#include "study/measured_overlay.hpp"
#include "study/metric_unit.hpp"
#include "study/sweep_table.hpp"
#include "study/x_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace simgpt {
namespace {

// The files the chart is read from, which -o must not name: the CSV, and --measured's table file,
// or, for a table named by its id, every table file of the data folders (all are read to find it).
std::vector<std::string> plot_inputs(const PlotSpec& spec, const DataPaths& data) {
  std::vector<std::string> inputs{spec.csv, spec.measured};
  if (spec.measured.empty() || data.folders.empty())
    return inputs;
  for (const std::string& table : data.list("validation/tables", ".yaml"))
    inputs.push_back(table);
  return inputs;
}

void check_spec(const PlotSpec& spec) {
  if (spec.output.empty())
    throw InputError("-o", "name the figure to write (-o FIG.svg, FIG.pdf or FIG.png)");
  if (!spec.series.empty() && spec.series == spec.x)
    throw InputError("--series", fmt::format("'{}' is already --x; choose another column", echo(spec.series)));
}

// An SI column is the same input as its key, for tools that do not read units: the chart draws
// the key, in the unit its values were written in.
void check_not_si_column(const SweepTable& sweep, const std::string& column, const std::string& option) {
  if (sweep.input_of(column) != column)
    throw InputError(option + " " + echo(column),
                     fmt::format("is {} in SI units; give {} {}, which the chart draws in the unit its values "
                                 "were written in",
                                 echo(sweep.input_of(column)), option, echo(sweep.input_of(column))));
}

// The inputs the chart does not show that vary along with x within each line (a sweep's --zip:
// delay and bandwidth together), for the x axis's label. Any other input that varies is refused:
// points of different configurations would be drawn as one line.
std::vector<std::string> inputs_along_x(const SweepTable& sweep, const PlotSpec& spec) {
  std::vector<size_t> shown{sweep.column(spec.x, "--x")};
  if (!spec.series.empty())
    shown.push_back(sweep.column(spec.series, "--series"));
  std::vector<std::string> along, hidden;
  for (const auto& [input, values] : varying_inputs(sweep)) {
    if (input == spec.x || input == spec.series)
      continue;
    if (determined_by(sweep, sweep.column(input, ""), shown)) {
      along.push_back(input);
      continue;
    }
    const std::vector<std::string> some(values.begin(), values.begin() + std::min<size_t>(values.size(), 4));
    hidden.push_back(fmt::format("{} ({}{})", input, fmt::join(some, ", "), values.size() > 4 ? ", ..." : ""));
  }
  if (!hidden.empty())
    throw InputError(sweep.source, fmt::format("{} {} across the rows but {} neither --x nor --series: keep one "
                                               "value with --where KEY=VALUE, or plot it as --series",
                                               fmt::join(hidden, ", "), hidden.size() > 1 ? "vary" : "varies",
                                               hidden.size() > 1 ? "are" : "is"));
  return along;
}

// The series value of each slot: one line (slot 0) without --series.
std::vector<std::string> series_values(const SweepTable& sweep, const PlotSpec& spec) {
  if (spec.series.empty())
    return {""};
  return ordered_values(sweep.values(sweep.column(spec.series, "--series")));
}

// "1 failed, 1 invalid": how many rows of each status.
std::string status_counts(const std::map<std::string, int>& by_status) {
  std::vector<std::string> parts;
  for (const auto& [status, count] : by_status)
    parts.push_back(fmt::format("{} {}", count, status.empty() ? "without a status" : status));
  return fmt::format("{}", fmt::join(parts, ", "));
}

int total(const std::map<std::string, int>& by_status) {
  int sum = 0;
  for (const auto& [status, count] : by_status)
    sum += count;
  return sum;
}

// gnuplot takes a value beyond about 8.9e307 (its VERYLARGE, a quarter of the largest double) as
// undefined, and its axis arithmetic overflows before that; no quantity simgpt writes comes near
// 1e300, so larger magnitudes are refused as what they are, not drawn wrong.
constexpr double kMaxPlotMagnitude = 1e300;

void check_plottable(double value, const std::string& where, const std::string& column) {
  if (!(std::fabs(value) <= kMaxPlotMagnitude))
    throw InputError(where, fmt::format("{} is {:g}; a plotted value must be finite and within +-{:g}", column, value,
                                        kMaxPlotMagnitude));
}

double metric_value(const SweepTable& sweep, size_t record, size_t column) {
  const std::string& text = sweep.table.records[record][column];
  const std::optional<double> value = value_in_si(text, QuantityKind::number);
  const std::string where = fmt::format("{}:{}", sweep.source, sweep.table.record_lines[record]);
  if (!value)
    throw InputError(where, fmt::format("{} is '{}', not a number; --y needs a numeric column",
                                        sweep.table.header[column], echo(text)));
  check_plottable(*value, where, sweep.table.header[column]);
  return *value;
}

double x_position(const SweepTable& sweep, const XAxis& axis, size_t record, size_t column) {
  const double x = *axis.position(sweep.table.records[record][column]);
  check_plottable(x, fmt::format("{}:{}", sweep.source, sweep.table.record_lines[record]), sweep.table.header[column]);
  return x;
}

// The slot of each record: its series value's place in `slots`; 0 for all without --series.
std::vector<size_t> record_slots(const SweepTable& sweep, const PlotSpec& spec, const std::vector<std::string>& slots) {
  if (spec.series.empty())
    return std::vector<size_t>(sweep.table.records.size(), 0);
  std::unordered_map<std::string, size_t> slot_of; // by value: linear in the rows, however many series
  for (size_t i = 0; i < slots.size(); ++i)
    slot_of.emplace(slots[i], i);
  std::vector<size_t> out;
  for (const std::string& value : sweep.values(sweep.column(spec.series, "--series")))
    out.push_back(slot_of.at(value));
  return out;
}

// The predicted lines, one per series value (slot). Rows without a value of the metric are left
// out, with a note saying how many.
std::vector<ChartLine> predicted_lines(const SweepTable& sweep, const PlotSpec& spec, const XAxis& axis,
                                       const std::vector<std::string>& slots, std::vector<std::string>& notes) {
  const size_t x = sweep.column(spec.x, "--x"), y = sweep.column(spec.y, "--y");
  const size_t status = sweep.column("status", "");
  std::vector<ChartLine> lines(slots.size());
  for (size_t slot = 0; slot < slots.size(); ++slot)
    lines[slot] = {spec.series.empty() ? "predicted" : value_words(spec.series, slots[slot]), static_cast<int>(slot),
                   false, {}};
  const std::vector<size_t> slot_of = record_slots(sweep, spec, slots);
  std::map<std::string, int> left_out; // by status
  int unplaced = 0;                     // rows at an x value the numeric axis has no place for: `default`
  const auto& records = sweep.table.records;
  for (size_t r = 0; r < records.size(); ++r) {
    if (records[r][y].empty())
      ++left_out[records[r][status]];
    else if (!axis.position(records[r][x]))
      ++unplaced;
    else
      lines[slot_of[r]].points.emplace_back(x_position(sweep, axis, r, x), metric_value(sweep, r, y));
  }
  if (unplaced > 0)
    notes.push_back(fmt::format("left out {} of {} rows at {}=default (the workload's own value, no number on the x "
                                "axis: plot them with --where {}=default)",
                                unplaced, records.size(), spec.x, spec.x));
  if (!left_out.empty() &&
      std::all_of(lines.begin(), lines.end(), [](const ChartLine& l) { return l.points.empty(); }))
    throw InputError(sweep.source, fmt::format("no row has a value of {} ({})", spec.y, status_counts(left_out)));
  if (!left_out.empty())
    notes.push_back(fmt::format("left out {} of {} rows without a {} value ({})", total(left_out), records.size(),
                                spec.y, status_counts(left_out)));
  for (ChartLine& line : lines)
    std::stable_sort(line.points.begin(), line.points.end());
  return lines;
}

void check_log_x(const PlotSpec& spec, const SweepTable& sweep, const XAxis& axis) {
  if (!spec.log_x)
    return;
  if (spec.kind == ChartKind::bar || !axis.numeric())
    throw InputError("--logx", fmt::format("needs a line chart with a numeric x axis; {}'s values are not all numbers "
                                           "or quantities of one kind",
                                           spec.x));
  for (const std::string& value : sweep.values(sweep.column(spec.x, "--x")))
    if (*axis.position(value) <= 0)
      throw InputError("--logx", fmt::format("{} is {} here; a log scale needs values above 0", spec.x, echo(value)));
}

// The x axis's label: --xlabel, else the column in words with its unit, naming the inputs that
// vary with it.
std::string x_label(const PlotSpec& spec, const XAxis& axis, const std::vector<std::string>& along_x) {
  if (!spec.x_label.empty())
    return spec.x_label;
  std::vector<std::string> words;
  for (const std::string& input : along_x)
    words.push_back(column_words(input));
  std::string label = axis.label();
  if (!words.empty())
    label += fmt::format("; {} {} with it", fmt::join(words, ", "), words.size() > 1 ? "vary" : "varies");
  return label;
}

Chart chart_frame(const PlotSpec& spec, const XAxis& axis, size_t slots, const std::vector<std::string>& along_x) {
  Chart chart;
  chart.kind = spec.kind;
  chart.format = figure_format(spec.output, "-o");
  chart.title = spec.title;
  chart.x_label = x_label(spec, axis, along_x);
  chart.y_label = spec.y_label.empty() ? with_unit(column_words(spec.y), metric_unit(spec.y)) : spec.y_label;
  chart.log_x = spec.log_x;
  chart.x_categories = axis.categories();
  chart.x_ticks = axis.value_ticks();
  chart.bar_slots = static_cast<int>(slots);
  return chart;
}

} // namespace

std::vector<std::string> plot(const PlotSpec& spec, const DataPaths& data) {
  check_spec(spec);
  const std::vector<std::string> inputs = plot_inputs(spec, data);
  check_output_path(spec.output, "-o", inputs); // first: -o naming the CSV is that, whatever its extension
  figure_format(spec.output, "-o");
  SweepTable sweep = read_sweep_table(spec.csv);
  // Every column named is checked before the rows are: a typo is reported as itself.
  const size_t x = sweep.column(spec.x, "--x");
  sweep.column(spec.y, "--y");
  if (!spec.series.empty())
    sweep.column(spec.series, "--series");
  check_not_si_column(sweep, spec.x, "--x");
  check_not_si_column(sweep, spec.series, "--series");
  keep_records_where(sweep, spec.where);
  const std::vector<std::string> along_x = inputs_along_x(sweep, spec);
  const XAxis axis(spec.x, sweep.values(x), spec.kind == ChartKind::bar);
  check_log_x(spec, sweep, axis);
  const std::vector<std::string> slots = series_values(sweep, spec);
  std::vector<std::string> notes;
  // The x label names the inputs x alone determines (zipped with it); those that follow the
  // series (zipped with it) belong to its lines, not to the axis.
  std::vector<std::string> with_x;
  for (const std::string& input : along_x)
    if (determined_by(sweep, sweep.column(input, ""), {sweep.column(spec.x, "--x")}))
      with_x.push_back(input);
  Chart chart = chart_frame(spec, axis, slots.size(), with_x);
  chart.lines = predicted_lines(sweep, spec, axis, slots, notes);
  if (!spec.measured.empty())
    if (const std::optional<std::string> note = add_measured(chart, {spec, sweep, axis, slots, along_x}, data))
      notes.push_back(*note);
  write_output_file(spec.output, reproducible_figure(run_gnuplot(gnuplot_script(chart)), chart.format), "-o", inputs);
  return notes;
}

} // namespace simgpt
