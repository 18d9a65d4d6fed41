#include "study/input_value.hpp"

#include "core/units.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <unordered_set>

namespace simgpt {
namespace {

std::optional<double> bare_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

template <class Parse>
std::optional<double> parsed(const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

bool is_platform_file(const std::string& text) { return text.ends_with(".xml"); }

} // namespace

std::optional<double> value_in_si(const std::string& text, QuantityKind kind) {
  switch (kind) {
  case QuantityKind::number:
    return bare_number(text);
  case QuantityKind::duration:
    return parsed(text, parse_duration);
  case QuantityKind::bandwidth:
    return parsed(text, parse_bandwidth);
  case QuantityKind::size:
    return parsed(text, parse_bytes);
  }
  return std::nullopt;
}

std::optional<QuantityKind> quantity_kind(const std::string& text) {
  if (bare_number(text))
    return QuantityKind::number;
  // The parsers' unit suffixes do not overlap, so at most one of them reads a value with a unit.
  for (QuantityKind kind : {QuantityKind::duration, QuantityKind::bandwidth, QuantityKind::size})
    if (value_in_si(text, kind))
      return kind;
  return std::nullopt;
}

std::optional<QuantityKind> common_kind(const std::vector<std::string>& values) {
  std::optional<QuantityKind> unit; // the kind named by a unit, if any value has one
  for (const std::string& v : values) {
    const std::optional<QuantityKind> kind = quantity_kind(v);
    if (!kind)
      return std::nullopt;
    if (*kind != QuantityKind::number && unit && *unit != *kind)
      return std::nullopt;
    if (*kind != QuantityKind::number)
      unit = kind;
  }
  if (values.empty())
    return std::nullopt;
  const QuantityKind kind = unit.value_or(QuantityKind::number);
  const bool all_read = std::all_of(values.begin(), values.end(),
                                    [&](const std::string& v) { return value_in_si(v, kind).has_value(); });
  return all_read ? std::optional<QuantityKind>(kind) : std::nullopt;
}

const char* si_unit(QuantityKind kind) {
  switch (kind) {
  case QuantityKind::duration:
    return "s";
  case QuantityKind::bandwidth:
    return "B/s";
  case QuantityKind::size:
    return "B";
  case QuantityKind::number:
    break;
  }
  return "";
}

bool same_value(const std::string& a, const std::string& b) {
  if (a == b)
    return true;
  if (is_platform_file(a) && is_platform_file(b))
    return std::filesystem::path(a).filename() == std::filesystem::path(b).filename();
  const std::optional<QuantityKind> kind = common_kind({a, b});
  return kind && value_in_si(a, *kind) == value_in_si(b, *kind);
}

std::vector<std::string> ordered_values(const std::vector<std::string>& values) {
  std::vector<std::string> distinct;
  std::unordered_set<std::string> seen; // linear in the values, however many are distinct
  for (const std::string& v : values)
    if (seen.insert(v).second)
      distinct.push_back(v);
  if (const std::optional<QuantityKind> kind = common_kind(distinct))
    std::stable_sort(distinct.begin(), distinct.end(), [&](const std::string& x, const std::string& y) {
      return *value_in_si(x, *kind) < *value_in_si(y, *kind);
    });
  return distinct;
}

} // namespace simgpt
