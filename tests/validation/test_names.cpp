#include "validation/names.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace simgpt;

namespace {

// Each value of a name table has one name, and parsing that name gives the value back.
template <typename Enum, std::size_t N>
void check_round_trip(const NamedValue<Enum> (&names)[N]) {
  std::set<std::string> seen;
  for (const NamedValue<Enum>& n : names) {
    INFO(n.name);
    CHECK(seen.insert(n.name).second);
    CHECK(name_in(names, n.value) == std::string(n.name));
    CHECK(value_named(names, n.name) == n.value);
  }
}

} // namespace

TEST_CASE("validation's enums print and parse by one name table each") {
  check_round_trip(kTableKindNames);
  check_round_trip(kPeakMemoryNames);
  check_round_trip(kCaseStatusNames);
  check_round_trip(kCaseMetricNames);
  check_round_trip(kThresholdStatusNames);
  CHECK_FALSE(value_named(kTableKindNames, "Workload"));
  CHECK(names_or(kTableKindNames) == "workload or transfer");
  CHECK(names_or(kCaseStatusNames) == "compared, not_simulated or skipped");
}
