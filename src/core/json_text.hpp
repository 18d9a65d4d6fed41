// JSON as simgpt prints it (`--format json`, the child processes' results): nlohmann::json stays
// inside the library, and public functions hand out this text.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace simgpt {

// `j` indented two spaces and ending with a newline; a byte that is not UTF-8 (a file name's)
// is written as U+FFFD, not refused.
std::string json_text(const nlohmann::ordered_json& j);

} // namespace simgpt
