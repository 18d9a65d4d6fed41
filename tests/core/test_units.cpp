#include "core/units.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace simgpt;

TEST_CASE("durations, bandwidths and sizes parse with their units") {
  CHECK(parse_duration("10ms") == Approx(0.010));
  CHECK(parse_duration("50us") == Approx(50e-6));
  CHECK(parse_duration("2") == Approx(2.0));
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
  CHECK(parse_duration("1e15") == Approx(1e15));
  CHECK_THROWS_AS(parse_duration("1.1e15"), std::invalid_argument);
}
