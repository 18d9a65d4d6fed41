// A chart as plot() lays it out, ready to be written as a gnuplot script: labels, the x axis's
// ticks, and lines of (x, y) points. x is a value on a numeric axis or a category's place.
#pragma once

#include "simgpt/study/plot.hpp"

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
  std::string title, x_label, y_label;
  bool log_x = false;
  std::vector<std::string> x_categories; // categorical x: tick labels at 0, 1, 2, ...
  std::vector<double> x_ticks;           // numeric x: ticks at these values; empty: gnuplot's
  int bar_slots = 1;                     // bars per group
  std::vector<ChartLine> lines;          // drawn in this order, the legend too
};

} // namespace simgpt
