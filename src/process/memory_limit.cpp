#include "simgpt/process/memory_limit.hpp"

#include "core/units.hpp"
#include "simgpt/core/error.hpp"

#include <sys/resource.h>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>

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

void limit_heap_growth(double bytes) {
  std::ifstream status("/proc/self/status");
  double held_kib = -1;
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmData:", 0) == 0)
      held_kib = std::stod(line.substr(7));
  if (held_kib < 0)
    throw std::runtime_error("cannot read this process's data size (/proc/self/status VmData) to limit its memory");
  const auto limit = static_cast<rlim_t>(held_kib * 1024 + bytes);
  const rlimit data{limit, limit};
  if (::setrlimit(RLIMIT_DATA, &data) != 0)
    throw std::runtime_error("cannot limit this process's memory (setrlimit RLIMIT_DATA)");
}

} // namespace simgpt
