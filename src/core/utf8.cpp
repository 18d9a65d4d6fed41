#include "core/utf8.hpp"

namespace simgpt {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD"; // U+FFFD

// The length of the well-formed character at the start of `s`, or 0 (RFC 3629, section 4).
size_t character_length(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) { return i < s.size() && (byte(i) & 0xC0) == 0x80; };
  const unsigned char b = byte(0);
  if (b < 0x80)
    return 1;
  if (b >= 0xC2 && b <= 0xDF)
    return continuation(1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!continuation(1) || !continuation(2))
      return 0;
    if ((b == 0xE0 && byte(1) < 0xA0) || (b == 0xED && byte(1) > 0x9F)) // overlong; a surrogate
      return 0;
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3))
      return 0;
    if ((b == 0xF0 && byte(1) < 0x90) || (b == 0xF4 && byte(1) > 0x8F)) // overlong; past U+10FFFF
      return 0;
    return 4;
  }
  return 0;
}

} // namespace

std::string valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    const size_t n = character_length(bytes);
    if (n == 0) {
      out += kReplacement;
      bytes.remove_prefix(1);
    } else {
      out.append(bytes.substr(0, n));
      bytes.remove_prefix(n);
    }
  }
  return out;
}

} // namespace simgpt
