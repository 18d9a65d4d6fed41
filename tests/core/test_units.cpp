#include "core/units.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace simgpt;

TEST_CASE("durations, bandwidths and sizes parse with their units") {
  CHECK(parse_duration("10ms") == Approx(0.010));
  CHECK(parse_duration("50us") == Approx(50e-6));
  CHECK(parse_duration("2s") == Approx(2.0));
  CHECK(parse_bandwidth("1Gbps") == Approx(1.25e8));
  CHECK(parse_bandwidth("25GBps") == Approx(25e9));
  CHECK(parse_bytes("16GiB") == Approx(16.0 * (1ull << 30)));
  CHECK_THROWS_AS(parse_duration("10 parsecs"), std::invalid_argument);
  CHECK_THROWS_AS(parse_bandwidth("fast"), std::invalid_argument);
  CHECK_THROWS_AS(parse_duration("-1ms"), std::invalid_argument);
}

TEST_CASE("a quantity is checked after its unit is applied") {
  CHECK_THROWS_AS(parse_duration("1e300min"), std::invalid_argument); // finite as written, not in seconds
  CHECK_THROWS_AS(parse_bandwidth("1e300TBps"), std::invalid_argument);
  CHECK_THROWS_AS(parse_bytes("inf"), std::invalid_argument);
  CHECK(parse_bandwidth("3350GBps") == Approx(3.35e12)); // an H100's HBM3
  CHECK(parse_duration("1e15s") == Approx(1e15));
  CHECK_THROWS_AS(parse_duration("1.1e15s"), std::invalid_argument);
}

TEST_CASE("a quantity without its unit is refused, naming the units, but 0") {
  for (const char* bare : {"10", "2.5", "1e3"}) {
    CHECK_THROWS_WITH(parse_duration(bare), Catch::Contains("has no unit") && Catch::Contains("ms"));
    CHECK_THROWS_WITH(parse_bytes(bare), Catch::Contains("has no unit") && Catch::Contains("GiB"));
    CHECK_THROWS_WITH(parse_bandwidth(bare), Catch::Contains("has no unit") && Catch::Contains("Gbps"));
  }
  CHECK(parse_duration("0") == 0);
  CHECK(parse_bytes("0") == 0);
  CHECK(parse_bandwidth("0.0") == 0);
}

TEST_CASE("tc's spellings are taken as tc means them") {
  // tc(8): TIMES s/sec/secs, ms/msec/msecs, us/usec/usecs; RATES bit, kbit, mbit, gbit, tbit (SI)
  // and kibit ... tibit (IEC).
  CHECK(parse_duration("10msec") == Approx(0.010));
  CHECK(parse_duration("2secs") == Approx(2.0));
  CHECK(parse_duration("500usec") == Approx(500e-6));
  CHECK(parse_bandwidth("1gbit") == Approx(1.25e8));
  CHECK(parse_bandwidth("100mbit") == Approx(1.25e7));
  CHECK(parse_bandwidth("1mibit") == Approx(1024.0 * 1024 / 8));
  CHECK(parse_bandwidth("1Gbps") == parse_bandwidth("1gbit"));
  // tc's byte rates (mbps: megabytes a second) would read as simgpt's bits: refused, not guessed.
  CHECK_THROWS_AS(parse_bandwidth("10mbps"), std::invalid_argument);
}

TEST_CASE("a unit's scale is the parser's, for the units it takes only") {
  CHECK(simgpt::duration_unit_scale("ms") == 1e-3);
  CHECK(simgpt::duration_unit_scale("msec") == 1e-3);
  CHECK(simgpt::bandwidth_unit_scale("Gbps") == 1.25e8);
  CHECK(simgpt::bandwidth_unit_scale("GBps") == 1e9);
  CHECK(simgpt::size_unit_scale("GiB") == 1024.0 * 1024 * 1024);
  CHECK_FALSE(simgpt::duration_unit_scale("Gbps"));
  CHECK_FALSE(simgpt::bandwidth_unit_scale("gbps")); // tc's byte rate: not taken
  CHECK_FALSE(simgpt::size_unit_scale(""));
  // A value times its unit's scale is what the parser reads.
  CHECK(10 * *simgpt::duration_unit_scale("ms") == simgpt::parse_duration("10ms"));
  CHECK(2.5 * *simgpt::bandwidth_unit_scale("Gbps") == simgpt::parse_bandwidth("2.5Gbps"));
  CHECK(3 * *simgpt::size_unit_scale("GiB") == simgpt::parse_bytes("3GiB"));
}
