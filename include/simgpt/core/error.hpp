// Errors a user can cause with bad input: one clear line, exit status 2 (3 for a limit).
#pragma once

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace simgpt {

// `text` as one printable line: control characters escaped (\n, \t, \x00, ...), at most `max`
// bytes of it kept (then "..."), cut at a UTF-8 character boundary. Messages go to a terminal
// and to a log line each: a newline or NUL in a user's value must not split or end them.
inline std::string one_line(std::string_view text, size_t max) {
  bool cut = text.size() > max;
  if (cut) {
    while (max > 0 && (static_cast<unsigned char>(text[max]) & 0xC0) == 0x80)
      --max; // back to the first byte of a UTF-8 character
    text = text.substr(0, max);
  }
  std::string out;
  out.reserve(text.size() + (cut ? 3 : 0));
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (u < 0x20 || u == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else
      out += c;
  }
  return cut ? out + "..." : out;
}

// A user's value as a message echoes it: at most 80 characters, on one line. A multi-megabyte
// value is named, not repeated.
inline std::string echo(std::string_view value) { return one_line(value, 80); }

// A problem with an input file or option. `where` names the file (and key or line),
// `what()` says what is wrong and what would be valid.
class InputError : public std::runtime_error {
public:
  // Every message is kept to one line and a bounded length here, whoever builds it: values
  // should already be cut by echo(), and this is the net for those that are not (a file path,
  // a key name, a library's message).
  InputError(const std::string& where, const std::string& message)
      : InputError(one_line(where, kMaxPart), one_line(message, kMaxPart), 0) {}
  const std::string& where() const { return where_; }
  const std::string& message() const { return message_; }

private:
  static constexpr size_t kMaxPart = 1024;
  InputError(std::string where, std::string message, int)
      : std::runtime_error(where.empty() ? message : where + ": " + message), where_(std::move(where)),
        message_(std::move(message)) {}
  std::string where_;
  std::string message_;
};

// Input beyond a documented limit of the simulator (README, "Exit status and limits"): the
// input may be well-formed, but simulating it would take more memory or time than simgpt
// allows. Exit status 3, so scripts tell it from a malformed input (2).
class LimitError : public InputError {
public:
  using InputError::InputError;
};

} // namespace simgpt
