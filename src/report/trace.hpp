// A Chrome trace-event file of one replayed step (the JSON object format), for Perfetto
// (https://ui.perfetto.dev) and chrome://tracing: a process per drawn GPU with a track per compute
// stream, pipeline peer and collective group (report/trace_layout), flow arrows from each
// pipeline send to its receive, and the GPU's memory as a counter. Internal: it reads the step
// graph and the replayed timeline.
#pragma once

#include "simgpt/core/output_file.hpp"
#include "simgpt/report/report.hpp"
#include "simgpt/report/trace_selection.hpp"
#include "execution/plan.hpp"
#include "execution/step_graph.hpp"
#include "memory/timeline.hpp"

#include <cstddef>
#include <ostream>
#include <vector>

namespace simgpt {

// The most slices a trace may draw. A slice is about 190 bytes of JSON (a 13B model's 32 GPUs:
// 110 MB for 604k events), so 2 M slices are some 380 MB: past what chrome://tracing loads (256 MB,
// google/trace-viewer#627) and near what Perfetto's UI does in a browser (2 GB of memory, a
// trace's size 2-4 times over: perfetto.dev/docs/visualization/large-traces; a 900 MB JSON trace
// crashed it, google/perfetto#99). Writing one takes about 1.5 us per slice, 3 us gzip-compressed.
constexpr size_t kMaxTraceSlices = 2'000'000;
constexpr size_t kTraceSliceBytes = 190;

// Throws LimitError naming --trace and the options that draw less, before the step is replayed,
// when a trace of `selection`'s GPUs (all listed) over the whole step would draw more than
// kMaxTraceSlices. A trace of part of the step is checked as it is laid out, once the replay has
// said what the part holds.
void check_trace_size(const StepGraph& step, const ExecutionPlan& plan, const TraceSelection& selection);

// Writes the trace of `selection`'s GPUs (all listed) and window: timestamps in microseconds with three
// decimals (whole nanoseconds), every number in a fixed format, events in an order fixed by the
// graph (names, then slices by track and time, flows, memory), so that the same step gives the
// same bytes. `memory` is memory_over_time's series, one per GPU of the job. Throws LimitError
// past kMaxTraceSlices.
// `inputs`: what the step was made from (report_inputs_json), written into otherData beside the
// plan.
void write_trace(std::ostream& out, const StepGraph& step, const Timeline& t, const ExecutionPlan& plan,
                 const std::vector<MemorySeries>& memory, const TraceSelection& selection,
                 const ReportInputs& inputs = {});

// write_trace into `file` (made before the simulation, so that an unwritable path fails at
// once), gzip-compressed when its name ends in .gz, committed after; throws InputError naming
// the path when the write fails (a full disk), leaving an earlier trace there as it was.
void write_trace_file(OutputFile& file, const StepGraph& step, const Timeline& t, const ExecutionPlan& plan,
                      const std::vector<MemorySeries>& memory, const TraceSelection& selection,
                      const ReportInputs& inputs = {});

} // namespace simgpt
