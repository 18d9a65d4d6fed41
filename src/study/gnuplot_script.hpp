// A chart as a gnuplot script for the svg terminal, the data inline (datablocks), the SVG on
// gnuplot's standard output.
#pragma once

#include "study/chart.hpp"

#include <string>

namespace simgpt {

// The script: a fixed size and font (the same chart gives the same bytes), no enhanced text
// (column names keep their underscores), lines without points left out.
std::string gnuplot_script(const Chart& chart);

// `text` as a gnuplot single-quoted string, which gnuplot never expands (no backquoted command,
// no escape, no macro): one line, at most 200 bytes, each quote doubled.
std::string gnuplot_string(const std::string& text);

} // namespace simgpt
