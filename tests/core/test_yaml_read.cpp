#include "core/checked_int.hpp"
#include "core/yaml_read.hpp"
#include "simgpt/core/error.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

using namespace simgpt;

namespace {
std::string key_error(const std::string& yaml) {
  try {
    check_keys(YAML::Load(yaml), "f.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("checked arithmetic refuses what does not fit in 64 bits") {
  constexpr int64_t max = std::numeric_limits<int64_t>::max();
  CHECK(checked_mul(65536, 65536) == int64_t{1} << 32);
  CHECK_FALSE(checked_mul(int64_t{1} << 32, int64_t{1} << 32)); // wraps to 0 unchecked
  CHECK_FALSE(checked_mul(max, 2));
  CHECK(checked_add(max - 1, 1) == max);
  CHECK_FALSE(checked_add(max, 1));
}

TEST_CASE("a YAML mapping may not repeat a key or use a list as a key") {
  CHECK(key_error("a: 1\nb: {c: 1, d: [1, {e: 2}]}\n").empty());
  CHECK_THAT(key_error("a: 1\nb: 2\na: 3\n"), Catch::Contains("f.yaml: a: duplicated key"));
  CHECK_THAT(key_error("b: {c: 1, c: 2}\n"), Catch::Contains("f.yaml: b.c: duplicated key"));
  CHECK_THAT(key_error("b: [{x: 1}, {x: 1, x: 2}]\n"), Catch::Contains("f.yaml: b[1].x: duplicated key"));
  CHECK_THAT(key_error("? [a, b]\n: 1\n"), Catch::Contains("plain names"));
}

TEST_CASE("aliases that repeat nodes past the limit are refused quickly") {
  std::string yaml = "a: &a [1,1,1,1,1,1,1,1,1,1]\n";
  std::string prev = "a";
  for (int i = 1; i <= 9; ++i) {
    const std::string name = "n" + std::to_string(i);
    yaml += name + ": &" + name + " [";
    for (int j = 0; j < 10; ++j)
      yaml += (j ? ",*" : "*") + prev;
    yaml += "]\n";
    prev = name;
  }
  CHECK_THROWS_AS(check_keys(YAML::Load(yaml), "f.yaml"), LimitError);
}

// Found by tests/fuzz/workload.cpp (tests/fuzz/regressions/workload-1): yaml-cpp lets an alias name
// the node it is in, and the walk recursed until the stack overflowed.
TEST_CASE("an alias inside the node it names is refused rather than followed forever") {
  for (const char* yaml : {"a: &x [*x]\n", "a: &x\n  b: *x\n", "model:\n  la{ers: &a\n   4hidden: *a\n  hea1, 2]\n"})
    CHECK_THROWS_WITH(check_keys(YAML::Load(yaml), "f.yaml"), Catch::Contains("an alias inside the node it names"));
}

TEST_CASE("one_line escapes control characters and bounds the length") {
  CHECK(one_line(std::string("a\nb\0c\t\x7f", 7), 80) == "a\\nb\\x00c\\t\\x7f");
  CHECK(echo(std::string(81, 'z')) == std::string(80, 'z') + "...");
  CHECK(echo(std::string(80, 'z')) == std::string(80, 'z'));
  const InputError e("f.yaml\nx", std::string(100000, 'm'));
  CHECK(std::string(e.what()).find('\n') == std::string::npos);
  CHECK(std::string(e.what()).size() < 2100);
}
