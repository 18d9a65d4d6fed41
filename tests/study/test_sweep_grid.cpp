#include "simgpt/study/sweep_grid.hpp"

#include "simgpt/core/error.hpp"

#include <catch2/catch.hpp>

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
