// What a trace draws of a simulated step (--trace-gpus, --trace-window): some of the job's GPUs
// and some of its time. The simulation, and its report, are the same whatever is drawn.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace simgpt {

// A span of the step in seconds from its start: a trace draws the slices that overlap
// [start_s, end_s) and the memory from start_s.
struct TraceWindow {
  double start_s = 0;
  double end_s = std::numeric_limits<double>::infinity();
  bool whole_step() const { return start_s <= 0 && end_s == std::numeric_limits<double>::infinity(); }
};

struct TraceSelection {
  std::vector<int> gpus; // the GPUs drawn, ascending and distinct; empty: all of the job's
  TraceWindow window;
};

// GPU indices and inclusive ranges, separated by commas ("0-7,64"), of a job of `job_gpus` GPUs:
// ascending and distinct, however they were listed. Throws InputError naming --trace-gpus, with
// the valid range, for another syntax, an empty entry, a range that runs backwards or a GPU
// outside 0 to job_gpus - 1.
std::vector<int> parse_trace_gpus(const std::string& text, long long job_gpus);

// "START:END", each a duration with its unit as simgpt reads durations elsewhere ("1.5s",
// "200ms"); an empty START is the step's start, an empty END its end ("10s:", ":500ms"). Throws
// InputError naming --trace-window for another syntax, a bad duration or START not before END.
TraceWindow parse_trace_window(const std::string& text);

} // namespace simgpt
