// Writing CSV: sweeps and plans write one line per configuration.
#pragma once

#include <string>

namespace simgpt {

// `text` as one CSV field (RFC 4180): quoted when it holds a comma, quote or line break, its
// quotes doubled.
std::string csv_field(const std::string& text);

} // namespace simgpt
