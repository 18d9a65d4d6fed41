#include "simgpt/framework/parameters.hpp"

#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/framework/profile.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>

using namespace simgpt;

TEST_CASE("every registered profile parameter round-trips through set and get") {
  std::set<std::string_view> keys;
  for (const ProfileParameter& param : profile_parameters()) {
    INFO(param.key);
    CHECK(keys.insert(param.key).second);
    CHECK(param.min < param.max);
    CHECK((!param.log_scale || param.min > 0)); // a logarithmic search needs a positive range
    CHECK(!param.meaning.empty());
    CHECK(!param.source.empty());
    const std::string key(param.key);
    Profile p;
    const double value = (param.min + param.max) / 2;
    set_profile_parameter(p, key, value);
    CHECK(get_profile_parameter(p, key) == value);
    // Each key has its own field: setting one leaves the others as they were.
    const Profile fresh;
    for (const ProfileParameter& other : profile_parameters())
      if (other.key != param.key)
        CHECK(get_profile_parameter(p, std::string(other.key)) == get_profile_parameter(fresh, std::string(other.key)));
  }
  CHECK(keys.size() == profile_parameters().size());
}

TEST_CASE("a profile parameter written in its file unit reads back as its value") {
  // calibrate --write formats the value this way; the profile loader must parse it back.
  for (const ProfileParameter& param : profile_parameters()) {
    INFO(param.key);
    const double value = (param.min + param.max) / 3;
    const std::string text = fmt::format("{:.4g}{}", value * param.per_si, param.unit);
    double parsed = 0;
    if (param.si_unit == "s")
      parsed = parse_duration(text);
    else if (param.si_unit == "B")
      parsed = parse_bytes(text);
    else if (param.si_unit == "B/s")
      parsed = parse_bandwidth(text);
    else {
      REQUIRE(param.si_unit.empty());
      REQUIRE(param.unit.empty());
      parsed = std::stod(text);
    }
    CHECK(parsed == Approx(value).epsilon(1e-3));
  }
}

TEST_CASE("an unknown profile parameter names the valid keys") {
  CHECK(&find_profile_parameter("p2p.tcp_window", "here") == &profile_parameters()[3]);
  try {
    find_profile_parameter("compute.nosuch", "profiles/x.yaml: calibration.fitted");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.where() == "profiles/x.yaml: calibration.fitted");
    for (const ProfileParameter& param : profile_parameters())
      CHECK_THAT(e.message(), Catch::Matchers::Contains(std::string(param.key)));
  }
  Profile p;
  CHECK_THROWS_AS(set_profile_parameter(p, "collectives.dp_bucket", 1), InputError);
}

TEST_CASE("the markdown table has one row per profile parameter") {
  const std::string table = profile_parameters_markdown();
  CHECK(table.starts_with("| key | unit | range | meaning |\n"));
  CHECK(std::count(table.begin(), table.end(), '\n') == static_cast<long>(profile_parameters().size()) + 2);
  CHECK_THAT(table, Catch::Matchers::Contains("| p2p.max_rate | Gbps | 0.1 - 100 |"));
  CHECK_THAT(table, Catch::Matchers::Contains("| compute.microbatch_overhead | ms | 0 - 50 |"));
}

TEST_CASE("a parameter set by --profile-set is finite and within its range, or refused naming the key") {
  Profile p;
  for (const char* key : {"compute.microbatch_overhead", "compute.op_overhead", "p2p.bandwidth_efficiency"})
    for (const double value : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(), -1.0, 1e300}) {
      INFO(key << " = " << value);
      try {
        set_profile_parameter(p, key, value);
        FAIL("accepted");
      } catch (const InputError& e) {
        CHECK(e.where() == std::string("--profile-set ") + key);
        CHECK_THAT(e.message(), Catch::Contains("is out of range (expected "));
      }
    }
  CHECK_THROWS_WITH(set_profile_parameter(p, "compute.microbatch_overhead", 0.06),
                    Catch::Contains("0.06 is out of range (expected 0 to 0.05 s)"));
  CHECK_THROWS_WITH(set_profile_parameter(p, "compute.bogus", 1), Catch::Contains("--profile-set compute.bogus"));
  // 0 turns a TCP window or a throughput ceiling off, though the range calibration searches starts above it.
  set_profile_parameter(p, "p2p.tcp_window", 0);
  set_profile_parameter(p, "p2p.max_rate", 0);
  CHECK_THROWS_WITH(set_profile_parameter(p, "p2p.max_rate", 1), Catch::Contains("or 0 for none"));
  CHECK_THROWS_WITH(set_profile_parameter(p, "memory.logits_bytes", 0), Catch::Contains("expected 2 to 32"));
}

TEST_CASE("a simulation's profile overrides are checked where they are applied") {
  DataPaths data = default_data_paths();
  data.profile_overrides.emplace_back("compute.microbatch_overhead", std::numeric_limits<double>::quiet_NaN());
  Workload w;
  w.framework = "ds3-gpipe";
  w.source = "w.yaml";
  CHECK_THROWS_WITH(load_workload_profile(w, data), Catch::Contains("--profile-set compute.microbatch_overhead: nan"));
}
