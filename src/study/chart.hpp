// A chart as plot() lays it out, ready to be written as a gnuplot script: labels, the x axis's
// ticks, and lines of (x, y) points. x is a value on a numeric axis or a category's place.
#pragma once

#include "simgpt/study/plot.hpp"
#include "study/figure_format.hpp"

#include <string>
#include <utility>
#include <vector>

namespace simgpt {

struct ChartLine {
  std::string title; // its legend entry
  // Its colour, shared by a series' predicted line and its measured points, and in a bar chart
  // its bar's place within each group.
  int slot = 0;
  bool measured = false; // points only
  std::vector<std::pair<double, double>> points;
};

struct Chart {
  ChartKind kind = ChartKind::line;
  FigureFormat format = FigureFormat::svg;
  std::string title, x_label, y_label;
  bool log_x = false;
  std::vector<std::string> x_categories; // categorical x: tick labels at 0, 1, 2, ...
  std::vector<double> x_ticks;           // numeric x: ticks at these values; empty: gnuplot's
  int bar_slots = 1;                     // bars per group
  std::vector<ChartLine> lines;          // drawn in this order, the legend too
};

// The share of a category's width its bars take, leaving a gap between groups.
inline constexpr double kBarGroupWidth = 0.8;

// Where a line's points sit on the x axis relative to their x: a bar chart shifts each slot to
// its own bar within the group.
inline double x_shift(const Chart& chart, int slot) {
  if (chart.kind != ChartKind::bar)
    return 0;
  const double width = kBarGroupWidth / chart.bar_slots;
  return -kBarGroupWidth / 2 + (slot + 0.5) * width;
}

} // namespace simgpt
