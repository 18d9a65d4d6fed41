#include "simgpt/framework/framework_support.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace simgpt {

bool FrameworkSupport::allows_schedule(Schedule s) const {
  return std::find(schedules.begin(), schedules.end(), s) != schedules.end();
}

bool FrameworkSupport::allows_zero(int64_t stage, bool pipelined) const {
  const std::vector<int64_t>& stages = pipelined ? zero_with_pipeline : zero;
  return std::find(stages.begin(), stages.end(), stage) != stages.end();
}

bool FrameworkSupport::allows_zero_with_experts(int64_t stage) const {
  return std::find(zero_with_experts.begin(), zero_with_experts.end(), stage) != zero_with_experts.end();
}

namespace {

std::string listed(const std::vector<Schedule>& schedules) {
  std::vector<std::string> names;
  for (Schedule s : schedules)
    names.emplace_back(name_of(s));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string listed(const std::vector<int64_t>& stages) { return fmt::format("{}", fmt::join(stages, ", ")); }

} // namespace

std::optional<Unsupported> unsupported_by(const FrameworkSupport& support, const std::string& framework,
                                          const ParallelismSpec& p, const TrainingSpec& t, bool fp8_recast_per_use) {
  const std::string profile = fmt::format("the {} profile", framework);
  if (p.tp > 1 && !support.tensor_parallel)
    return Unsupported{"parallelism.tp", fmt::format("{} runs no tensor parallelism (use tp 1, or a profile that has it)", profile)};
  if (p.sequence_parallel && !support.sequence_parallel)
    return Unsupported{"parallelism.sequence_parallel", fmt::format("{} has no sequence parallelism (use false)", profile)};
  if (p.pp > 1 && !support.pipeline)
    return Unsupported{"parallelism.pp", fmt::format("{} runs no pipeline parallelism (use pp 1, or a profile that has it)", profile)};
  if (p.pp > 1 && !support.allows_schedule(p.schedule))
    return Unsupported{"parallelism.schedule", fmt::format("{} has no {} schedule (it runs {})", profile, name_of(p.schedule),
                                                           listed(support.schedules))};
  if (!support.allows_zero(p.zero, p.pp > 1))
    return Unsupported{"parallelism.zero", fmt::format("{} has no ZeRO stage {}{} (it runs {})", profile, p.zero,
                       p.pp > 1 && support.allows_zero(p.zero, false) ? " with pipeline parallelism" : "",
                                                       listed(p.pp > 1 ? support.zero_with_pipeline : support.zero))};
  if (p.ep > 1 && !support.allows_zero_with_experts(p.zero))
    return Unsupported{"parallelism.zero", fmt::format("{} has no ZeRO stage {} with expert parallelism (it runs {})",
                                                       profile, p.zero, listed(support.zero_with_experts))};
  // TransformerEngine caches each weight's fp8 copy from the first micro-batch to the last
  // (transformer_engine/pytorch/module/linear.py, quantize_weight with update_workspace only when
  // is_first_microbatch); under ZeRO-3 the weights are gathered and freed around every use, and
  // TE re-quantizes each gathered weight instead (its FSDP2 path, "Backward will re-quantize"),
  // which simgpt does not model. torchao's casts at every use (fp8_recast_per_use) need no cache,
  // nor do fp8 parameters (training.fp8_param_gather): the gathered weight is the fp8 tensor.
  const bool fp8 = t.fp8 != Fp8Format::none;
  if (fp8 && p.zero >= 3 && !fp8_recast_per_use && !t.fp8_param_gather)
    return Unsupported{"training.fp8", fmt::format("{} runs fp8 as TransformerEngine does, whose cached fp8 weights "
                                                   "under ZeRO-3 are not modelled; use parallelism.zero 0, 1 or 2, "
                                                   "fp8 parameters (training.fp8_param_gather), or a profile that "
                                                   "casts at every use (torchtitan)", profile)};
  // Megatron-FSDP gathers an MXFP8 parameter's row-wise and column-wise copies in a layout of its
  // own (megatron/core/distributed/fsdp), which simgpt does not model.
  if (fp8 && p.zero >= 3 && t.fp8_param_gather && t.fp8_recipe == Fp8Recipe::mxfp8)
    return Unsupported{"training.fp8_param_gather", "MXFP8 parameters under ZeRO-3 (Megatron-FSDP) are not modelled; "
                                                    "use parallelism.zero 0 or 1, or fp8_recipe delayed or tensorwise"};
  return std::nullopt;
}

} // namespace simgpt
