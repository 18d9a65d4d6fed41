#include "workload/pipeline_layout.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <charconv>

namespace simgpt {
namespace {

// The count after "*" at `at`, or -1.
int64_t count_at(std::string_view text, size_t& at) {
  if (at >= text.size() || text[at] != '*')
    return -1;
  int64_t n = -1;
  const char* first = text.data() + at + 1;
  const auto [end, error] = std::from_chars(first, text.data() + text.size(), n);
  if (error != std::errc() || end == first || n < 0)
    return -1;
  at = static_cast<size_t>(end - text.data());
  return n;
}

// Appends `piece` repeated `n` times, refusing a result past `limit` characters (a repeat count
// is the user's: a typo must not allocate without bound).
void repeat(std::string& out, std::string_view piece, int64_t n, size_t limit, const std::string& where) {
  if (n > 0 && piece.size() > (limit - out.size()) / static_cast<size_t>(n))
    throw InputError(where, fmt::format("unrolls to more than {} layers and separators", limit));
  for (int64_t i = 0; i < n; ++i)
    out += piece;
}

} // namespace

std::vector<LayoutStage> parse_pipeline_layout(std::string_view layout, const std::string& where, int64_t max_layers) {
  const size_t limit = static_cast<size_t>(max_layers) * 4 + 64;
  std::string text;
  for (char c : layout)
    if (c != ',') // purely cosmetic commas
      text += c;
  // (...)*n first, one level as Megatron's regular expression \(([^)]+)\)*(\d+) takes it.
  std::string unrolled;
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '(') {
      unrolled += text[i++];
      continue;
    }
    const size_t close = text.find(')', i + 1);
    size_t after = close == std::string::npos ? close : close + 1;
    const int64_t n = close == std::string::npos || close == i + 1 ? -1 : count_at(text, after);
    if (n < 0)
      throw InputError(where, fmt::format("'{}': a group needs its closing ')' and a count, as (tt|)*30", echo(layout)));
    repeat(unrolled, std::string_view(text).substr(i + 1, close - i - 1), n, limit, where);
    i = after;
  }
  // Then x*n.
  std::string flat;
  for (size_t i = 0; i < unrolled.size();) {
    const char c = unrolled[i++];
    if (c == '*')
      throw InputError(where, fmt::format("'{}': '*' repeats the character before it, as t*4", echo(layout)));
    size_t after = i;
    const int64_t n = after < unrolled.size() && unrolled[after] == '*' ? count_at(unrolled, after) : 1;
    if (n < 0)
      throw InputError(where, fmt::format("'{}': '*' needs a count after it, as t*4", echo(layout)));
    repeat(flat, std::string_view(&c, 1), n, limit, where);
    i = after;
  }
  // validate_layer_layout: the first layer the embedding, the last the loss.
  if (flat.empty() || flat.front() != 'E' || flat.back() != 'L')
    throw InputError(where, fmt::format("'{}' must begin with the embedding (E) and end with the loss (L)", echo(layout)));
  std::vector<LayoutStage> stages(1);
  for (char c : flat) {
    LayoutStage& s = stages.back();
    switch (c) {
    case '|': stages.emplace_back(); break;
    case 't': ++s.decoder; break;
    case 'm': ++s.mtp; break;
    case 'E': ++s.embedding; break;
    case 'L': ++s.loss; break;
    default:
      throw InputError(where, fmt::format("'{}': '{}' is not a layer Megatron knows (expected E, t, m, L, | and "
                                          "repeats such as (t*4|)*14)",
                                          echo(layout), echo(std::string_view(&c, 1))));
    }
  }
  return stages;
}

} // namespace simgpt
