#include "simgpt/workload/conditions.hpp"

#include "core/units.hpp"
#include "simgpt/core/error.hpp"
#include "workload/workload_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

namespace simgpt {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// The comma-separated entries of a list, trimmed; an empty entry is refused.
std::vector<std::string_view> entries(std::string_view text, const std::string& where, const char* example) {
  std::vector<std::string_view> out;
  if (trim(text).empty())
    return out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view entry = trim(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    if (entry.empty())
      throw InputError(where, fmt::format("'{}' has an empty entry (expected entries like {}, separated by commas)",
                                          echo(text), example));
    out.push_back(entry);
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  return out;
}

std::optional<int64_t> integer(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 0)
    return std::nullopt;
  return v;
}

std::optional<double> number(std::string_view s) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// A factor of at least `min` and at most kMaxSlowdown.
double factor_of(std::string_view text, const std::string& where, std::string_view entry, double min) {
  const std::optional<double> f = number(trim(text));
  if (!f || *f < min || (min == 0 && *f == 0) || *f > kMaxSlowdown)
    throw InputError(where, fmt::format("'{}': '{}' is not a factor (expected a number {} {} and at most {:g})",
                                        echo(entry), echo(text), min == 0 ? "above" : "of at least", min,
                                        kMaxSlowdown));
  return *f;
}

LinkCondition& link_named(std::vector<LinkCondition>& links, std::string_view name, const std::string& where) {
  if (name.empty() || name.find_first_of(" \t:") != std::string_view::npos)
    throw InputError(where, fmt::format("'{}' is not a link name (expected a link's id in the platform, e.g. nic-12)",
                                        echo(name)));
  for (LinkCondition& l : links)
    if (l.link == name)
      return l;
  links.push_back({.link = std::string(name)});
  return links.back();
}

// "NAME:VALUE": the name and the value's text.
std::pair<std::string_view, std::string_view> split_pair(std::string_view entry, const std::string& where,
                                                         const char* example) {
  const size_t colon = entry.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == entry.size())
    throw InputError(where, fmt::format("'{}' is not NAME:VALUE (e.g. {})", echo(entry), example));
  return {trim(entry.substr(0, colon)), trim(entry.substr(colon + 1))};
}

std::string factor_text(double f) { return fmt::format("{}", f); }

// A uniform draw in [0, 1) from the top 53 bits of a 64-bit state, as the same on every machine.
// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014):
// std::mt19937_64 would be as portable, but the standard distributions are not.
class Draw {
  uint64_t state_;

public:
  explicit Draw(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n), by rejection (no modulo bias).
  uint64_t below(uint64_t n) {
    const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
    uint64_t x = next();
    while (x >= limit)
      x = next();
    return x % n;
  }
};

} // namespace

std::vector<SlowdownRange> parse_slowdowns(const std::string& text, const std::string& where, const char* unit) {
  const std::string example = fmt::format("\"17:1.2, 40-47:1.1\" ({} or range : factor)", unit);
  std::vector<SlowdownRange> out;
  for (std::string_view entry : entries(text, where, example.c_str())) {
    const auto [which, value] = split_pair(entry, where, example.c_str());
    SlowdownRange r;
    const size_t dash = which.find('-');
    const std::optional<int64_t> first = integer(trim(which.substr(0, dash)));
    const std::optional<int64_t> last = dash == std::string_view::npos ? first : integer(trim(which.substr(dash + 1)));
    if (!first || !last || *last < *first || *last >= kMaxGpus.max)
      throw InputError(where, fmt::format("'{}': '{}' is not a {} or a range of them (expected e.g. 17 or 40-47, "
                                          "numbered from 0)", echo(entry), echo(which), unit));
    r.first = *first;
    r.last = *last;
    r.factor = factor_of(value, where, entry, 1);
    out.push_back(r);
  }
  return out;
}

void parse_random_slowdown(const std::string& text, Conditions& c, const std::string& where) {
  const std::string_view t = trim(text);
  const size_t dash = t.find('-', 1);
  c.random_min = factor_of(t.substr(0, dash), where, t, 1);
  c.random_max = dash == std::string_view::npos ? c.random_min : factor_of(t.substr(dash + 1), where, t, 1);
  if (c.random_max < c.random_min)
    throw InputError(where, fmt::format("'{}' is an empty range (expected MIN-MAX with MIN <= MAX, e.g. 1.05-1.3)",
                                        echo(t)));
  c.random_slowdown_given = true;
}

void parse_link_factors(const std::string& text, std::vector<LinkCondition>& links, const std::string& where) {
  for (std::string_view entry : entries(text, where, "nic-12:0.5")) {
    const auto [name, value] = split_pair(entry, where, "nic-12:0.5 (link : factor of its bandwidth)");
    link_named(links, name, where).bandwidth_factor = factor_of(value, where, entry, 0);
  }
}

