// The memory of the machine simgpt runs on: what bounds how large a step it may build.
#pragma once

#include <cstdint>

namespace simgpt {

// The machine's physical memory in bytes (sysconf's pages times their size); 0 when unknown.
std::uint64_t machine_memory_bytes();

} // namespace simgpt
