// Seconds in a microsecond, for the tests that write NCCL's and the tables' times in microseconds:
// one definition, so that the test files sharing a unity batch do not each define it.
#pragma once

namespace simgpt::testing {

inline constexpr double us = 1e-6;

} // namespace simgpt::testing
