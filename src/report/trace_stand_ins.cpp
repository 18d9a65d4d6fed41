#include "report/trace_stand_ins.hpp"

#include "report/trace_layout.hpp"

namespace simgpt {
namespace {

// `x` with `a` and `b` swapped.
int swapped(int x, int a, int b) { return x == a ? b : x == b ? a : x; }

} // namespace

TraceStandIns::TraceStandIns(const StepGraph& step, const ExecutionPlan& plan)
    : step_(step), plan_(plan), rank_(gpu_ranks(plan)),
      first_replica_stands_in_(plan.dp > 1 && step.replicas_simulated == 1),
      first_rank_stands_in_(plan.tp > 1 && step.tensor_ranks_simulated == 1) {}

int TraceStandIns::communication(int gpu) const {
  const auto& [s, d, t] = rank(gpu);
  return plan_.gpu(s, first_replica_stands_in_ ? 0 : d, first_rank_stands_in_ ? 0 : t);
}

int TraceStandIns::rename(int gpu, int other) const {
  const auto& [s, d, t] = rank(gpu);
  const auto& [os, od, ot] = rank(other);
  return plan_.gpu(os, first_replica_stands_in_ ? swapped(od, 0, d) : od,
                   first_rank_stands_in_ ? swapped(ot, 0, t) : ot);
}

} // namespace simgpt
