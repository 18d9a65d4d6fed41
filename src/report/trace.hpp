// A Chrome trace-event file of one replayed step (the JSON object format), for Perfetto
// (https://ui.perfetto.dev) and chrome://tracing: a process per GPU with a track per compute
// stream, pipeline peer and collective group (report/trace_layout), flow arrows from each
// pipeline send to its receive, and the GPU's memory as a counter. Internal: it reads the task
// graph and the replayed timeline.
#pragma once

#include "execution/task_graph.hpp"
#include "memory/timeline.hpp"
#include "simgpt/execution/plan.hpp"

#include <fstream>
#include <ostream>
#include <string>
#include <vector>

namespace simgpt {

// Opens `path` for the trace before the simulation runs, so that an unwritable path fails at
// once. Throws InputError naming the path.
std::ofstream open_trace_file(const std::string& path);

// Writes the trace: timestamps in microseconds with three decimals (whole nanoseconds), every
// number in a fixed format, events in an order fixed by the graph (names, then slices by track
// and time, flows, memory), so that the same step gives the same bytes.
// `memory` is memory_over_time's series, one per GPU.
void write_trace(std::ostream& out, const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                 const std::vector<MemorySeries>& memory);

// write_trace into a file from open_trace_file, closed after; throws InputError naming `path`
// when the write fails (a full disk).
void write_trace_file(std::ofstream& file, const std::string& path, const TaskGraph& g, const Timeline& t,
                      const ExecutionPlan& plan, const std::vector<MemorySeries>& memory);

} // namespace simgpt
