// The workload key a user most likely meant by an unknown one: the same name in another section,
// Megatron-LM's argument name for it, or the nearest spelling. Used only to word the error.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace simgpt {

// `unknown` is "section.key" as written; `valid` every "section.key" the workload takes.
std::optional<std::string> suggest_key(const std::string& unknown, const std::vector<std::string>& valid);

} // namespace simgpt
