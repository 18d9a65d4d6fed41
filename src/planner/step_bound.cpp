#include "planner/step_bound.hpp"

#include "simgpt/framework/profile.hpp"

#include <algorithm>

namespace simgpt {
namespace {

// One micro-batch's pass through virtual stage v on one GPU, as the step graph runs it: the
// framework's host time, then the kernels (the backward reruns the forward under full recompute,
// and the attention core under selective recompute).
struct PassSeconds {
  double forward = 0, backward = 0, rerun = 0; // rerun: full recompute's forward before the backward
};

PassSeconds pass_seconds(const ExecutionPlan& plan, const Profile& profile, int v) {
  const StageCost& c = plan.stages[static_cast<size_t>(v)];
  const auto [layers_forward, layers_backward] = layer_seconds(plan, v);
  PassSeconds p;
  p.forward = profile.microbatch_overhead_s + c.embedding_forward + layers_forward + c.head_forward;
  p.backward = profile.microbatch_overhead_s + c.head_backward + c.embedding_backward + layers_backward;
  if (plan.recompute == Recompute::full)
    p.rerun = layers_forward;
  return p;
}

} // namespace

double step_time_lower_bound(const ExecutionPlan& plan, const Profile& profile) {
  const int M = plan.micro_batches;
  const int V = plan.pp * plan.chunks;
  // Micro-batches whose backward reruns the forward (a framework may keep the last one whole).
  const int reruns = profile.recompute_last_micro_batch ? M : M - 1;
  std::vector<double> busy(static_cast<size_t>(plan.pp), 0.0), optimizer(busy.size(), 0.0), grad_passes(busy.size(), 0.0);
  for (int v = 0; v < V; ++v) {
    const auto s = static_cast<size_t>(v % plan.pp);
    const PassSeconds p = pass_seconds(plan, profile, v);
    busy[s] += M * (p.forward + p.backward) + reruns * p.rerun;
    optimizer[s] += plan.stages[static_cast<size_t>(v)].optimizer_s;
    grad_passes[s] += plan.stages[static_cast<size_t>(v)].grad_pass_s;
  }
  double bound = 0;
  for (size_t s = 0; s < busy.size(); ++s) {
    if (plan.sharded_optimizer() && plan.dp > 1)
      optimizer[s] /= plan.dp;
    bound = std::max(bound, busy[s] + optimizer[s] + grad_passes[s]);
  }
  // Fill and drain through the first chunk's stages 0 .. pp-2 (every micro-batch crosses them,
  // whichever the last stage starts and ends with); the drain's backward reruns its forward
  // unless it is the last micro-batch of a framework that keeps that one whole.
  double fill = 0, drain = 0;
  for (int v = 0; v + 1 < plan.pp; ++v) {
    const PassSeconds p = pass_seconds(plan, profile, v);
    fill += p.forward;
    drain += p.backward + (profile.recompute_last_micro_batch ? p.rerun : 0);
  }
  const auto last = static_cast<size_t>(plan.pp - 1);
  return std::max(bound, fill + busy[last] + drain + optimizer[0]);
}

} // namespace simgpt
