// The replayed step's communication by the parallel dimension it serves (Report::Communication).
// Internal: it reads the task graph and its timeline.
#pragma once

#include "execution/step_graph.hpp"
#include "execution/task_graph.hpp"
#include "simgpt/report/report.hpp"

#include <vector>

namespace simgpt {

// Each dimension's counts (from the step's graph), its time in flight on `view_gpu` and the part
// of it `view_gpu`'s compute hides, and its exposed time on the critical path (`path`, whose
// dimension_s gives it). `view_gpu` takes part in a collective when it sends or receives one of
// its flows, or when it is the stream of an isolated group's collectives (their first GPU);
// a collective is in flight from its entry to its exit (its step latencies included).
std::vector<Report::Communication> communication_by_dimension(const StepGraph& step, const Timeline& t,
                                                              const CriticalPathReport& path, int view_gpu);

} // namespace simgpt