void parse_link_latencies(const std::string& text, std::vector<LinkCondition>& links, const std::string& where) {
  for (std::string_view entry : entries(text, where, "uplink-0:20us")) {
    const auto [name, value] = split_pair(entry, where, "uplink-0:20us (link : latency added)");
    double seconds = 0;
    try {
      seconds = parse_duration(std::string(value));
    } catch (const std::invalid_argument&) {
      throw InputError(where, fmt::format("'{}': '{}' is not a duration (expected e.g. 20us or 5ms)", echo(entry),
                                          echo(value)));
    }
    check_delay(seconds, where);
    link_named(links, name, where).latency_added_s = seconds;
  }
}

void parse_links_down(const std::string& text, std::vector<LinkCondition>& links, const std::string& where) {
  for (std::string_view entry : entries(text, where, "nic-13"))
    link_named(links, entry, where).down = true;
}

std::string slowdowns_text(const std::vector<SlowdownRange>& ranges) {
  std::string out;
  for (const SlowdownRange& r : ranges)
    out += fmt::format("{}{}{}:{}", out.empty() ? "" : ", ", r.first,
                       r.last != r.first ? fmt::format("-{}", r.last) : "", factor_text(r.factor));
  return out;
}

std::string random_slowdown_text(const Conditions& c) {
  return c.random_min == c.random_max ? factor_text(c.random_min)
                                      : fmt::format("{}-{}", factor_text(c.random_min), factor_text(c.random_max));
}

std::string link_factors_text(const std::vector<LinkCondition>& links) {
  std::string out;
  for (const LinkCondition& l : links)
    if (l.bandwidth_factor != 1)
      out += fmt::format("{}{}:{}", out.empty() ? "" : ", ", l.link, factor_text(l.bandwidth_factor));
  return out;
}

std::string link_latencies_text(const std::vector<LinkCondition>& links) {
  std::string out;
  for (const LinkCondition& l : links)
    if (l.latency_added_s != 0)
      out += fmt::format("{}{}:{}us", out.empty() ? "" : ", ", l.link, l.latency_added_s * 1e6);
  return out;
}

std::string links_down_text(const std::vector<LinkCondition>& links) {
  std::string out;
  for (const LinkCondition& l : links)
    if (l.down)
      out += (out.empty() ? "" : ", ") + l.link;
  return out;
}

std::vector<double> gpu_slowdowns(const Conditions& c, int64_t first_gpu, const std::vector<int>& node_of,
                                  const std::string& source) {
  const auto n = static_cast<int64_t>(node_of.size());
  std::vector<double> factor(node_of.size(), 1.0);
  for (const SlowdownRange& r : c.gpus) {
    if (r.first < first_gpu || r.last >= first_gpu + n)
      throw InputError(source + ": conditions.gpu_slowdown",
                       fmt::format("GPU {} is not one of the job's (GPUs {} to {} of the platform)",
                                   r.first < first_gpu ? r.first : r.last, first_gpu, first_gpu + n - 1));
    for (int64_t g = r.first; g <= r.last; ++g)
      factor[static_cast<size_t>(g - first_gpu)] = std::max(factor[static_cast<size_t>(g - first_gpu)], r.factor);
  }
  for (const SlowdownRange& r : c.nodes) {
    bool found = false;
    for (size_t g = 0; g < node_of.size(); ++g)
      if (node_of[g] >= r.first && node_of[g] <= r.last) {
        factor[g] = std::max(factor[g], r.factor);
        found = true;
      }
    if (!found)
      throw InputError(source + ": conditions.node_slowdown",
                       fmt::format("no GPU of the job is on node{} {}{} (its GPUs are on nodes {} to {})",
                                   r.last > r.first ? "s" : "", r.first,
                                   r.last > r.first ? fmt::format(" to {}", r.last) : "",
                                   *std::min_element(node_of.begin(), node_of.end()),
                                   *std::max_element(node_of.begin(), node_of.end())));
  }
  if (c.random_fraction > 0 && n > 0) {
    // A partial Fisher-Yates shuffle picks the drawn GPUs, then each its factor.
    const auto drawn = std::max<int64_t>(1, std::llround(c.random_fraction * static_cast<double>(n)));
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      order[static_cast<size_t>(i)] = i;
    Draw draw(c.seed);
    for (int64_t i = 0; i < drawn; ++i) {
      const auto j = i + static_cast<int64_t>(draw.below(static_cast<uint64_t>(n - i)));
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
      const double f = c.random_min + (c.random_max - c.random_min) * draw.uniform();
      double& slot = factor[static_cast<size_t>(order[static_cast<size_t>(i)])];
      slot = std::max(slot, f);
    }
  }
  return factor;
}

} // namespace simgpt
