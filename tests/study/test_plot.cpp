#include "simgpt/study/plot.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "study/column_label.hpp"
#include "study/display_unit.hpp"
#include "study/figure_format.hpp"
#include "study/gnuplot.hpp"
#include "study/gnuplot_script.hpp"
#include "study/key_placement.hpp"
#include "study/metric_unit.hpp"
#include "study/x_axis.hpp"

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace simgpt;

namespace {

// A directory of its own for each test, removed after it.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    path = (std::filesystem::temp_directory_path() / "simgpt-test-plot-XXXXXX").string();
    REQUIRE(::mkdtemp(path.data()) != nullptr);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path + "/" + name, std::ios::binary) << text;
    return path + "/" + name;
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What `simgpt sweep` writes: delay and bandwidth zipped, times dp 1 and 4; one failed and one
// invalid configuration.
const char* const kSweepCsv =
    "config,network.delay,network.bandwidth,parallelism.dp,status,step_time_s,samples_per_s,tokens_per_s,"
    "tflops_per_gpu,mfu,peak_memory_gib,peak_allocated_gib,oom,critical_path.exposed_comm_s,critical_path.bubble_s,"
    "time_to_train.days,time_to_train.gpu_hours,reason\n"
    "0,1ms,5Gbps,1,ok,15.3,4.18,8562,10.1,0.08,12.5,11,false,0.4,1.2,,,\n"
    "1,5ms,2Gbps,1,ok,16.5,3.88,7944,9.4,0.08,12.5,11,false,1.5,1.2,,,\n"
    "2,10ms,1Gbps,1,ok,22.1,2.9,5930,7,0.08,12.5,11,false,6.9,1.2,,,\n"
    "3,50ms,1Gbps,1,failed,,,,,,,,,,,,,\"timed out, after 600 s\"\n"
    "4,1ms,5Gbps,4,ok,17.2,14.9,30500,9,0.08,12.9,11.4,false,1.9,1.2,,,\n"
    "5,5ms,2Gbps,4,ok,21.5,11.9,24400,7.2,0.08,12.9,11.4,false,6.2,1.2,,,\n"
    "6,10ms,1Gbps,4,ok,32.8,7.8,16000,4.7,0.08,12.9,11.4,false,17.5,1.2,,,\n"
    "7,50ms,1Gbps,4,invalid,,,,,,,,,,,,,\"bad \"\"value\"\"\"\n";

PlotSpec spec_for(const ScratchDir& dir, const std::string& x, const std::string& y) {
  PlotSpec spec;
  spec.csv = dir.write("sweep.csv", kSweepCsv);
  spec.x = x;
  spec.y = y;
  spec.output = dir.path + "/figure.svg";
  return spec;
}

void require_svg(const std::string& svg) {
  REQUIRE((svg.starts_with("<?xml") || svg.starts_with("<svg")));
  const size_t end = svg.find_last_not_of(" \n");
  REQUIRE(end != std::string::npos);
  CHECK(svg.substr(0, end + 1).ends_with("</svg>"));
}

