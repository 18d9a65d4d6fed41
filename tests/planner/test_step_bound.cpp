#include "planner/step_bound.hpp"

#include "simgpt/framework/profile.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

// Two stages of one layer each; forward 1 s, backward 2 s a layer; optimizer 0.5 s a stage.
ExecutionPlan two_stages(int micro_batches) {
  ExecutionPlan plan;
  plan.pp = 2;
  plan.micro_batches = micro_batches;
  plan.layer.attention_forward = 0.5;
  plan.layer.mlp_forward = 0.5;
  plan.layer.attention_backward = 1;
  plan.layer.mlp_backward = 1;
  for (int s = 0; s < 2; ++s) {
    StageCost c;
    c.layers = 1;
    c.optimizer_s = 0.5;
    plan.stages.push_back(c);
  }
  return plan;
}

} // namespace

TEST_CASE("the step-time bound is the pipeline's fill, the last stage's work and the drain") {
  // Last stage: 4 micro-batches x 3 s; before it, stage 0's forward (1 s); after it, stage 0's
  // backward (2 s) and optimizer (0.5 s): the textbook (m + p - 1)(t_f + t_b), plus the optimizer.
  Profile profile;
  CHECK(step_time_lower_bound(two_stages(4), profile) == Approx(1 + 12 + 2 + 0.5));
  ExecutionPlan full = two_stages(4);
  full.recompute = Recompute::full; // each backward reruns the 1 s forward
  CHECK(step_time_lower_bound(full, profile) == Approx(1 + 16 + 3 + 0.5));
  profile.recompute_last_micro_batch = false; // the last micro-batch keeps its activations: no rerun
  CHECK(step_time_lower_bound(full, profile) == Approx(1 + 15 + 2 + 0.5));
}

TEST_CASE("without a pipeline the bound is one GPU's compute, and a sharded optimizer divides its step") {
  ExecutionPlan plan = two_stages(3);
  plan.pp = 1;
  plan.stages.resize(1);
  Profile profile;
  profile.microbatch_overhead_s = 0.25; // per pass, forward and backward
  CHECK(step_time_lower_bound(plan, profile) == Approx(3 * (3 + 0.5) + 0.5));
  plan.dp = 4;
  plan.zero = 1;
  CHECK(step_time_lower_bound(plan, profile) == Approx(3 * (3 + 0.5) + 0.5 / 4));
}
