#include "execution/schedule.hpp"

#include <algorithm>

namespace simgpt {
namespace {


std::vector<PipelineStep> gpipe(int micro_batches) {
  std::vector<PipelineStep> steps;
  for (int mb = 0; mb < micro_batches; ++mb)
    steps.push_back({PipelineStep::Pass::forward, mb, 0});
  for (int mb = 0; mb < micro_batches; ++mb)
    steps.push_back({PipelineStep::Pass::backward, mb, 0});
  return steps;
}

std::vector<PipelineStep> one_f_one_b(int stage, int stages, int micro_batches) {
  std::vector<PipelineStep> steps;
  const int warmup = std::min(stages - stage - 1, micro_batches);
  int next_forward = 0, next_backward = 0;
  for (int i = 0; i < warmup; ++i)
    steps.push_back({PipelineStep::Pass::forward, next_forward++, 0});
  while (next_forward < micro_batches) {
    steps.push_back({PipelineStep::Pass::forward, next_forward++, 0});
    steps.push_back({PipelineStep::Pass::backward, next_backward++, 0});
  }
  while (next_backward < micro_batches)
    steps.push_back({PipelineStep::Pass::backward, next_backward++, 0});
  return steps;
}

// Megatron-LM's interleaved schedule (forward_backward_pipelining_with_interleaving): virtual
// micro-batch k maps to a chunk and a micro-batch in groups of `stages`.
std::vector<PipelineStep> interleaved(int stage, int stages, int micro_batches, int chunks, bool all_warmup) {
  const int total = micro_batches * chunks;
  auto chunk_of = [&](int k, bool forward) {
    int c = (k / stages) % chunks;
    return forward ? c : chunks - 1 - c;
  };
  auto micro_batch_of = [&](int k) { return (k / (stages * chunks)) * stages + k % stages; };
  int warmup = (all_warmup && micro_batches == stages) ? total
                                                        : std::min(total, (stages - stage - 1) * 2 + (chunks - 1) * stages);
  std::vector<PipelineStep> steps;
  int f = 0, b = 0;
  for (; f < warmup; ++f)
    steps.push_back({PipelineStep::Pass::forward, micro_batch_of(f), chunk_of(f, true)});
  while (f < total) {
    steps.push_back({PipelineStep::Pass::forward, micro_batch_of(f), chunk_of(f, true)});
    ++f;
    steps.push_back({PipelineStep::Pass::backward, micro_batch_of(b), chunk_of(b, false)});
    ++b;
  }
  for (; b < total; ++b)
    steps.push_back({PipelineStep::Pass::backward, micro_batch_of(b), chunk_of(b, false)});
  return steps;
}

} // namespace

std::vector<PipelineStep> stage_schedule(Schedule schedule, int stage, int stages, int micro_batches, int chunks,
                                         int flushes, bool all_warmup) {
  if (flushes > 1) {
    const int each = micro_batches / flushes;
    std::vector<PipelineStep> steps;
    for (int f = 0; f < flushes; ++f)
      for (PipelineStep step : stage_schedule(schedule, stage, stages, each, chunks, 1, all_warmup)) {
        step.micro_batch += f * each;
        steps.push_back(step);
      }
    return steps;
  }
  switch (schedule) {
  case Schedule::gpipe: return gpipe(micro_batches);
  case Schedule::one_f_one_b: return one_f_one_b(stage, stages, micro_batches);
  case Schedule::interleaved: return interleaved(stage, stages, micro_batches, chunks, all_warmup);
  }
  return {};
}

int max_in_flight(const std::vector<PipelineStep>& steps) {
  int live = 0, peak = 0;
  for (const PipelineStep& s : steps) {
    live += s.pass == PipelineStep::Pass::forward ? 1 : -1;
    peak = std::max(peak, live);
  }
  return peak;
}

} // namespace simgpt
