#include "simgpt/study/sweep_grid.hpp"

#include "simgpt/core/error.hpp"
#include "study/sweep_file.hpp"
#include "study/si_column.hpp"
#include "study/sweep_output.hpp"

#include <catch2/catch.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

using simgpt::SweepGrid;

TEST_CASE("a sweep grid is the product of its axes, the last varying fastest") {
  SweepGrid grid;
  grid.add("network.delay=0ms,10ms", false);
  grid.add("parallelism.pp=2,4,8", false);
  CHECK(grid.keys() == std::vector<std::string>{"network.delay", "parallelism.pp"});
  REQUIRE(grid.size() == 6);
  CHECK(grid.values(0) == std::vector<std::string>{"0ms", "2"});
  CHECK(grid.values(1) == std::vector<std::string>{"0ms", "4"});
  CHECK(grid.values(3) == std::vector<std::string>{"10ms", "2"});
  CHECK(grid.values(5) == std::vector<std::string>{"10ms", "8"});
}

TEST_CASE("zipped keys advance together with the axis before them") {
  SweepGrid grid;
  grid.add("network.delay=default,1ms,10ms", false);
  grid.add("network.bandwidth=default,5Gbps,1Gbps", true);
  grid.add("platform=a.xml,b.xml", false);
  REQUIRE(grid.size() == 6);
  CHECK(grid.values(2) == std::vector<std::string>{"1ms", "5Gbps", "a.xml"});
  CHECK(grid.values(5) == std::vector<std::string>{"10ms", "1Gbps", "b.xml"});
}

TEST_CASE("a sweep grid refuses what it cannot run") {
  SweepGrid grid;
  CHECK_THROWS_AS(grid.add("network.delay", false), simgpt::InputError);
  CHECK_THROWS_AS(grid.add("network.delays=1ms", false), simgpt::InputError);
  CHECK_THROWS_AS(grid.add("network.delay=1ms,", false), simgpt::InputError);
  grid.add("network.delay=1ms,2ms", false);
  CHECK_THROWS_AS(grid.add("network.delay=3ms", false), simgpt::InputError);
  CHECK_THROWS_WITH(grid.add("network.bandwidth=1Gbps", true), Catch::Contains("has 1 values but is zipped"));
}

TEST_CASE("a sweep grid's size is bounded") {
  SweepGrid grid;
  std::string values = "1";
  for (int i = 2; i <= 1000; ++i)
    values += "," + std::to_string(i);
  grid.add("training.global_batch=" + values, false);
  grid.add("training.micro_batch=" + values, false);
  grid.add("parallelism.dp=" + values, false);
  CHECK_THROWS_AS(grid.size(), simgpt::LimitError);
}

TEST_CASE("a sweep grid refuses values and keys that are not one line of UTF-8 text", "[sweep]") {
  SweepGrid grid;
  CHECK_THROWS_WITH(grid.add("model.layers=\xff", false), Catch::Contains("is not UTF-8 text"));
  CHECK_THROWS_WITH(grid.add("model.layers=2,4\n8", false), Catch::Contains("value 2 is not UTF-8"));
  CHECK_THROWS_WITH(grid.add("model.layers=\xc0\xaf", false), Catch::Contains("is not UTF-8")); // overlong '/'
  CHECK_THROWS_WITH(grid.add("framework_options.\xff=1", false), Catch::Contains("key is not UTF-8"));
  grid.add("network.delay=1ms,\xc2\xb5s", false); // µs is text
  CHECK(grid.size() == 2);
}

TEST_CASE("a sweep grid of many zipped keys keeps each and refuses a repeated one", "[sweep]") {
  // Keys are checked against a set of those before them (a list made 30,000 keys take 20 s; the
  // time is a benchmark's: bench/sweep_zip_keys.sh).
  SweepGrid grid;
  grid.add("network.delay=1ms", false);
  for (int i = 0; i < 30000; ++i)
    grid.add("framework_options.k" + std::to_string(i) + "=1", true);
  CHECK(grid.keys().size() == 30001);
  CHECK_THROWS_WITH(grid.add("framework_options.k7=2", true), Catch::Contains("is swept twice"));
}

namespace {

// One key without an SI column: the lines below are written out by hand.
const simgpt::SweepColumns kKeys{{"network.delay"}, {std::nullopt}};

simgpt::SweepResult ok_result() {
  simgpt::SweepResult r;
  r.config = 1;
  r.inputs = {"1ms"};
  r.status = "ok";
  r.report = nlohmann::ordered_json::parse(R"({"step_time_s": 1.5, "oom": false, "critical_path": {"bubble_s": 0.25}})");
  r.configurations = 2;
  r.digest = "0123456789abcdef";
  return r;
}

} // namespace

