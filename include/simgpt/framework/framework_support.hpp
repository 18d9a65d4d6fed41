// What a framework can run: its pipeline schedules, ZeRO stages and kinds of parallelism, as its
// profile declares them (profiles/<name>.yaml, `supports`). A plan outside them would be a
// prediction for a run nobody can launch, so the simulation refuses it and the planner does not
// search it.
#pragma once

#include "simgpt/workload/workload.hpp"

#include <optional>
#include <string>
#include <vector>

namespace simgpt {

struct FrameworkSupport {
  bool tensor_parallel = true;
  bool sequence_parallel = true;
  bool pipeline = true;
  std::vector<Schedule> schedules = {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved}; // when pp > 1
  std::vector<int64_t> zero = {0, 1, 2, 3};
  std::vector<int64_t> zero_with_pipeline = {0, 1, 2, 3}; // the stages allowed when pp > 1
  std::vector<int64_t> zero_with_experts = {0, 1, 2, 3};  // the stages allowed when ep > 1

  bool allows_schedule(Schedule s) const;
  bool allows_zero(int64_t stage, bool pipelined) const;
  bool allows_zero_with_experts(int64_t stage) const;
};

// The workload key a framework cannot run as given, and why.
struct Unsupported {
  std::string key; // "parallelism.zero"
  std::string why;
};

// Why `framework` (a profile's name) cannot run the plan `p` with the training `t`; nothing when
// it can. `fp8_recast_per_use`: the profile's (Profile::fp8_recast_per_use), which with the
// training's fp8 parameters (training.fp8_param_gather) decides whether fp8 runs with ZeRO-3.
std::optional<Unsupported> unsupported_by(const FrameworkSupport& support, const std::string& framework,
                                          const ParallelismSpec& p, const TrainingSpec& t = {},
                                          bool fp8_recast_per_use = false);

} // namespace simgpt
