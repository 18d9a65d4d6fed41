// Where a chart's legend goes: inside the plot, in the corner that hides the fewest of its lines,
// points and bars. gnuplot's own placement puts the key in a fixed corner whatever lies beneath
// it (its documentation, "set key": "placement ... inside" takes a corner, not the data).
#pragma once

#include "study/chart.hpp"

#include <string>

namespace simgpt {

struct KeyPlacement {
  std::string corner = "top right"; // for gnuplot's `set key inside CORNER`
  // The room added above the data, as a share of the y range (gnuplot's `set offsets`), when
  // every corner holds data: the key then sits above the top line rather than over it.
  double top_offset = 0;
};

// The corner whose key-sized box (estimated from the number of entries and their longest title,
// at the fixed size and font the chart is drawn with) covers the fewest samples of the drawn
// data: points, lines between them, bars from their base to their top. Ties go to top right,
// top left, bottom right, bottom left, in that order.
KeyPlacement place_key(const Chart& chart);

} // namespace simgpt
