// libFuzzer target: parse_duration, parse_bandwidth and parse_bytes on the same input.
// Their documented error is std::invalid_argument (src/core/units.hpp; callers turn it
// into an InputError naming the key); InputError is accepted too. Anything else escaping, a crash,
// or an accepted value that is not finite, negative or above 1e15 (README) is a finding.
#include "simgpt/core/error.hpp"
#include "core/units.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

template <typename Parse>
void check(Parse parse, const std::string& text) {
  try {
    const double v = parse(text);
    if (!std::isfinite(v) || !(v >= 0) || v > 1e15)
      std::abort();
  } catch (const std::invalid_argument&) {
  } catch (const simgpt::InputError&) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check(simgpt::parse_duration, text);
  check(simgpt::parse_bandwidth, text);
  check(simgpt::parse_bytes, text);
  return 0;
}
