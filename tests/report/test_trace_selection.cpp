// --trace-gpus and --trace-window: what a trace draws, read from the command line.
#include "simgpt/core/error.hpp"
#include "simgpt/report/trace_selection.hpp"

#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <vector>

using namespace simgpt;

namespace {

// The message of the InputError that parsing `text` throws ("" when none), which names the option.
template <typename Parse> std::string refusal(Parse parse) {
  try {
    parse();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("a GPU list is indices and ranges, drawn ascending and once each") {
  CHECK(parse_trace_gpus("0-7,64", 512) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 64});
  CHECK(parse_trace_gpus("511", 512) == std::vector<int>{511});
  CHECK(parse_trace_gpus("9,3-4,0,4", 16) == std::vector<int>{0, 3, 4, 9});
  CHECK(parse_trace_gpus("2-2", 4) == std::vector<int>{2});
  CHECK(parse_trace_gpus("0-3,0-3", 4) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("a bad GPU list is refused naming --trace-gpus and the job's GPUs") {
  for (const std::string text : {"", ",", "0,", ",1", "0,,1", "a", "1-", "-1", "1--2", "1-2-3", " 1", "1 ", "+1",
                                 "0x10", "1.5", "0-7;64", "99999999999999999999999"}) {
    INFO("'" << text << "'");
    const std::string message = refusal([&] { parse_trace_gpus(text, 512); });
    CHECK_THAT(message, Catch::StartsWith("--trace-gpus: "));
    CHECK_THAT(message, Catch::Contains("0 to 511"));
  }
  CHECK_THAT(refusal([] { parse_trace_gpus("0-7,512", 512); }), Catch::Contains("GPU 512 is not one of the job's"));
  CHECK_THAT(refusal([] { parse_trace_gpus("8", 8); }), Catch::Contains("0 to 7"));
  CHECK_THAT(refusal([] { parse_trace_gpus("7-0", 8); }), Catch::Contains("runs backwards"));
}

TEST_CASE("a window is START:END in durations with units, either side open") {
  const double inf = std::numeric_limits<double>::infinity();
  const TraceWindow both = parse_trace_window("1.5s:2s");
  CHECK(both.start_s == 1.5);
  CHECK(both.end_s == 2.0);
  CHECK_FALSE(both.whole_step());
  const TraceWindow from = parse_trace_window("10ms:");
  CHECK(from.start_s == Approx(0.010));
  CHECK(from.end_s == inf);
  const TraceWindow to = parse_trace_window(":500ms");
  CHECK(to.start_s == 0);
  CHECK(to.end_s == Approx(0.5));
  CHECK(parse_trace_window(":").whole_step());
  CHECK(parse_trace_window("0:1min").end_s == 60);
}

TEST_CASE("a bad window is refused naming --trace-window") {
  for (const std::string text : {"", "1s", "1s:2s:3s", "1:2", "1s-2s", "a:b", "-1s:2s", "1s:inf", "2s:1s", "1s:1s",
                                 "1s:1000ms"}) {
    INFO("'" << text << "'");
    CHECK_THAT(refusal([&] { parse_trace_window(text); }), Catch::StartsWith("--trace-window: "));
  }
  CHECK_THAT(refusal([] { parse_trace_window("1:2"); }), Catch::Contains("has no unit"));
  CHECK_THAT(refusal([] { parse_trace_window("2s:1s"); }), Catch::Contains("not before its end"));
}
