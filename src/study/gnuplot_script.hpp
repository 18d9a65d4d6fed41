// A chart as a gnuplot script for the terminal of its format (svg, pdfcairo, pngcairo), the data
// inline (datablocks), the figure on gnuplot's standard output (simgpt writes it whole or not at
// all: write_output_file).
#pragma once

#include "study/chart.hpp"

#include <string>

namespace simgpt {

// The script: a fixed size and font for each format (the same chart gives the same bytes), no
// enhanced text (column names keep their underscores), the legend inside (place_key), lines
// without points left out.
std::string gnuplot_script(const Chart& chart);

// `text` as a gnuplot single-quoted string, which gnuplot never expands (no backquoted command,
// no escape, no macro): one line, at most 200 bytes, each quote doubled.
std::string gnuplot_string(const std::string& text);

} // namespace simgpt
