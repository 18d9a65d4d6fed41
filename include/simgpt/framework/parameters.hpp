// The profile's numeric parameters that `simgpt calibrate` can fit and `simgpt row --profile-set`
// can set: one table read by the profile loader, calibration and the command line, so that a
// parameter's key, field, unit and range are written down once.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace simgpt {

struct Profile;

struct ProfileParameter {
  std::string_view key;       // SECTION.KEY as in profiles/<name>.yaml, e.g. "compute.op_overhead"
  double& (*field)(Profile&); // the Profile member holding the value, in SI units
  std::string_view si_unit;   // unit of that value: "s", "B", "B/s", or "" for a plain number
  std::string_view unit;      // unit `calibrate --write` writes into the file ("ms", "MB", "Gbps", "")
  double per_si;              // the file's number per SI value: 1e3 for "ms"
  double min, max;            // physical range (SI) that calibration searches
  bool log_scale;             // search by the logarithm: sizes and rates spanning decades
  std::string_view meaning;
  std::string_view source; // where the meaning and the range come from
  bool zero_means_none = false; // 0 turns the mechanism off (no window, no ceiling): valid beside the range
};

// Every parameter, in the order error messages list them.
std::span<const ProfileParameter> profile_parameters();

// The parameter named `key`; throws InputError at `where` listing the valid keys.
const ProfileParameter& find_profile_parameter(std::string_view key, const std::string& where);

// Throws InputError at `where` unless `value` is finite and within the parameter's range (or 0
// where 0 turns it off): a NaN or an infinity set on the command line reaches SimGrid's clock.
void check_profile_parameter_value(const ProfileParameter& parameter, double value, const std::string& where);

// README's table: key, unit, range (in the file's unit) and meaning, one row per parameter.
std::string profile_parameters_markdown();

} // namespace simgpt
