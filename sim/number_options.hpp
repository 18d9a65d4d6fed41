// The command line's numbers (--jobs, --timeout, --top) read as strictly as a workload's: whole
// digits or a finite decimal within a stated range, and a short message naming the range when
// not ("--timeout 0" is "expected seconds above 0 and at most 1000000", not CLI11's range
// of doubles written out to 309 digits).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace simgpt::cli {

// A whole number from `min` to `max`, digits only (no sign, exponent or spaces).
CLI::Validator whole_number(int64_t min, int64_t max);

// Seconds above 0 and at most `max`: a finite decimal ("0.5", "600", "1e3").
CLI::Validator seconds(double max);

// A percentage from 0 to `max`: a finite decimal ("15", "2.5").
CLI::Validator percent(double max);

// The most simulations simgpt runs at once: each is one core's work (one SimGrid engine per
// process), so more than the machine's cores only adds memory. Larger --jobs are lowered to this,
// with a line on stderr.
unsigned jobs_for_machine(unsigned requested);

} // namespace simgpt::cli
