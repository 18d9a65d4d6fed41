#include "core/utf8.hpp"

namespace simgpt {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD"; // U+FFFD

} // namespace

size_t utf8_character(std::string_view s, char32_t& code) {
  if (s.empty())
    return 0;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b = byte(0);
  size_t n = 0;
  if (b < 0x80)
    n = 1, code = b;
  else if ((b & 0xE0) == 0xC0)
    n = 2, code = b & 0x1F;
  else if ((b & 0xF0) == 0xE0)
    n = 3, code = b & 0x0F;
  else if ((b & 0xF8) == 0xF0)
    n = 4, code = b & 0x07;
  else
    return 0;
  if (n > s.size())
    return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(k) & 0xC0) != 0x80)
      return 0;
    code = (code << 6) | (byte(k) & 0x3F);
  }
  // The shortest form only (RFC 3629, section 3), no UTF-16 surrogate, nothing past U+10FFFF.
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMin[n] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF)
    return 0;
  return n;
}

std::string valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    char32_t code = 0;
    const size_t n = utf8_character(bytes, code);
    out.append(n == 0 ? kReplacement : bytes.substr(0, n));
    bytes.remove_prefix(n == 0 ? 1 : n);
  }
  return out;
}

bool is_printable_utf8(std::string_view text) {
  while (!text.empty()) {
    char32_t code = 0;
    const size_t n = utf8_character(text, code);
    if (n == 0 || code < 0x20 || (code >= 0x7F && code < 0xA0))
      return false;
    text.remove_prefix(n);
  }
  return true;
}

} // namespace simgpt
