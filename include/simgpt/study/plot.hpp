// Charts of what-if studies: one metric of a `simgpt sweep` CSV against one of its inputs, one
// line (or bar group) per value of another, with measured points from a validation table
// overlaid. gnuplot (Debian's gnuplot-nox) draws the figure: SVG, PDF or PNG.
#pragma once

#include <string>
#include <vector>

namespace simgpt {

struct DataPaths; // simgpt/simulate.hpp: where the validation tables are

enum class ChartKind { line, bar };

struct PlotSpec {
  std::string csv;                 // a `simgpt sweep` CSV
  std::string x;                   // column on the x axis (an input key)
  std::string y;                   // numeric column on the y axis (a metric: step_time_s, ...)
  std::string series;              // column with one line per value; empty: a single line
  std::vector<std::string> where;  // KEY=VALUE filters on the rows (several on one KEY: any of them)
  std::string measured;            // a validation table's id or YAML path; empty: no overlay
  ChartKind kind = ChartKind::line;
  bool log_x = false;
  std::string title;               // empty: none
  std::string x_label, y_label;    // empty: the column in words with its unit ("network delay (ms)")
  std::string output;              // the figure written: .svg, .pdf or .png
};

// Draws the chart into spec.output. Returns notes for the user, one line each (rows left out for
// want of a value, measured rows that have no place on the chart). Throws InputError for bad
// input (an output that is not .svg, .pdf or .png, unreadable CSV, unknown column, inputs that
// vary but are neither x nor series, gnuplot not installed), std::runtime_error when gnuplot
// fails.
std::vector<std::string> plot(const PlotSpec& spec, const DataPaths& data);

} // namespace simgpt
