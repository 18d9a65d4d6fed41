#include "execution/step_graph/stand_ins.hpp"

#include "execution/step_graph/isolated_groups.hpp"
#include "execution/step_graph/symmetry.hpp"

namespace simgpt::step_graph {

StandIns::StandIns(const ExecutionPlan& plan)
    : stream_gpu(static_cast<size_t>(plan.gpus())), owner_gpu(static_cast<size_t>(plan.gpus())), dp(plan.dp),
      tp(plan.tp), replicas(plan.dp) {
  for (size_t i = 0; i < stream_gpu.size(); ++i)
    stream_gpu[i] = owner_gpu[i] = static_cast<int>(i);
}

StandIns find_stand_ins(const ExecutionPlan& plan, const Topology& topology, const StepGraphOptions& options,
                        GroupCollectives& collectives, std::vector<std::vector<Ring>>& isolated) {
  StandIns stand_ins(plan);
  // Expert and context parallelism's all-to-alls join the tensor ranks' streams with the other
  // replicas': no tensor-parallel group keeps its links to itself.
  if (options.isolate_collectives && plan.tp > 1 && plan.expert_group_size() == 1 && plan.cp == 1)
    find_isolated_groups(plan, topology, collectives, stand_ins, isolated);
  if (options.symmetric)
    find_symmetry(plan, topology, collectives, stand_ins, isolated);
  if (options.isolate_collectives)
    find_whole_dp_groups(plan, topology, collectives, stand_ins, isolated);
  return stand_ins;
}

} // namespace simgpt::step_graph