TEST_CASE("a sweep line is read back whole, or refused", "[sweep]") {
  using simgpt::SweepFormat;
  for (const SweepFormat format : {SweepFormat::csv, SweepFormat::jsonl}) {
    const std::string line = simgpt::sweep_line(ok_result(), kKeys, format);
    const std::string text = line.substr(0, line.size() - 1);
    const simgpt::SweepResult r = simgpt::parse_sweep_line(text, kKeys, format);
    CHECK(r.config == 1);
    CHECK(r.inputs == std::vector<std::string>{"1ms"});
    CHECK(r.status == "ok");
    CHECK(r.digest == "0123456789abcdef");
    CHECK(simgpt::sweep_line(r, kKeys, format) == line);
  }
  const std::string csv = "1,1ms,ok,1.5,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdef";
  CHECK_NOTHROW(simgpt::parse_sweep_line(csv, kKeys, SweepFormat::csv));
  const auto refused = [](const std::string& line, const std::string& why) {
    CHECK_THROWS_WITH(simgpt::parse_sweep_line(line, kKeys, SweepFormat::csv), Catch::Contains(why));
  };
  refused("1,1ms,done,1.5,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdef", "status 'done'");
  refused("1,1ms,ok,nan,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdef", "not a finite number");
  refused("1,1ms,ok,1e999,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdef", "not a finite number");
  refused("1,1ms,ok,1.50,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdef", "not a line as simgpt sweep writes it");
  refused("1,1ms,ok,1.5,,,,,,,true,,0.25,,,,,,,,,2,0123456789abcdef", "disagrees with its oom");
  refused("1,1ms,ok,1.5,,,,,,,false,,0.25,,,,,,,,,2", "has 22 fields");
  refused("1,1ms,ok,1.5,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdeg", "not 16 hexadecimal digits");
  refused("2,1ms,ok,1.5,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdef", "not below its configurations");
  refused("-1,1ms,ok,1.5,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdef", "not a whole number");
  refused("1,1ms,invalid,,,,,,,,,,,,,,,,,,,2,0123456789abcdef", "has no reason");
  refused("1,\"1ms,ok,1.5,,,,,,,false,,0.25,,,,,,,,,2,0123456789abcdef", "never closed");
  CHECK_THROWS_WITH(simgpt::parse_sweep_line("{\"config\":1}", kKeys, SweepFormat::jsonl),
                    Catch::Contains("no text \"network.delay\""));
  CHECK_THROWS_WITH(simgpt::parse_sweep_line("[1]", kKeys, SweepFormat::jsonl), Catch::Contains("not a JSON object"));
}

TEST_CASE("a key swept as a quantity with units gets an SI column", "[sweep]") {
  using simgpt::QuantityKind;
  CHECK(simgpt::swept_quantity({"default", "1ms", "0"}) == QuantityKind::duration);
  CHECK(simgpt::swept_quantity({"1Gbps", "100Mbps"}) == QuantityKind::bandwidth);
  CHECK(simgpt::swept_quantity({"16GiB", "512MB"}) == QuantityKind::size);
  CHECK_FALSE(simgpt::swept_quantity({"1", "2", "4"}));      // numbers have no unit to parse
  CHECK_FALSE(simgpt::swept_quantity({"default"}));          // the platform's own: no value here
  CHECK_FALSE(simgpt::swept_quantity({"1ms", "1Gbps"}));     // mixed kinds
  CHECK_FALSE(simgpt::swept_quantity({"a.xml", "b.xml"}));   // text
  CHECK(simgpt::si_field("10us", QuantityKind::duration) == "1e-05"); // not 9.999999999999999e-06
  CHECK(simgpt::si_field("50ms", QuantityKind::duration) == "0.05");
  CHECK(simgpt::si_field("1Gbps", QuantityKind::bandwidth) == "125000000");
  CHECK(simgpt::si_field("25GBps", QuantityKind::bandwidth) == "25000000000");
  CHECK(simgpt::si_field("16GiB", QuantityKind::size) == "17179869184");
  CHECK_FALSE(simgpt::si_field("default", QuantityKind::duration));
  CHECK(simgpt::si_column_kind("network.delay", "network.delay_s") == QuantityKind::duration);
  CHECK_FALSE(simgpt::si_column_kind("network.delay", "network.bandwidth"));

  SweepGrid grid;
  grid.add("network.delay=default,10us,50ms", false);
  grid.add("network.bandwidth=default,1Gbps,25GBps", true);
  grid.add("training.micro_batch=1,2", false);
  const simgpt::SweepColumns columns = simgpt::sweep_columns(grid);
  CHECK(columns.keys == grid.keys());
  CHECK(columns.si == std::vector<std::optional<QuantityKind>>{QuantityKind::duration, QuantityKind::bandwidth,
                                                               std::nullopt});
  const std::string header = simgpt::sweep_csv_header(columns);
  CHECK_THAT(header, Catch::StartsWith("config,network.delay,network.delay_s,network.bandwidth,"
                                       "network.bandwidth_Bps,training.micro_batch,status,step_time_s,"));
  const simgpt::SweepColumns read = simgpt::sweep_header_columns(header.substr(0, header.size() - 1));
  CHECK(read.keys == columns.keys);
  CHECK(read.si == columns.si);

  using simgpt::SweepFormat;
  simgpt::SweepResult r = ok_result();
  r.config = 3;
  r.configurations = 6;
  r.inputs = {"10us", "1Gbps", "2"};
  const std::string csv = simgpt::sweep_line(r, columns, SweepFormat::csv);
  CHECK_THAT(csv, Catch::StartsWith("3,10us,1e-05,1Gbps,125000000,2,ok,1.5,"));
  CHECK(simgpt::parse_sweep_line(csv.substr(0, csv.size() - 1), columns, SweepFormat::csv).inputs == r.inputs);
  const std::string json = simgpt::sweep_line(r, columns, SweepFormat::jsonl);
  CHECK_THAT(json, Catch::StartsWith(R"({"config":3,"network.delay":"10us","network.delay_s":1e-05,)"
                                     R"("network.bandwidth":"1Gbps","network.bandwidth_Bps":125000000.0,)"
                                     R"("training.micro_batch":"2","status":"ok",)"));
  const simgpt::SweepColumns from_json = simgpt::sweep_jsonl_columns(json);
  CHECK(from_json.keys == columns.keys);
  CHECK(from_json.si == columns.si);
  CHECK(simgpt::parse_sweep_line(json.substr(0, json.size() - 1), columns, SweepFormat::jsonl).inputs == r.inputs);
  CHECK(simgpt::sweep_line_start(3, r.inputs, columns, SweepFormat::csv) == "3,10us,1e-05,1Gbps,125000000,2,");

  // `default` is the platform's own quantity: no SI value.
  r.inputs = {"default", "default", "1"};
  CHECK_THAT(simgpt::sweep_line(r, columns, SweepFormat::csv), Catch::StartsWith("3,default,,default,,1,ok,"));
  CHECK_THAT(simgpt::sweep_line(r, columns, SweepFormat::jsonl),
             Catch::Contains(R"("network.delay":"default","network.delay_s":null,)"));

  // An SI field that is not the key's value in SI units is an edited line.
  CHECK_THROWS_WITH(simgpt::parse_sweep_line("3,10us,0.00001,1Gbps,125000000,2,ok,1.5,,,,,,,false,,0.25,,,,,,,,,6,"
                                             "0123456789abcdef",
                                             columns, SweepFormat::csv),
                    Catch::Contains("not a line as simgpt sweep writes it"));
  CHECK_THROWS_WITH(simgpt::parse_sweep_line("3,10us,1Gbps,2,ok,1.5,,,,,,false,,0.25,,6,0123456789abcdef", columns,
                                             SweepFormat::csv),
                    Catch::Contains("3 input(s) and 2 in SI units"));
}

