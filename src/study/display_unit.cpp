#include "study/display_unit.hpp"

#include "core/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

namespace simgpt {
namespace {

// The name a unit suffix is drawn with: tc's spellings as SI writes them, rates with "/s" where
// the suffix has no "ps"; any other suffix as written.
std::string display_name(std::string_view suffix) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 24> names{{
      {"sec", "s"},        {"secs", "s"},       {"msec", "ms"},      {"msecs", "ms"},     {"us", "µs"},
      {"usec", "µs"},      {"usecs", "µs"},     {"nsec", "ns"},      {"nsecs", "ns"},     {"bit", "bit/s"},
      {"kbit", "kbit/s"},  {"mbit", "Mbit/s"},  {"gbit", "Gbit/s"},  {"tbit", "Tbit/s"},  {"kibit", "Kibit/s"},
      {"mibit", "Mibit/s"}, {"gibit", "Gibit/s"}, {"tibit", "Tibit/s"}, {"Bps", "B/s"},     {"kBps", "kB/s"},
      {"MBps", "MB/s"},    {"GBps", "GB/s"},    {"TBps", "TB/s"},    {"s", "s"},
  }};
  for (const auto& [from, to] : names)
    if (suffix == from)
      return std::string(to);
  return std::string(suffix);
}

std::optional<double> unit_scale(std::string_view suffix, QuantityKind kind) {
  switch (kind) {
  case QuantityKind::duration:
    return duration_unit_scale(suffix);
  case QuantityKind::bandwidth:
    return bandwidth_unit_scale(suffix);
  case QuantityKind::size:
    return size_unit_scale(suffix);
  case QuantityKind::number:
    break;
  }
  return std::nullopt;
}

// The unit suffix of a value: what follows its number ("ms" of "10ms"); empty for a bare number.
std::string_view suffix_of(const std::string& value) {
  double number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc())
    return {};
  return std::string_view(end, static_cast<size_t>(value.data() + value.size() - end));
}

using Ladder = std::vector<DisplayUnit>; // one system's units, smallest first

const Ladder& ladder(QuantityKind kind, bool bits, bool binary) {
  static const Ladder seconds{{"ns", 1e-9}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  static const Ladder bit_rates{{"bps", 1.0 / 8}, {"kbps", 1e3 / 8}, {"Mbps", 1e6 / 8}, {"Gbps", 1e9 / 8},
                                {"Tbps", 1e12 / 8}};
  static const Ladder byte_rates{{"B/s", 1}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}};
  static const Ladder decimal_sizes{{"B", 1}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
  static const Ladder binary_sizes{{"B", 1}, {"KiB", 1024.0}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024}};
  if (kind == QuantityKind::duration)
    return seconds;
  if (kind == QuantityKind::bandwidth)
    return bits ? bit_rates : byte_rates;
  return binary ? binary_sizes : decimal_sizes;
}

} // namespace

double round_to_dbl_dig(double x) {
  const std::string text = fmt::format("{:.15g}", x);
  double rounded = x;
  std::from_chars(text.data(), text.data() + text.size(), rounded);
  return rounded;
}

DisplayUnit display_unit(const std::vector<std::string>& values, QuantityKind kind) {
  if (kind == QuantityKind::number)
    return {};
  std::optional<DisplayUnit> written; // the unit the values share, while they share one
  bool shared = true, bits = true, binary = true;
  double largest = 0;
  for (const std::string& value : values) {
    largest = std::max(largest, std::fabs(value_in_si(value, kind).value_or(0)));
    const std::string_view suffix = suffix_of(value);
    if (suffix.empty())
      continue; // 0 needs no unit
    bits = bits && (suffix.ends_with("bps") || suffix.ends_with("bit"));
    binary = binary && suffix.ends_with("iB");
    const DisplayUnit unit{display_name(suffix), unit_scale(suffix, kind).value_or(1)};
    if (!written)
      written = unit;
    else if (written->name != unit.name)
      shared = false;
  }
  if (written && shared)
    return *written;
  const Ladder& units = ladder(kind, bits && written, binary && written);
  if (largest == 0) // every value 0: the system's base unit
    return *std::find_if(units.begin(), units.end(), [](const DisplayUnit& u) { return u.scale >= 1.0 / 8; });
  DisplayUnit chosen = units.front();
  for (const DisplayUnit& unit : units)
    if (largest >= unit.scale * (1 - 1e-12))
      chosen = unit;
  return chosen;
}

std::optional<double> in_unit(const std::string& value, QuantityKind kind, const DisplayUnit& unit) {
  const std::optional<double> si = value_in_si(value, kind);
  if (!si)
    return std::nullopt;
  return round_to_dbl_dig(*si / unit.scale);
}

} // namespace simgpt
