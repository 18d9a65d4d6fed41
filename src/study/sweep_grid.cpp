#include "simgpt/study/sweep_grid.hpp"

#include "core/checked_int.hpp"
#include "core/utf8.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace simgpt {
namespace {

std::vector<std::string> split_values(const std::string& list, const std::string& where) {
  std::vector<std::string> values;
  size_t begin = 0;
  for (;;) {
    const size_t comma = list.find(',', begin);
    std::string value = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (value.empty())
      throw InputError(where, "expected KEY=V1,V2,... with no empty value");
    // Not echoed: the value's bytes are what is wrong with it.
    if (!is_printable_utf8(value))
      throw InputError(where, fmt::format("value {} is not UTF-8 text without control characters", values.size() + 1));
    values.push_back(std::move(value));
    if (comma == std::string::npos)
      return values;
    begin = comma + 1;
  }
}

} // namespace

void SweepGrid::add(const std::string& argument, bool zip) {
  const std::string option = zip ? "--zip" : "--grid";
  const size_t eq = argument.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(option + " " + echo(argument), "expected KEY=V1,V2,... (e.g. network.delay=0ms,10ms)");
  const std::string key = argument.substr(0, eq);
  const std::string where = option + " " + echo(key);
  if (!is_printable_utf8(key)) // framework_options.KEY takes any KEY; it names a column
    throw InputError(where, "the key is not UTF-8 text without control characters");
  if (key != "platform" && key != "workload")
    check_override_key(key);
  if (swept.contains(key))
    throw InputError(where, "is swept twice: give each key once");
  std::vector<std::string> values = split_values(argument.substr(eq + 1), where);
  if (zip && !axes.empty()) {
    SweepAxis& axis = axes.back();
    if (values.size() != axis.size())
      throw InputError(where, fmt::format("has {} values but is zipped with {}, which has {}: zipped keys need "
                                          "lists of one length",
                                          values.size(), echo(axis.keys.front()), axis.size()));
    swept.insert(key);
    axis.keys.push_back(key);
    axis.values.push_back(std::move(values));
    return;
  }
  swept.insert(key);
  axes.push_back({{key}, {std::move(values)}});
}

std::vector<std::string> SweepGrid::keys() const {
  std::vector<std::string> keys;
  for (const SweepAxis& axis : axes)
    keys.insert(keys.end(), axis.keys.begin(), axis.keys.end());
  return keys;
}

int64_t SweepGrid::size() const {
  int64_t n = 1;
  for (const SweepAxis& axis : axes) {
    const std::optional<int64_t> product = checked_mul(n, static_cast<int64_t>(axis.size()));
    if (!product || *product > kMaxSweepConfigurations)
      throw LimitError("--grid", fmt::format("the sweep has more than {} configurations; split it into several "
                                             "sweeps", kMaxSweepConfigurations));
    n = *product;
  }
  return n;
}

std::vector<std::string> SweepGrid::values(int64_t index) const {
  std::vector<size_t> at(axes.size());
  for (size_t a = axes.size(); a-- > 0;) {
    const auto n = static_cast<int64_t>(axes[a].size());
    at[a] = static_cast<size_t>(index % n);
    index /= n;
  }
  std::vector<std::string> values;
  for (size_t a = 0; a < axes.size(); ++a)
    for (const std::vector<std::string>& key_values : axes[a].values)
      values.push_back(key_values[at[a]]);
  return values;
}

} // namespace simgpt
