// Quantities with units as users write them: "10ms", "1Gbps", "16GiB".
//
// simgpt's own parser, not SimGrid's xbt_parse_get_time/_bandwidth/_size (xbt/parse_units.hpp):
// in SimGrid 3.32 those accept negative values ("-5s" gives -5), accept a unit-less value with
// a warning printed to stderr by SimGrid's logger, and name a file and line in their messages,
// which a `--set` value has not. Same suffixes as platform files (s, ms, us, ns; bps, Bps with
// k/M/G/T; B with k/M/G and Ki/Mi/Gi).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace simgpt {

inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// Each takes a number and its unit; a bare number is refused, but 0. Throws std::invalid_argument.
// Seconds from "10ms", "50us", "0.1s", tc's "10msec".
double parse_duration(const std::string& text);
// Bytes per second from "1Gbps" (bits), "25GBps" (bytes), "10Mbps", "100kbps", tc's "1gbit".
double parse_bandwidth(const std::string& text);
// Bytes from "16GiB", "16GB", "512MiB", "1024B".
double parse_bytes(const std::string& text);

// The factor to SI units of a unit suffix the parser above takes ("ms": 1e-3, "Gbps": 1.25e8,
// "GiB": 2^30); nullopt for any other suffix. For charts drawn in the unit a user wrote.
std::optional<double> duration_unit_scale(std::string_view suffix);
std::optional<double> bandwidth_unit_scale(std::string_view suffix);
std::optional<double> size_unit_scale(std::string_view suffix);

} // namespace simgpt
