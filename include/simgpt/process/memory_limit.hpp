// --memory-limit of the commands that run each simulation in a process of its own (plan, sweep):
// the heap one simulation may take, so that a candidate far larger than the rest fails with that
// reason instead of taking the machine's memory.
#pragma once

#include <string>

namespace simgpt {

// Bytes from a size as platform files write one ("2GiB", "512MiB", "4GB"), from 16 MiB to
// 16 TiB. Throws InputError naming --memory-limit.
double parse_memory_limit(const std::string& text);

// In the simulation's own process (`simgpt point --memory-limit`), before it simulates: its data
// segment and private mappings (RLIMIT_DATA) may grow `bytes` past what they hold now (VmData,
// /proc/self/status), so that the limit counts the simulation, not simgpt's start or a
// sanitizer's reservations. An allocation past it throws std::bad_alloc. Throws
// std::runtime_error when the limit cannot be set.
void limit_heap_growth(double bytes);

} // namespace simgpt
