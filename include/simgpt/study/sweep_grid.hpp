// The configurations of a what-if study: a cartesian product of axes, each axis one key's list
// of values or several keys' lists zipped (advancing together).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace simgpt {

// A value that leaves its key as the workload (or the platform) has it.
inline constexpr const char* kDefaultValue = "default";

// `platform` (a platform file) and `workload` (a workload file) may be swept besides the keys
// --set accepts.
struct SweepAxis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values; // values[k][i]: key k's value at the axis's i-th point
  size_t size() const { return values.empty() ? 0 : values.front().size(); }
};

struct SweepGrid {
  std::vector<SweepAxis> axes;
  // Every axis's keys, for add's check of a key swept twice in constant time: 30,000 --zip keys
  // checked against a list took 20 s.
  std::unordered_set<std::string> swept;

  // "KEY=V1,V2,...": a new axis (`zip` false), or one more key zipped into the last axis, whose
  // length it must have. Throws InputError naming the option for a malformed argument, an empty
  // value, a value that is not UTF-8 text or holds a control character (values are written into
  // CSV fields and JSON strings, one line each), a key already swept, a key --set does not
  // accept, or a zip of another length.
  void add(const std::string& argument, bool zip);

  std::vector<std::string> keys() const; // every axis's keys, in order
  // The number of configurations; throws LimitError beyond kMaxSweepConfigurations.
  int64_t size() const;
  // Configuration `index`'s value of each key (keys() order); the last axis varies fastest.
  std::vector<std::string> values(int64_t index) const;
};

// A sweep's configurations are listed, ordered and written one by one: bounded so a typo cannot
// ask for 10^20 of them.
inline constexpr int64_t kMaxSweepConfigurations = 100'000'000;

} // namespace simgpt
