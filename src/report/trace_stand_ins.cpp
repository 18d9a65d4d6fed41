#include "report/trace_stand_ins.hpp"

#include "report/trace_layout.hpp"

namespace simgpt {
namespace {

// `x` with `a` and `b` swapped.
int swapped(int x, int a, int b) { return x == a ? b : x == b ? a : x; }

// Replica `x` with the first block of `block` replicas and replica d's block swapped.
int swapped_block(int x, int d, int block) {
  const int k = d / block;
  return x / block == 0 ? x + k * block : x / block == k ? x - k * block : x;
}

} // namespace

TraceStandIns::TraceStandIns(const StepGraph& step, const ExecutionPlan& plan)
    : step_(step), plan_(plan), rank_(gpu_ranks(plan)),
      replica_block_(plan.dp > step.replicas_simulated ? step.replicas_simulated : 0),
      first_rank_stands_in_(plan.tp > 1 && step.tensor_ranks_simulated == 1) {}

int TraceStandIns::communication(int gpu) const {
  const auto& [s, d, t] = rank(gpu);
  return plan_.gpu(s, replica_block_ > 0 ? d % replica_block_ : d, first_rank_stands_in_ ? 0 : t);
}

int TraceStandIns::rename(int gpu, int other) const {
  const auto& [s, d, t] = rank(gpu);
  const auto& [os, od, ot] = rank(other);
  return plan_.gpu(os, replica_block_ > 0 ? swapped_block(od, d, replica_block_) : od,
                   first_rank_stands_in_ ? swapped(ot, 0, t) : ot);
}

} // namespace simgpt
