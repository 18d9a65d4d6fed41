#include "number_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <thread>

namespace simgpt::cli {

CLI::Validator whole_number(int64_t min, int64_t max) {
  const std::string range = fmt::format("expected a whole number from {} to {}", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        int64_t value = 0;
        const char* end = text.data() + text.size();
        const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
          return c >= '0' && c <= '9';
        });
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (!digits || ec != std::errc() || ptr != end || value < min || value > max)
          return range;
        return "";
      },
      fmt::format("INT in [{}, {}]", min, max));
}

namespace {

// A validator of finite decimals ("0.5", "600", "1e3") that `in_range` accepts; else `range`.
CLI::Validator decimal(const std::string& range, bool (*in_range)(double, double), double max, const char* name) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value) || !in_range(value, max))
          return range;
        return "";
      },
      name);
}

} // namespace

CLI::Validator seconds(double max) {
  return decimal(fmt::format("expected seconds above 0 and at most {:g}", max),
                 [](double v, double top) { return v > 0 && v <= top; }, max, "SECONDS");
}

CLI::Validator percent(double max) {
  return decimal(fmt::format("expected a percentage from 0 to {:g}", max),
                 [](double v, double top) { return v >= 0 && v <= top; }, max, "PERCENT");
}

unsigned jobs_for_machine(unsigned requested) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (requested <= cores)
    return requested;
  std::cerr << fmt::format("simgpt: --jobs {}: running {} at once, one per core\n", requested, cores);
  return cores;
}

} // namespace simgpt::cli
