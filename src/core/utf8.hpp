// UTF-8 text from bytes that may not be: a CSV value, a file name or an option a user typed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace simgpt {

// The length of the well-formed UTF-8 character at the start of `bytes` (RFC 3629: no overlong
// form, no surrogate, nothing past U+10FFFF), its code point in `code`; 0 when there is none.
size_t utf8_character(std::string_view bytes, char32_t& code);

// `bytes` with each byte that does not begin a well-formed UTF-8 character replaced by U+FFFD.
// Text written into an SVG or JSON must be UTF-8, or the file is not well-formed.
std::string valid_utf8(std::string_view bytes);

// Whether `text` is UTF-8 without control characters (C0, DEL, C1): what a swept value must be,
// since it is written into CSV fields, JSON strings and one-line messages.
bool is_printable_utf8(std::string_view text);

} // namespace simgpt
