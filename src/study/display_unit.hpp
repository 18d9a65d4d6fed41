// The unit an axis of quantities is drawn in: the one the user wrote the values in ("1Gbps,10Gbps"
// is drawn in Gbps, "1ms,10ms" in ms), not the SI base unit (1.25e8 B/s, 0.001 s).
#pragma once

#include "study/input_value.hpp"

#include <string>
#include <vector>

namespace simgpt {

struct DisplayUnit {
  std::string name; // "ms", "Gbps", "GiB"; "" for bare numbers
  double scale = 1; // SI units per display unit: a value is drawn at si / scale
};

// The unit of `values`, all of `kind` (common_kind): the unit every value written with one shares
// (bare numbers, 0, need none; tc's "msec" is "ms"), else the SI prefix of the system they were
// written in (bits or bytes per second; decimal or binary sizes) that draws the largest value at 1
// or more. Bare numbers (kind number) have no unit.
DisplayUnit display_unit(const std::vector<std::string>& values, QuantityKind kind);

// `value` (of `kind`) in `unit`, to 15 significant digits (DBL_DIG: the digits any decimal keeps
// through a double), so that "10us" is drawn at 10 µs, not 9.999999999999998; nullopt when
// `value` is not of `kind`.
std::optional<double> in_unit(const std::string& value, QuantityKind kind, const DisplayUnit& unit);

// `x` to 15 significant digits.
double round_to_dbl_dig(double x);

} // namespace simgpt
