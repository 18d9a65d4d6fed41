// A Chrome trace-event file of one replayed step (the JSON object format), for Perfetto
// (https://ui.perfetto.dev) and chrome://tracing: a process per GPU with a track per compute
// stream, pipeline peer and collective group (report/trace_layout), flow arrows from each
// pipeline send to its receive, and the GPU's memory as a counter. Internal: it reads the task
// graph and the replayed timeline.
#pragma once

#include "simgpt/core/output_file.hpp"
#include "execution/task_graph.hpp"
#include "memory/timeline.hpp"
#include "execution/plan.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace simgpt {

// Writes the trace: timestamps in microseconds with three decimals (whole nanoseconds), every
// number in a fixed format, events in an order fixed by the graph (names, then slices by track
// and time, flows, memory), so that the same step gives the same bytes.
// `memory` is memory_over_time's series, one per GPU.
void write_trace(std::ostream& out, const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                 const std::vector<MemorySeries>& memory);

// write_trace into `file` (made before the simulation, so that an unwritable path fails at
// once), committed after; throws InputError naming the path when the write fails (a full disk),
// leaving an earlier trace there as it was.
void write_trace_file(OutputFile& file, const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                      const std::vector<MemorySeries>& memory);

} // namespace simgpt
