#include "execution/schedule.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

using namespace simgpt;
using Pass = PipelineStep::Pass;

TEST_CASE("GPipe runs every forward, then every backward, on each stage") {
  auto steps = stage_schedule(Schedule::gpipe, 1, 4, 3, 1);
  std::vector<PipelineStep> expected{{Pass::forward, 0, 0},  {Pass::forward, 1, 0},  {Pass::forward, 2, 0},
                                     {Pass::backward, 0, 0}, {Pass::backward, 1, 0}, {Pass::backward, 2, 0}};
  CHECK(steps == expected);
  CHECK(max_in_flight(steps) == 3);
}

TEST_CASE("two flushes run GPipe over each half of the micro-batches in turn, half as many in flight") {
  auto steps = stage_schedule(Schedule::gpipe, 1, 4, 4, 1, 2);
  std::vector<PipelineStep> expected{{Pass::forward, 0, 0},  {Pass::forward, 1, 0},  {Pass::backward, 0, 0},
                                     {Pass::backward, 1, 0}, {Pass::forward, 2, 0},  {Pass::forward, 3, 0},
                                     {Pass::backward, 2, 0}, {Pass::backward, 3, 0}};
  CHECK(steps == expected);
  CHECK(max_in_flight(steps) == 2);
  CHECK(stage_schedule(Schedule::one_f_one_b, 0, 4, 8, 1, 1) == stage_schedule(Schedule::one_f_one_b, 0, 4, 8, 1));
}

TEST_CASE("1F1B warms up with stages - stage - 1 forwards and keeps stages - stage in flight") {
  auto first = stage_schedule(Schedule::one_f_one_b, 0, 4, 8, 1);
  REQUIRE(first.size() == 16);
  for (int i = 0; i < 3; ++i)
    CHECK(first[static_cast<size_t>(i)] == PipelineStep{Pass::forward, i, 0});
  CHECK(first[3] == PipelineStep{Pass::forward, 3, 0});
  CHECK(first[4] == PipelineStep{Pass::backward, 0, 0});
  for (int stage = 0; stage < 4; ++stage)
    CHECK(max_in_flight(stage_schedule(Schedule::one_f_one_b, stage, 4, 8, 1)) == 4 - stage);
  // Fewer micro-batches than stages: all of them are in flight.
  CHECK(max_in_flight(stage_schedule(Schedule::one_f_one_b, 0, 8, 3, 1)) == 3);
  auto last = stage_schedule(Schedule::one_f_one_b, 3, 4, 2, 1);
  std::vector<PipelineStep> alternate{
      {Pass::forward, 0, 0}, {Pass::backward, 0, 0}, {Pass::forward, 1, 0}, {Pass::backward, 1, 0}};
  CHECK(last == alternate);
}

TEST_CASE("interleaved 1F1B runs every chunk's forward and backward of every micro-batch once") {
  const int stages = 4, mbs = 8, chunks = 2;
  for (int stage = 0; stage < stages; ++stage) {
    auto steps = stage_schedule(Schedule::interleaved, stage, stages, mbs, chunks);
    REQUIRE(steps.size() == static_cast<size_t>(2 * mbs * chunks));
    int forwards = 0;
    for (const auto& s : steps)
      forwards += s.pass == Pass::forward;
    CHECK(forwards == mbs * chunks);
    // Chunk 0 of micro-batches 0..stages-1 runs first, then chunk 1.
    CHECK(steps[0] == PipelineStep{Pass::forward, 0, 0});
    CHECK(steps[static_cast<size_t>(stages)] == PipelineStep{Pass::forward, 0, 1});
  }
}

TEST_CASE("interleaved 1F1B with as many micro-batches as stages: Megatron warms up with every forward, torch does not") {
  const int stages = 8, chunks = 2, total = stages * chunks;
  const auto warmup = [](const std::vector<PipelineStep>& steps) {
    int n = 0;
    while (n < static_cast<int>(steps.size()) && steps[static_cast<size_t>(n)].pass == Pass::forward)
      ++n;
    return n;
  };
  for (int stage = 0; stage < stages; ++stage) {
    // Megatron-LM: num_microbatches == pipeline_parallel_size runs all the forwards first.
    CHECK(warmup(stage_schedule(Schedule::interleaved, stage, stages, stages, chunks)) == total);
    // torch's ScheduleInterleaved1F1B: (n_local_stages - 1) x pp + 2 (pp - 1 - rank) forwards, capped
    // at all of them; the first backward follows one more forward.
    const auto torch = stage_schedule(Schedule::interleaved, stage, stages, stages, chunks, 1, false);
    const int expected = std::min(total, (chunks - 1) * stages + 2 * (stages - 1 - stage));
    CHECK(warmup(torch) == std::min(total, expected + 1));
    CHECK(max_in_flight(torch) == std::min(total, expected + 1));
  }
}
