#include "study/gnuplot_script.hpp"

#include "simgpt/core/error.hpp"
#include "core/utf8.hpp"
#include "study/key_placement.hpp"

#include <fmt/format.h>

namespace simgpt {
namespace {

// Beyond these, tick labels would run into each other unless slanted.
constexpr size_t kUprightCategories = 8;
constexpr size_t kUprightLabelChars = 12;

std::string categorical_ticks(const std::vector<std::string>& categories) {
  std::string ticks;
  bool slanted = categories.size() > kUprightCategories;
  for (size_t i = 0; i < categories.size(); ++i) {
    ticks += fmt::format("{}{} {}", i ? ", " : "", gnuplot_string(categories[i]), i);
    slanted = slanted || categories[i].size() > kUprightLabelChars;
  }
  return fmt::format("set xrange [-0.5:{}]\nset xtics ({}){}\n", static_cast<double>(categories.size()) - 0.5,
                     ticks, slanted ? " rotate by -30" : "");
}

std::string axes(const Chart& chart) {
  std::string out;
  if (!chart.title.empty())
    out += "set title " + gnuplot_string(chart.title) + "\n";
  out += "set xlabel " + gnuplot_string(chart.x_label) + "\n";
  out += "set ylabel " + gnuplot_string(chart.y_label) + "\n";
  if (!chart.x_categories.empty())
    out += categorical_ticks(chart.x_categories);
  else if (!chart.x_ticks.empty())
    out += fmt::format("set xtics ({})\n", fmt::join(chart.x_ticks, ", "));
  if (chart.log_x)
    out += "set logscale x\n";
  if (chart.kind == ChartKind::bar)
    out += fmt::format("set boxwidth {} absolute\nset style fill solid 0.8 border -1\nset yrange [0:*]\n",
                       kBarGroupWidth / chart.bar_slots);
  return out;
}

std::string datablock(const Chart& chart, size_t index) {
  const ChartLine& line = chart.lines[index];
  std::string out = fmt::format("$line{} << EOD\n", index);
  for (const auto& [x, y] : line.points)
    out += fmt::format("{} {}\n", x + x_shift(chart, line.slot), y);
  return out + "EOD\n";
}

std::string style(const Chart& chart, const ChartLine& line) {
  const int colour = line.slot + 1; // gnuplot's line types count from 1
  if (line.measured)
    return fmt::format("with points pt 6 ps 1.6 lw 2 lc {}", colour);
  if (chart.kind == ChartKind::bar)
    return fmt::format("with boxes lc {}", colour);
  return fmt::format("with linespoints pt 7 ps 0.8 lw 2 lc {}", colour);
}

// The terminal of each format, at one size and font: 900 x 540 pixels in SVG; in PDF 5 x 3
// inches with 9-point text (pdfcairo halves fonts unless told otherwise: fontscale 1), which
// stays legible shrunk to a paper's column; in PNG twice the SVG's pixels, text, lines and points
// scaled with them, for slides. No enhanced text: column names keep their underscores.
std::string terminal(FigureFormat format) {
  switch (format) {
  case FigureFormat::pdf:
    return "set terminal pdfcairo size 6in,3.6in font \"Helvetica,9\" fontscale 1 pointscale 0.6 noenhanced "
           "background \"white\"\n";
  case FigureFormat::png:
    return "set terminal pngcairo size 1800,1080 font \"Helvetica,12\" fontscale 2 linewidth 2 pointscale 2 "
           "noenhanced background \"white\"\n";
  case FigureFormat::svg:
    break;
  }
  return "set terminal svg size 900,540 fixed font \"Helvetica,12\" noenhanced background \"white\"\n";
}

// The legend inside the plot, boxed and opaque, in the corner place_key finds.
std::string key(const Chart& chart) {
  const KeyPlacement placement = place_key(chart);
  std::string out = fmt::format("set key inside {} box opaque\n", placement.corner);
  if (placement.top_offset > 0)
    out += fmt::format("set offsets 0, 0, graph {:.3f}, 0\n", placement.top_offset);
  return out;
}

} // namespace

std::string gnuplot_string(const std::string& text) {
  // Single quotes: gnuplot expands backquotes (a shell command) and processes escapes inside
  // double-quoted strings, and neither inside single-quoted ones, where a quote is doubled
  // (gnuplot's documentation, "quote marks" and "substitution"). A label from a CSV someone
  // else wrote is text, never a command.
  std::string out = "'";
  for (char c : valid_utf8(one_line(text, 200))) { // the SVG is UTF-8: a stray byte would break it
    if (c == '\'')
      out += '\'';
    out += c;
  }
  return out + "'";
}

std::string gnuplot_script(const Chart& chart) {
  std::string script = terminal(chart.format) + "set encoding utf8\nset grid\n" + key(chart);
  script += axes(chart);
  std::vector<std::string> plots;
  for (size_t i = 0; i < chart.lines.size(); ++i) {
    const ChartLine& line = chart.lines[i];
    if (line.points.empty())
      continue;
    script += datablock(chart, i);
    plots.push_back(fmt::format("$line{} using 1:2 {} title {}", i, style(chart, line), gnuplot_string(line.title)));
  }
  return script + fmt::format("plot {}\n", fmt::join(plots, ", \\\n     "));
}

} // namespace simgpt
