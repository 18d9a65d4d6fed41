// The unit of a sweep's metric, read from the end of its name as simgpt's reports name them.
#pragma once

#include <string>

namespace simgpt {

// "tokens/s" for tokens_per_s, "samples/s" for samples_per_s, "TFLOP/s per GPU" for
// tflops_per_gpu, "GiB" for a name ending in _gib, "s" for one ending in _s, "B/s" and "B" for
// _Bps and _B (a sweep's SI columns); "" otherwise.
std::string metric_unit(const std::string& metric);

// The name with its unit in parentheses, "step_time_s (s)"; the bare name when it has none.
std::string with_unit(const std::string& name, const std::string& unit);

} // namespace simgpt
