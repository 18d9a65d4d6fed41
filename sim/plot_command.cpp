// `simgpt plot`: a metric of a sweep's CSV charted against an input, as SVG, PDF or PNG.
#include "command.hpp"

#include <iostream>

namespace simgpt::cli {

void declare_plot(CLI::App& cmd, Options& o) {
  cmd.add_option("csv", o.plot.csv, "the CSV simgpt sweep wrote")->required();
  cmd.add_option("--x", o.plot.x, "the column on the x axis (an input key)")->required();
  cmd.add_option("--y", o.plot.y, "the metric on the y axis (step_time_s, tokens_per_s, ...)")->required();
  cmd.add_option("--series", o.plot.series, "one line (or bar group) per value of this column");
  cmd.add_option("--where", o.plot.where, "keep the rows whose KEY is VALUE: KEY=VALUE (one KEY twice: either)");
  cmd.add_option("--measured", o.plot.measured, "overlay a validation table's measured values: its id or YAML file");
  const auto set_kind = [&o](const std::string& kind) {
    o.plot.kind = kind == "bar" ? ChartKind::bar : ChartKind::line;
  };
  cmd.add_option_function<std::string>("--kind", set_kind, "line or bar (default line)")
      ->check(CLI::IsMember({"line", "bar"}));
  cmd.add_flag("--logx", o.plot.log_x, "a log scale on a numeric x axis");
  cmd.add_option("--title", o.plot.title, "the chart's title");
  cmd.add_option("--xlabel", o.plot.x_label, "the x axis's label (default: the column in words, with its unit)");
  cmd.add_option("--ylabel", o.plot.y_label, "the y axis's label (default: the metric in words, with its unit)");
  cmd.add_option("-o,--output", o.plot.output, "the figure to write: FILE.svg, FILE.pdf or FILE.png")->required();
  add_data_option(cmd, o.data_dirs, "validation/tables/ (for --measured TABLE)");
}

// The chart, and a line on stderr for each note (rows left out). The data files are looked for
// only when --measured needs a validation table.
int run_plot(const Options& o, const CLI::App&) {
  const DataPaths data = o.plot.measured.empty() ? DataPaths{} : data_paths(o);
  for (const std::string& note : plot(o.plot, data))
    std::cerr << "simgpt plot: " << note << "\n";
  return 0;
}

} // namespace simgpt::cli
