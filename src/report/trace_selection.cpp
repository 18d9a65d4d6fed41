#include "simgpt/report/trace_selection.hpp"

#include "core/units.hpp"
#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace simgpt {
namespace {

// A GPU index: decimal digits only (no sign, space or unit).
std::optional<long long> gpu_index(std::string_view text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text.front() == '-' || text.front() == '+' || ec != std::errc() ||
      end != text.data() + text.size())
    return std::nullopt;
  return value;
}

} // namespace

std::vector<int> parse_trace_gpus(const std::string& text, long long job_gpus) {
  const long long last = job_gpus - 1;
  const std::string example = last > 7 ? fmt::format("0-7,{}", last) : last > 0 ? fmt::format("0,{}", last) : "0";
  const std::string valid = fmt::format("GPU indices and ranges of the job's GPUs 0 to {}, e.g. {}", last, example);
  auto bad = [&](const std::string& what) { return InputError("--trace-gpus", fmt::format("{}; expected {}", what, valid)); };
  std::vector<bool> listed(static_cast<size_t>(std::max(0LL, job_gpus)));
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view entry = rest.substr(0, comma);
    if (entry.empty())
      throw bad(fmt::format("'{}' has an empty entry", echo(text)));
    const size_t dash = entry.find('-', 1);
    const auto first = gpu_index(entry.substr(0, dash));
    const auto second = dash == std::string_view::npos ? first : gpu_index(entry.substr(dash + 1));
    if (!first || !second)
      throw bad(fmt::format("'{}' is not a GPU index or range", echo(entry)));
    if (*second < *first)
      throw bad(fmt::format("the range '{}' runs backwards", echo(entry)));
    if (*second > last)
      throw bad(fmt::format("GPU {} is not one of the job's", *second));
    for (long long gpu = *first; gpu <= *second; ++gpu)
      listed[static_cast<size_t>(gpu)] = true;
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  std::vector<int> gpus;
  for (size_t gpu = 0; gpu < listed.size(); ++gpu)
    if (listed[gpu])
      gpus.push_back(static_cast<int>(gpu));
  return gpus;
}

TraceWindow parse_trace_window(const std::string& text) {
  constexpr const char* kValid = "START:END, durations with units, either side empty (1.5s:2s, 10s:, :500ms)";
  const size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos)
    throw InputError("--trace-window", fmt::format("'{}' is not a window; expected {}", echo(text), kValid));
  TraceWindow window;
  try {
    if (colon > 0)
      window.start_s = parse_duration(text.substr(0, colon));
    if (colon + 1 < text.size())
      window.end_s = parse_duration(text.substr(colon + 1));
  } catch (const std::invalid_argument& e) {
    throw InputError("--trace-window", fmt::format("{}; expected {}", e.what(), kValid));
  }
  if (!(window.start_s < window.end_s))
    throw InputError("--trace-window", fmt::format("'{}' starts at {} s, not before its end at {} s", echo(text),
                                                   window.start_s, window.end_s));
  return window;
}

} // namespace simgpt
