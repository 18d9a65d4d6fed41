// A validation table's measured values drawn over a sweep's predicted lines: each row placed by
// its value of the x key, coloured as the series it belongs to.
#pragma once

#include "study/chart.hpp"
#include "study/sweep_table.hpp"
#include "study/x_axis.hpp"

#include <optional>
#include <string>
#include <vector>

namespace simgpt {

struct DataPaths;

// What the predicted chart was drawn from.
struct PredictedChart {
  const PlotSpec& spec;
  const SweepTable& sweep;                   // the CSV's rows after --where
  const XAxis& axis;
  const std::vector<std::string>& series_values; // the series value of each slot
  const std::vector<std::string>& along_x;       // inputs that vary along with x (zipped with it)
};

// Adds the measured points of spec.measured to `chart`. Only rows of the configuration the
// chart shows are drawn: those passing --where, agreeing with every input the CSV holds
// constant (other than `default`) and, where the CSV has a row at their x, with its values of
// the inputs that vary along x. A row whose x has no place on the axis, or (on a categorical
// axis) whose series is not one of the chart's, is left out; so is one that did not measure the
// metric. Returns a one-line note when rows were left out.
std::optional<std::string> add_measured(Chart& chart, const PredictedChart& predicted, const DataPaths& data);

} // namespace simgpt
