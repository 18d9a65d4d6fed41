// The execution domain's pipeline schedules: the order in which one pipeline stage runs the
// forward and backward passes of its micro-batches.
#pragma once

#include "simgpt/workload/workload.hpp"

#include <vector>

namespace simgpt {

struct PipelineStep {
  enum class Pass { forward, backward };
  Pass pass = Pass::forward;
  int micro_batch = 0;
  int chunk = 0; // model chunk on this stage (interleaved schedule), else 0

  bool operator==(const PipelineStep&) const = default;
};

// The steps of pipeline stage `stage` (0-based) of `stages`, for `micro_batches` micro-batches.
//  - GPipe (Huang et al. 2019): all forwards, then all backwards.
//  - 1F1B (PipeDream-Flush, Narayanan et al. 2021): stage s runs min(stages - s - 1, m) warm-up
//    forwards, then alternates one forward and one backward, then drains the backwards; at most
//    stages - s micro-batches are in flight on stage s.
//  - Interleaved 1F1B (Narayanan et al. 2021, section 2.2): each stage holds `chunks` model chunks;
//    Megatron-LM's ordering of virtual micro-batches. With as many micro-batches as stages every
//    forward runs first where `all_warmup` (Megatron-LM's), not otherwise (torch's pipelining).
//  With `flushes` > 1 the micro-batches run as that many schedules of micro_batches / flushes one
//  after another (micro-batches numbered on), each drained before the next begins.
std::vector<PipelineStep> stage_schedule(Schedule schedule, int stage, int stages, int micro_batches, int chunks,
                                         int flushes = 1, bool all_warmup = true);

// The largest number of micro-batches whose forward has run and backward has not, over the steps.
int max_in_flight(const std::vector<PipelineStep>& steps);

} // namespace simgpt
