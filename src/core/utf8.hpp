// UTF-8 text from bytes that may not be: a CSV value, a file name or an option a user typed.
#pragma once

#include <string>
#include <string_view>

namespace simgpt {

// `bytes` with each byte that does not begin a well-formed UTF-8 character (RFC 3629: no
// overlong form, no surrogate, nothing past U+10FFFF) replaced by U+FFFD. Text written into an
// SVG or JSON must be UTF-8, or the file is not well-formed.
std::string valid_utf8(std::string_view bytes);

} // namespace simgpt
