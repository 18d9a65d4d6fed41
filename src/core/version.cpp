#include "simgpt/core/version.hpp"

namespace simgpt {

std::string_view version() { return SIMGPT_VERSION; }

} // namespace simgpt