TEST_CASE("a grid whose key is another's SI column is refused", "[sweep]") {
  SweepGrid grid;
  grid.add("framework_options.wait=1ms,2ms", false);
  grid.add("framework_options.wait_s=1,2", false);
  CHECK_THROWS_WITH(simgpt::sweep_columns(grid), Catch::StartsWith("--grid framework_options.wait_s: ") &&
                                                     Catch::Contains("framework_options.wait"));
}

TEST_CASE("a failed write to a sweep file is cut back to its whole lines", "[sweep]") {
  char dir[] = "/tmp/simgpt_sweep_file.XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string path = std::string(dir) + "/sweep.csv";
  simgpt::SweepFileExpectation expect;
  expect.header = simgpt::sweep_csv_header(kKeys);
  expect.max_lines = 100;
  expect.check_line = [](int64_t, std::string_view) {};
  expect.line_start = [](int64_t) { return std::string(); };
  {
    simgpt::SweepFile file(path, {}, expect);
    // A file size limit fails the write as a full disk would (EFBIG rather than ENOSPC).
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit old_limit {};
    ::getrlimit(RLIMIT_FSIZE, &old_limit);
    struct rlimit limit = old_limit;
    limit.rlim_cur = expect.header.size() + 250;
    ::setrlimit(RLIMIT_FSIZE, &limit);
    const std::string line(99, 'x');
    CHECK_NOTHROW(file.append(line + "\n"));
    CHECK_NOTHROW(file.append(line + "\n"));
    CHECK_THROWS_WITH(file.append(line + "\n"), Catch::Contains("cannot be written") && Catch::Contains("a rerun resumes"));
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, previous);
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.size() == expect.header.size() + 200); // the header and two whole lines, not the cut third
  std::filesystem::remove_all(dir);
}

TEST_CASE("a sweep file is locked while a sweep writes it", "[sweep]") {
  char dir[] = "/tmp/simgpt_sweep_file.XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string path = std::string(dir) + "/sweep.jsonl";
  simgpt::SweepFileExpectation expect;
  expect.max_lines = 1;
  expect.check_line = [](int64_t, std::string_view) {};
  expect.line_start = [](int64_t) { return std::string(); };
  {
    simgpt::SweepFile first(path, {}, expect);
    CHECK_THROWS_WITH(simgpt::SweepFile(path, {}, expect), Catch::Contains("is being written by another"));
  }
  CHECK_NOTHROW(simgpt::SweepFile(path, {}, expect)); // free once the first is closed
  std::filesystem::remove_all(dir);
}
