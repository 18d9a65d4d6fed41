// --memory-limit of the commands that run each simulation in a process of its own (plan, sweep):
// the heap one simulation may take, so that a candidate far larger than the rest fails with that
// reason instead of taking the machine's memory.
#pragma once

#include <string>

namespace simgpt {

// Bytes from a size as platform files write one ("2GiB", "512MiB", "4GB"), from 16 MiB (what
// simgpt takes to start, a few MiB, with room) to 16 TiB. Throws InputError naming --memory-limit.
double parse_memory_limit(const std::string& text);

} // namespace simgpt
