// A rate or delay as the platform file spells it ("25GBps", "1us"): the generator writes what
// the user or the preset wrote, not a number it converted. SimGrid parses the text itself, and
// "25us" parsed as 25 x 1e-6 is not always the double nearest 2.5e-5: a file that spells a
// value another way may simulate a different last bit.
#pragma once

#include <string>

namespace simgpt::platform_gen {

struct QuantityText {
  double number = 0; // as written, before its unit
  std::string unit;  // "GBps", "us", ...

  std::string text() const;
  // The same unit, `factor` times the number ("25GBps" x 2 = "50GBps").
  QuantityText times(double factor) const;
};

// Checked with simgpt's own units parser; `where` names the option or preset key in errors.
// A bandwidth must be positive; a delay may be 0 and gets the unit "s" when written without one
// (SimGrid warns about unit-less values).
QuantityText bandwidth_text(const std::string& text, const std::string& where);
QuantityText delay_text(const std::string& text, const std::string& where);

} // namespace simgpt::platform_gen
