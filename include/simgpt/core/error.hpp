// Errors a user can cause with bad input: one clear line, exit status 2.
#pragma once

#include <stdexcept>
#include <string>

namespace simgpt {

// A problem with an input file or option. `where` names the file (and key or line),
// `what()` says what is wrong and what would be valid.
class InputError : public std::runtime_error {
public:
  InputError(std::string where, const std::string& message)
      : std::runtime_error(where.empty() ? message : where + ": " + message), where_(std::move(where)),
        message_(message) {}
  const std::string& where() const { return where_; }
  const std::string& message() const { return message_; }

private:
  std::string where_;
  std::string message_;
};

} // namespace simgpt
