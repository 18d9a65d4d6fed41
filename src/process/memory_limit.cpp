#include "simgpt/process/memory_limit.hpp"

#include "core/units.hpp"
#include "simgpt/core/error.hpp"

#include <cmath>
#include <stdexcept>

namespace simgpt {

double parse_memory_limit(const std::string& text) {
  constexpr double kMin = 16.0 * (1 << 20), kMax = 16.0 * (1ull << 40);
  const std::string usage = "expected a size from 16MiB to 16TiB, such as 2GiB or 512MiB";
  double bytes = 0;
  try {
    bytes = parse_bytes(text);
  } catch (const std::invalid_argument&) {
    throw InputError("--memory-limit " + echo(text), usage);
  }
  if (!std::isfinite(bytes) || bytes < kMin || bytes > kMax)
    throw InputError("--memory-limit " + echo(text), usage);
  return bytes;
}

} // namespace simgpt
