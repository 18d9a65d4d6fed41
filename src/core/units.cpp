#include "core/units.hpp"

#include "simgpt/core/error.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace simgpt {
namespace {

struct Unit {
  std::string_view suffix;
  double scale;
};

// The largest quantity accepted, in SI units (seconds, bytes, bytes per second), checked after the
// unit is applied ("1e300min" is finite as written, not once multiplied by 60). Far above any real
// one (an H100's HBM3 moves 3.35e12 B/s, so 1e12 would refuse real GPUs), and small enough that
// the simulator's sums and products of such quantities stay finite.
constexpr double kMaxQuantity = 1e15;

// Splits "12.5ms" into 12.5 and "ms"; the number must be finite and non-negative.
std::pair<double, std::string_view> split_number(const std::string& text, const char* kind) {
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin || !(value >= 0) || !std::isfinite(value))
    throw std::invalid_argument("'" + echo(text) + "' is not a " + kind);
  return {value, std::string_view(ptr, static_cast<size_t>(end - ptr))};
}

// A bare number is refused but 0, the same in every unit: "delay 10" could be seconds (SI),
// microseconds (tc's reading) or a forgotten unit, and a wrong guess is off by a factor of a million.
template <size_t N>
double parse_with_units(const std::string& text, const char* kind, const std::array<Unit, N>& units,
                        const char* valid) {
  auto [value, suffix] = split_number(text, kind);
  if (suffix.empty()) {
    if (value == 0)
      return 0;
    throw std::invalid_argument("'" + echo(text) + "' has no unit (use " + valid + "; only 0 may go without)");
  }
  for (const Unit& unit : units)
    if (suffix == unit.suffix) {
      const double si = value * unit.scale;
      if (!(si <= kMaxQuantity))
        throw std::invalid_argument("'" + echo(text) + "' is too large (a " + kind + " may be at most 1e15 in " +
                                    "SI units: seconds, bytes, bytes per second)");
      return si;
    }
  throw std::invalid_argument("'" + echo(text) + "' is not a " + kind + " (use " + valid + ")");
}

// SI's s, ms, us, ns and min, and tc's spellings of them (tc(8), "TIMES": s, sec, secs; ms, msec,
// msecs; us, usec, usecs), since network.delay stands for `tc qdisc ... netem delay`.
constexpr std::array<Unit, 13> kDurationUnits{{{"s", 1},
                                               {"sec", 1},
                                               {"secs", 1},
                                               {"ms", 1e-3},
                                               {"msec", 1e-3},
                                               {"msecs", 1e-3},
                                               {"us", 1e-6},
                                               {"usec", 1e-6},
                                               {"usecs", 1e-6},
                                               {"ns", 1e-9},
                                               {"nsec", 1e-9},
                                               {"nsecs", 1e-9},
                                               {"min", 60}}};

// Bits (bps with k, M, G, T) and bytes (Bps) per second, and tc's bit rates (tc(8), "RATES": bit,
// kbit, mbit, gbit, tbit, and kibit ... tibit in powers of 1024). tc's byte rates, written kbps,
// mbps, gbps, are not taken: kbps here is kilobits, as the SI spellings read.
constexpr std::array<Unit, 19> kBandwidthUnits{{{"bit", 1.0 / 8},
                                                {"kbit", 1e3 / 8},
                                                {"mbit", 1e6 / 8},
                                                {"gbit", 1e9 / 8},
                                                {"tbit", 1e12 / 8},
                                                {"kibit", 1024.0 / 8},
                                                {"mibit", 1024.0 * 1024 / 8},
                                                {"gibit", 1024.0 * 1024 * 1024 / 8},
                                                {"tibit", 1024.0 * 1024 * 1024 * 1024 / 8},
                                                {"bps", 1.0 / 8},
                                                {"kbps", 1e3 / 8},
                                                {"Mbps", 1e6 / 8},
                                                {"Gbps", 1e9 / 8},
                                                {"Tbps", 1e12 / 8},
                                                {"Bps", 1},
                                                {"kBps", 1e3},
                                                {"MBps", 1e6},
                                                {"GBps", 1e9},
                                                {"TBps", 1e12}}};

constexpr std::array<Unit, 7> kSizeUnits{{{"B", 1},
                                          {"kB", 1e3},
                                          {"MB", 1e6},
                                          {"GB", 1e9},
                                          {"KiB", 1024.0},
                                          {"MiB", 1024.0 * 1024},
                                          {"GiB", 1024.0 * 1024 * 1024}}};

template <size_t N>
std::optional<double> scale_of(std::string_view suffix, const std::array<Unit, N>& units) {
  for (const Unit& unit : units)
    if (suffix == unit.suffix)
      return unit.scale;
  return std::nullopt;
}

} // namespace

double parse_duration(const std::string& text) {
  return parse_with_units(text, "duration", kDurationUnits, "s, ms, us, ns or tc's sec, msec, usec, e.g. 10ms");
}

double parse_bandwidth(const std::string& text) {
  return parse_with_units(text, "bandwidth", kBandwidthUnits,
                          "bps, Mbps, Gbps, MBps, GBps or tc's mbit, gbit, e.g. 1Gbps");
}

double parse_bytes(const std::string& text) {
  return parse_with_units(text, "size", kSizeUnits, "B, kB, MB, GB, KiB, MiB or GiB, e.g. 16GiB");
}

std::optional<double> duration_unit_scale(std::string_view suffix) { return scale_of(suffix, kDurationUnits); }
std::optional<double> bandwidth_unit_scale(std::string_view suffix) { return scale_of(suffix, kBandwidthUnits); }
std::optional<double> size_unit_scale(std::string_view suffix) { return scale_of(suffix, kSizeUnits); }

} // namespace simgpt
