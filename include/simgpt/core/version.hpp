// simgpt's version, as the project's CMakeLists.txt declares it: what `--version` prints and what
// every report, sweep CSV and trace records beside its inputs.
#pragma once

#include <string_view>

namespace simgpt {

std::string_view version();

} // namespace simgpt
