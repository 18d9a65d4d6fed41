#include "system/platform_gen/quantity_text.hpp"

#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "workload/workload_limits.hpp"

#include <fmt/format.h>

#include <charconv>
#include <functional>
#include <stdexcept>

namespace simgpt::platform_gen {
namespace {

QuantityText split(const std::string& text) {
  QuantityText q;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, q.number);
  if (ec != std::errc())
    throw std::invalid_argument("'" + echo(text) + "' is not a number with a unit");
  q.unit.assign(ptr, end);
  return q;
}

double checked(const std::string& text, const std::string& where,
               const std::function<double(const std::string&)>& parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(where, e.what());
  }
}

} // namespace

std::string QuantityText::text() const { return fmt::format("{}{}", number, unit); }

QuantityText QuantityText::times(double factor) const { return {number * factor, unit}; }

// A platform's links meet the bounds of the workload's network what-ifs (a simulation refuses
// any other), so a generated file always loads.
QuantityText bandwidth_text(const std::string& text, const std::string& where) {
  check_bandwidth(checked(text, where, parse_bandwidth), where);
  return split(text);
}

QuantityText delay_text(const std::string& text, const std::string& where) {
  check_delay(checked(text, where, parse_duration), where);
  const QuantityText q = split(text);
  // Unit-less means seconds; simgpt's minutes are SimGrid's "m".
  if (q.unit.empty() || q.unit == "min")
    return {q.unit.empty() ? q.number : q.number * 60, std::string("s")};
  return q;
}

} // namespace simgpt::platform_gen
