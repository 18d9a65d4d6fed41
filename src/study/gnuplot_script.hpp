// A chart as a gnuplot script for the svg terminal, the data inline (datablocks), the SVG on
// gnuplot's standard output.
#pragma once

#include "study/chart.hpp"

#include <string>

namespace simgpt {

// The script: a fixed size and font (the same chart gives the same bytes), no enhanced text
// (column names keep their underscores), lines without points left out.
std::string gnuplot_script(const Chart& chart);

// `text` as a gnuplot double-quoted string: one line, at most 200 bytes, quotes and backslashes
// escaped.
std::string gnuplot_string(const std::string& text);

} // namespace simgpt
