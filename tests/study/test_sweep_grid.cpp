#include "simgpt/study/sweep_grid.hpp"

#include "simgpt/core/error.hpp"
#include "study/sweep_file.hpp"
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

const std::vector<std::string> kKeys{"network.delay"};

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
  const std::string csv = "1,1ms,ok,1.5,,,,,,false,,0.25,,2,0123456789abcdef";
  CHECK_NOTHROW(simgpt::parse_sweep_line(csv, kKeys, SweepFormat::csv));
  const auto refused = [](const std::string& line, const std::string& why) {
    CHECK_THROWS_WITH(simgpt::parse_sweep_line(line, kKeys, SweepFormat::csv), Catch::Contains(why));
  };
  refused("1,1ms,done,1.5,,,,,,false,,0.25,,2,0123456789abcdef", "status 'done'");
  refused("1,1ms,ok,nan,,,,,,false,,0.25,,2,0123456789abcdef", "not a finite number");
  refused("1,1ms,ok,1e999,,,,,,false,,0.25,,2,0123456789abcdef", "not a finite number");
  refused("1,1ms,ok,1.50,,,,,,false,,0.25,,2,0123456789abcdef", "not a line as simgpt sweep writes it");
  refused("1,1ms,ok,1.5,,,,,,true,,0.25,,2,0123456789abcdef", "disagrees with its oom");
  refused("1,1ms,ok,1.5,,,,,,false,,0.25,,2", "has 14 fields");
  refused("1,1ms,ok,1.5,,,,,,false,,0.25,,2,0123456789abcdeg", "not 16 hexadecimal digits");
  refused("2,1ms,ok,1.5,,,,,,false,,0.25,,2,0123456789abcdef", "not below its configurations");
  refused("-1,1ms,ok,1.5,,,,,,false,,0.25,,2,0123456789abcdef", "not a whole number");
  refused("1,1ms,invalid,,,,,,,,,,,2,0123456789abcdef", "has no reason");
  refused("1,\"1ms,ok,1.5,,,,,,false,,0.25,,2,0123456789abcdef", "never closed");
  CHECK_THROWS_WITH(simgpt::parse_sweep_line("{\"config\":1}", kKeys, SweepFormat::jsonl),
                    Catch::Contains("no text \"network.delay\""));
  CHECK_THROWS_WITH(simgpt::parse_sweep_line("[1]", kKeys, SweepFormat::jsonl), Catch::Contains("not a JSON object"));
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