std::string input_error(const PlotSpec& spec) {
  try {
    plot(spec, DataPaths{});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("a line chart: the metric against a numeric input, one line per series value") {
  ScratchDir dir;
  PlotSpec spec = spec_for(dir, "network.delay", "step_time_s");
  spec.series = "parallelism.dp";
  spec.title = "GPipe under tc netem";
  const std::vector<std::string> notes = plot(spec, DataPaths{});
  CHECK(notes == std::vector<std::string>{"left out 2 of 8 rows without a step_time_s value (1 failed, 1 invalid)"});
  const std::string svg = read_text(spec.output);
  require_svg(svg);
  CHECK_THAT(svg, Catch::Contains(">network delay (ms); network bandwidth varies with it<"));
  CHECK_THAT(svg, Catch::Contains(">step time (s)<"));
  CHECK_THAT(svg, Catch::Contains(">data-parallel degree 1<"));
  CHECK_THAT(svg, Catch::Contains(">data-parallel degree 4<"));
  CHECK_THAT(svg, Catch::Contains("GPipe under tc netem"));
  CHECK_THAT(svg, Catch::Contains("> 5<")); // numeric ticks at the values, in ms as the CSV writes them
  CHECK_THAT(svg, !Catch::Contains("> 0.01<"));

  SECTION("--xlabel and --ylabel replace the labels, as text") {
    spec.x_label = "one-way delay, it's `touch x` (ms)";
    spec.y_label = "seconds per step";
    plot(spec, DataPaths{});
    const std::string labelled = read_text(spec.output);
    CHECK_THAT(labelled, Catch::Contains(">one-way delay, it's `touch x` (ms)<"));
    CHECK_THAT(labelled, Catch::Contains(">seconds per step<"));
    CHECK_THAT(labelled, !Catch::Contains("step time (s)"));
  }

  SECTION("the same inputs give the same bytes") {
    const std::string first = svg;
    plot(spec, DataPaths{});
    CHECK(read_text(spec.output) == first);
  }
}

TEST_CASE("a bar chart: one group per x value, one bar per series value") {
  ScratchDir dir;
  PlotSpec spec = spec_for(dir, "network.delay", "tokens_per_s");
  spec.series = "parallelism.dp";
  spec.kind = ChartKind::bar;
  plot(spec, DataPaths{});
  const std::string svg = read_text(spec.output);
  require_svg(svg);
  CHECK_THAT(svg, Catch::Contains(">throughput (tokens/s)<"));
  CHECK_THAT(svg, Catch::Contains(">data-parallel degree 4<"));
  for (const char* tick : {">1ms<", ">5ms<", ">10ms<", ">50ms<"}) // categories, as written
    CHECK_THAT(svg, Catch::Contains(tick));
}

TEST_CASE("a --where filter keeps one value of an input the chart does not show") {
  ScratchDir dir;
  PlotSpec spec = spec_for(dir, "network.delay", "tflops_per_gpu");
  spec.where = {"parallelism.dp=4"};
  spec.log_x = true;
  CHECK(plot(spec, DataPaths{}) == std::vector<std::string>{"left out 1 of 4 rows without a tflops_per_gpu value "
                                                             "(1 invalid)"});
  const std::string svg = read_text(spec.output);
  CHECK_THAT(svg, Catch::Contains(">model FLOP rate (TFLOP/s per GPU)<"));
  CHECK_THAT(svg, Catch::Contains("predicted"));
}

TEST_CASE("measured points of a validation table over the predicted lines") {
  ScratchDir dir;
  const DataPaths data = default_data_paths();
  PlotSpec spec = spec_for(dir, "network.delay", "step_time_s");
  spec.measured = "seed001-gpipe-dp";

  SECTION("one measured set per series value; the rows at the platform's own delay have no place") {
    spec.series = "parallelism.dp";
    const std::vector<std::string> notes = plot(spec, data);
    REQUIRE(notes.size() == 2);
    CHECK(notes[1] == "measured (seed001-gpipe-dp): plotted 6 of 8 rows; left out 2 whose network.delay has no "
                      "place on the x axis");
    const std::string svg = read_text(spec.output);
    CHECK_THAT(svg, Catch::Contains("measured data-parallel degree 1"));
    CHECK_THAT(svg, Catch::Contains("measured data-parallel degree 4"));
  }
  SECTION("one measured set for one configuration: the table's workload has dp 4") {
    spec.where = {"parallelism.dp=4"};
    const std::vector<std::string> notes = plot(spec, data);
    REQUIRE(notes.size() == 2);
    CHECK(notes[1] == "measured (seed001-gpipe-dp): plotted 3 of 8 rows; left out 4 whose parallelism.dp is not 4, "
                      "1 whose network.delay has no place on the x axis");
    CHECK_THAT(read_text(spec.output), Catch::Contains("measured (seed001-gpipe-dp)"));
  }
  SECTION("a table file by its path") {
    spec.series = "parallelism.dp";
    spec.measured = data.find("validation/tables/seed001-gpipe-dp.yaml");
    plot(spec, data);
    CHECK_THAT(read_text(spec.output), Catch::Contains("measured data-parallel degree 4"));
  }
  SECTION("a metric the table did not measure") {
    spec.series = "parallelism.dp";
    spec.y = "tokens_per_s";
    CHECK_THROWS_WITH(plot(spec, data), "--measured seed001-gpipe-dp: no row measured tokens_per_s (the table's "
                                        "rows measured: step_time_s)");
  }
}

TEST_CASE("a malformed table file is named as given, not by the link it is read through") {
  ScratchDir dir;
  PlotSpec spec = spec_for(dir, "network.delay", "step_time_s");
  spec.series = "parallelism.dp";
  spec.measured = dir.write("mine.yaml", "table: mine\nplatform: a.xml\nworkload: {}\nrows: [{id: r, nonsense: 1}]\n");
  const std::string message = input_error(spec);
  CHECK_THAT(message, Catch::StartsWith(spec.measured));
  CHECK_THAT(message, !Catch::Contains("simgpt-plot-"));
}

TEST_CASE("plot errors: a missing column lists the columns, a hidden input that varies is named") {
  ScratchDir dir;
  PlotSpec spec = spec_for(dir, "network.delay", "step_time");
  CHECK_THAT(input_error(spec), Catch::StartsWith("--y: no column 'step_time' in ") &&
                                    Catch::Contains("(columns: config, network.delay, network.bandwidth, "
                                                    "parallelism.dp, status, step_time_s,"));
  spec.y = "step_time_s";
  CHECK_THAT(input_error(spec), Catch::EndsWith("sweep.csv: parallelism.dp (1, 4) varies across the rows but is "
                                                "neither --x nor --series: keep one value with --where KEY=VALUE, "
                                                "or plot it as --series"));
  spec.where = {"parallelism.dp=2"};
  CHECK_THAT(input_error(spec), Catch::StartsWith("--where: no row of "));
  spec.where = {"parallelism.dp=4"};
  spec.y = "reason";
  CHECK_THAT(input_error(spec), Catch::EndsWith("sweep.csv:9: reason is 'bad \"value\"', not a number; --y needs a "
                                                "numeric column"));
  spec.y = "step_time_s";
  spec.csv = dir.write("empty.csv", "config,network.delay,status,step_time_s\n");
  CHECK_THAT(input_error(spec), Catch::EndsWith("empty.csv: has a header but no rows"));
}

TEST_CASE("an x axis is numeric when every value is a number or a quantity of one kind") {
  const XAxis delay("network.delay", {"10ms", "1ms", "0"}, false);
  CHECK(delay.numeric());
  CHECK(delay.label() == "network delay (ms)");
  CHECK(delay.position("10ms") == 10);
  CHECK(delay.position("0.02s") == 20); // a measured table's other spelling, in the axis's unit
  CHECK(delay.value_ticks() == std::vector<double>{0, 1, 10});
  CHECK(delay.categories().empty());
  const XAxis bandwidth("network.bandwidth", {"1Gbps", "10Gbps"}, false);
  CHECK(bandwidth.label() == "network bandwidth (Gbps)");
  CHECK(bandwidth.position("1Gbps") == 1);
  CHECK(bandwidth.position("10Gbps") == 10);

  const XAxis degrees("parallelism.dp", {"4", "1", "2"}, false);
  CHECK(degrees.numeric());
  CHECK(degrees.label() == "data-parallel degree");
  CHECK(degrees.value_ticks() == std::vector<double>{1, 2, 4});
  CHECK(XAxis("network.delay_s", {"0.001", "0.01"}, false).label() == "network delay (s)"); // an SI column

  // A sweep's `default` (the workload's own value) is no number: the others keep their numeric
  // axis, on which it has no place (it made every delay a category).
  const XAxis with_default("network.delay", {"default", "10ms", "1ms", "10ms"}, false);
  CHECK(with_default.numeric());
  CHECK(with_default.label() == "network delay (ms)");
  CHECK(with_default.position("1ms") == 1);
  CHECK(with_default.position("0.01s") == 10); // the same quantity
  CHECK_FALSE(with_default.position("default"));
  CHECK(with_default.value_ticks() == std::vector<double>{1, 10});
  // Only `default`, or text beside it: categories in the order they came.
  CHECK(XAxis("network.delay", {"default"}, false).categories() == std::vector<std::string>{"default"});
  const XAxis named("parallelism.schedule", {"default", "gpipe", "1f1b"}, false);
  CHECK_FALSE(named.numeric());
  CHECK(named.categories() == std::vector<std::string>{"default", "gpipe", "1f1b"});
  CHECK(named.position("1f1b") == 2);
  CHECK_FALSE(named.position("interleaved"));
  CHECK_FALSE(XAxis("platform", {"a.xml", "b.xml"}, false).numeric());
  CHECK_FALSE(XAxis("mixed", {"1ms", "5Gbps"}, false).numeric());

  // Bars stand at categories; numeric ones in order of value.
  const XAxis bars("network.delay", {"10ms", "1ms", "5ms"}, true);
  CHECK_FALSE(bars.numeric());
  CHECK(bars.categories() == std::vector<std::string>{"1ms", "5ms", "10ms"});
}

TEST_CASE("a metric's unit comes from its name") {
  CHECK(metric_unit("step_time_s") == "s");
  CHECK(metric_unit("critical_path.bubble_s") == "s");
  CHECK(metric_unit("tokens_per_s") == "tokens/s");
  CHECK(metric_unit("samples_per_s") == "samples/s");
  CHECK(metric_unit("tflops_per_gpu") == "TFLOP/s per GPU");
  CHECK(metric_unit("peak_memory_gib") == "GiB");
  CHECK(metric_unit("network.bandwidth_Bps") == "B/s");
  CHECK(metric_unit("model.memory_B") == "B");
  CHECK(metric_unit("oom") == "");
  CHECK(with_unit("peak_memory_gib", "GiB") == "peak_memory_gib (GiB)");
}

TEST_CASE("an axis of quantities is drawn in the unit they were written in") {
  using Q = QuantityKind;
  const auto unit = [](const std::vector<std::string>& values, Q kind) { return display_unit(values, kind).name; };
  // One unit throughout (0 needs none; tc's msec is ms): that unit.
  CHECK(unit({"1ms", "10ms", "0"}, Q::duration) == "ms");
  CHECK(unit({"10msec", "1ms"}, Q::duration) == "ms");
  CHECK(unit({"1Gbps", "10Gbps"}, Q::bandwidth) == "Gbps");
  CHECK(display_unit({"1Gbps", "10Gbps"}, Q::bandwidth).scale == 1.25e8);
  CHECK(unit({"1gbit", "10gbit"}, Q::bandwidth) == "Gbit/s");
  CHECK(unit({"25GBps"}, Q::bandwidth) == "GB/s");
  CHECK(unit({"16GiB", "80GiB"}, Q::size) == "GiB");
  CHECK(unit({"10us", "50us"}, Q::duration) == "µs");
  // Mixed: the prefix that draws the largest value at 1 or more, in the system written.
  CHECK(unit({"500us", "2ms"}, Q::duration) == "ms");
  CHECK(unit({"0.5s", "20ms"}, Q::duration) == "ms");
  CHECK(unit({"100Mbps", "2Gbps"}, Q::bandwidth) == "Gbps");
  CHECK(unit({"100Mbps", "800Mbit"}, Q::bandwidth) == "Mbps");
  CHECK(unit({"500MBps", "2Gbps"}, Q::bandwidth) == "MB/s"); // bits and bytes: bytes
  CHECK(unit({"512MiB", "2GiB"}, Q::size) == "GiB");
  CHECK(unit({"512MB", "2GiB"}, Q::size) == "GB");
  CHECK(unit({"1", "2"}, Q::number) == "");
  // In the unit to 15 digits: 10 us is 10, not the 9.999999999999998 of 1e-5 s / 1e-6.
  CHECK(in_unit("10us", Q::duration, display_unit({"10us"}, Q::duration)) == 10.0);
  CHECK(in_unit("2.5Gbps", Q::bandwidth, display_unit({"2.5Gbps"}, Q::bandwidth)) == 2.5);
  CHECK_FALSE(in_unit("default", Q::duration, DisplayUnit{"ms", 1e-3}));
}

TEST_CASE("a column's label is in words") {
  CHECK(column_words("step_time_s") == "step time");
  CHECK(column_words("tokens_per_s") == "throughput");
  CHECK(column_words("critical_path.exposed_comm_s") == "exposed communication");
  CHECK(column_words("network.delay") == "network delay");
  CHECK(column_words("training.micro_batch") == "micro-batch size");
  CHECK(column_words("network.delay_s") == "network delay");
  CHECK(column_words("network.bandwidth_Bps") == "network bandwidth");
  CHECK(column_words("framework_options.compute.fused_elementwise") ==
        "framework options compute fused elementwise");
  CHECK(column_words("my_tokens_per_s") == "my tokens per s"); // a rate keeps its words
  CHECK(column_words("x") == "x");
}

TEST_CASE("a series' value is in words in the legend") {
  CHECK(value_words("network.delay", "0ms") == "network delay 0 ms");
  CHECK(value_words("network.bandwidth", "10Gbps") == "network bandwidth 10 Gbps");
  CHECK(value_words("network.delay", "1e-3s") == "network delay 1e-3 s");
  CHECK(value_words("parallelism.dp", "4") == "data-parallel degree 4");
  CHECK(value_words("parallelism.schedule", "1f1b") == "pipeline schedule 1f1b"); // a name, not 1 f1b
  CHECK(value_words("network.delay", "default") == "default network delay");
  CHECK(value_words("platform", "a.xml") == "platform a.xml");
}

TEST_CASE("a figure's format is its extension's") {
  CHECK(figure_format("fig.svg", "-o") == FigureFormat::svg);
  CHECK(figure_format("out/fig.pdf", "-o") == FigureFormat::pdf);
  CHECK(figure_format("FIG.PNG", "-o") == FigureFormat::png);
  CHECK_THROWS_WITH(figure_format("fig.jpg", "-o"), "-o: 'fig.jpg' ends in .jpg; the figure's format comes from its "
                                                     "extension: .svg, .pdf or .png");
  CHECK_THROWS_WITH(figure_format("svg", "-o"), Catch::Contains("'svg' has no extension"));
  CHECK_THROWS_WITH(figure_format("fig.svg.gz", "-o"), Catch::Contains("ends in .gz"));

  // cairo's clock time, the one field two runs differ in, is blanked in place: offsets keep.
  const std::string pdf = "%PDF-1.5\n<< /Producer (cairo)\n   /CreationDate (D:20261125002942Z)\n>>\n";
  const std::string same = reproducible_figure(pdf, FigureFormat::pdf);
  CHECK(same.size() == pdf.size());
  CHECK_THAT(same, !Catch::Contains("CreationDate") && !Catch::Contains("2026") && Catch::Contains("/Producer"));
  CHECK(reproducible_figure("<svg>/CreationDate (x)</svg>", FigureFormat::svg) == "<svg>/CreationDate (x)</svg>");
}

TEST_CASE("plot writes the format -o names, the same bytes for the same chart") {
  ScratchDir dir;
  PlotSpec spec = spec_for(dir, "network.delay", "step_time_s");
  spec.series = "parallelism.dp";
  const auto drawn = [&](const std::string& name) {
    spec.output = dir.path + "/" + name;
    plot(spec, DataPaths{});
    return read_text(spec.output);
  };
  const std::string pdf = drawn("figure.pdf");
  CHECK(pdf.starts_with("%PDF-"));
  CHECK_THAT(pdf, !Catch::Contains("/CreationDate"));
  CHECK(drawn("again.pdf") == pdf);
  const std::string png = drawn("figure.png");
  CHECK(png.starts_with("\x89PNG\r\n\x1a\n"));
  CHECK(drawn("again.png") == png);
  require_svg(drawn("figure.SVG"));

  spec.output = dir.path + "/figure.jpg";
  CHECK_THAT(input_error(spec), Catch::StartsWith("-o: '") && Catch::EndsWith("ends in .jpg; the figure's format "
                                                                               "comes from its extension: .svg, .pdf "
                                                                               "or .png"));
  CHECK_FALSE(std::filesystem::exists(spec.output));
}

namespace {

Chart line_chart(std::vector<std::pair<double, double>> points) {
  Chart chart;
  chart.lines.push_back({"predicted", 0, false, std::move(points)});
  return chart;
}

} // namespace

TEST_CASE("the legend goes inside, in the corner the data leaves free") {
  CHECK(place_key(line_chart({{1, 1}, {2, 2}, {3, 3}})).corner == "top left");     // rising
  CHECK(place_key(line_chart({{1, 3}, {2, 2}, {3, 1}})).corner == "top right");    // falling
  CHECK(place_key(line_chart({{1, 1}, {2, 3}, {3, 1}})).corner == "top right");    // a peak: ties go right
  const KeyPlacement free = place_key(line_chart({{1, 3}, {2, 1}, {3, 3}}));        // a valley
  CHECK(free.corner == "bottom right");
  CHECK(free.top_offset == 0);

  // Bars as tall as each other fill every corner: room is made above them for the key.
  Chart bars = line_chart({{0, 5}, {1, 5}, {2, 5}});
  bars.kind = ChartKind::bar;
  bars.x_categories = {"a", "b", "c"};
  const KeyPlacement over = place_key(bars);
  CHECK(over.corner == "top right");
  CHECK(over.top_offset > 0);
  CHECK_THAT(gnuplot_script(bars), Catch::Contains("set key inside top right box opaque\n") &&
                                       Catch::Contains("set offsets 0, 0, graph "));
  CHECK_THAT(gnuplot_script(line_chart({{1, 1}, {2, 2}})), Catch::Contains("set key inside top left box opaque\n") &&
                                                               !Catch::Contains("set offsets"));
}

TEST_CASE("the terminal is the format's") {
  Chart chart = line_chart({{1, 1}, {2, 2}});
  CHECK_THAT(gnuplot_script(chart), Catch::StartsWith("set terminal svg "));
  chart.format = FigureFormat::pdf;
  CHECK_THAT(gnuplot_script(chart), Catch::StartsWith("set terminal pdfcairo "));
  chart.format = FigureFormat::png;
  CHECK_THAT(gnuplot_script(chart), Catch::StartsWith("set terminal pngcairo "));
}

TEST_CASE("a CSV with SI columns plots as one without: they are the keys' values, not inputs") {
  ScratchDir dir;
  PlotSpec spec = spec_for(dir, "network.delay", "step_time_s");
  spec.csv = dir.write("si.csv", "config,network.delay,network.delay_s,network.bandwidth,network.bandwidth_Bps,"
                                 "status,step_time_s,reason\n"
                                 "0,default,,default,,ok,15,\n"
                                 "1,1ms,0.001,5Gbps,625000000,ok,15.3,\n"
                                 "2,10ms,0.01,1Gbps,125000000,ok,22.1,\n");
  // The default row has no place on the axis of delays in ms: left out, and said so.
  CHECK(plot(spec, DataPaths{}) ==
        std::vector<std::string>{"left out 1 of 3 rows at network.delay=default (the workload's own value, no number "
                                 "on the x axis: plot them with --where network.delay=default)"});
  CHECK_THAT(read_text(spec.output), Catch::Contains(">network delay (ms); network bandwidth varies with it<"));
  spec.x = "network.delay_s";
  CHECK(input_error(spec) == "--x network.delay_s: is network.delay in SI units; give --x network.delay, which the "
                             "chart draws in the unit its values were written in");
  spec.x = "network.delay";
  spec.where = {"network.delay_s=0.01", "network.delay_s=0.001"}; // a filter may name one
  plot(spec, DataPaths{});
  CHECK_THAT(read_text(spec.output), Catch::Contains(">network delay (ms); network bandwidth varies with it<"));
}

TEST_CASE("without gnuplot, one line says what to install") {
  CHECK(find_on_path("sh") != "");
  CHECK(find_on_path("simgpt-no-such-program") == "");
  CHECK_THROWS_WITH(run_gnuplot("plot x\n", "simgpt-no-such-program"),
                    "simgpt-no-such-program not found on PATH: install gnuplot-nox (apt-get install gnuplot-nox)");
}

TEST_CASE("gnuplot's failure carries its message") {
  CHECK_THROWS_WITH(run_gnuplot("set terminal svg\nset no_such_option\n"), Catch::Contains("gnuplot failed:"));
}

TEST_CASE("a label reaches gnuplot single-quoted: no backquote, escape or macro is expanded") {
  CHECK(gnuplot_string("a`touch x`b") == "'a`touch x`b'");
  CHECK(gnuplot_string("it's") == "'it''s'");
  CHECK(gnuplot_string("back\\slash \"q\" @macro") == "'back\\slash \"q\" @macro'");
  CHECK(gnuplot_string("two\nlines") == "'two\\nlines'"); // one line: a newline would end the command
}

TEST_CASE("a gnuplot that runs past its limits is killed, not waited on") {
  ScratchDir dir;
  const auto fake = [&](const std::string& name, const std::string& body) {
    const std::string path = dir.write(name, "#!/bin/sh\n" + body + "\n");
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
  };
  // It never exits: a child of its own holds the pipes open too, and is killed with it.
  const std::string sleeper = fake("sleeper", "sleep 30 & sleep 30");
  CHECK_THROWS_WITH(run_gnuplot("plot x\n", sleeper, GnuplotLimits{.seconds = 0.3}),
                    Catch::Contains("did not finish within 0.3 s"));
  // It closes its output but never exits.
  const std::string lingerer = fake("lingerer", "exec >&- 2>&-; sleep 30");
  CHECK_THROWS_WITH(run_gnuplot("plot x\n", lingerer, GnuplotLimits{.seconds = 0.3}),
                    Catch::Contains("did not finish"));
  // It never stops printing.
  const std::string printer = fake("printer", "exec yes");
  CHECK_THROWS_WITH(run_gnuplot("plot x\n", printer, GnuplotLimits{.seconds = 30, .max_output_bytes = 1 << 20}),
                    Catch::Contains("wrote more than 1048576 bytes"));
}
