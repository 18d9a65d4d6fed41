#include "execution/step_graph/symmetry.hpp"

#include "execution/step_graph/routes.hpp"

#include <vector>

namespace simgpt::step_graph {

void find_symmetry(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                   size_t isolated_groups, StandIns& stand_ins) {
  const auto routes = pipeline_routes(plan);
  if (plan.dp > 1) {
    std::vector<Routes> per_replica;
    for (const auto& replica : routes) {
      per_replica.emplace_back();
      for (const auto& rank : replica)
        per_replica.back().insert(per_replica.back().end(), rank.begin(), rank.end());
    }
    if (disjoint_and_alike(topology, per_replica)) {
      stand_ins.replicas = 1;
      for (int s = 0; s < plan.pp; ++s)
        for (int d = 0; d < plan.dp; ++d)
          for (int t = 0; t < plan.tp; ++t)
            stand_ins.owner_gpu[static_cast<size_t>(plan.gpu(s, d, t))] = plan.gpu(s, 0, t);
    }
  }
  const bool all_isolated = isolated_groups == static_cast<size_t>(plan.pp * plan.dp);
  if (plan.tp > 1 && (plan.pp > 1 || plan.dp > 1) && all_isolated) {
    std::vector<Routes> per_rank(static_cast<size_t>(plan.tp));
    for (int t = 0; t < plan.tp; ++t) {
      Routes& mine = per_rank[static_cast<size_t>(t)];
      for (const auto& replica : routes)
        mine.insert(mine.end(), replica[static_cast<size_t>(t)].begin(), replica[static_cast<size_t>(t)].end());
      for (int s = 0; s < plan.pp; ++s) {
        const Routes dp = dp_routes(plan, collectives, s, t);
        mine.insert(mine.end(), dp.begin(), dp.end());
      }
    }
    stand_ins.first_rank_stands_in = disjoint_and_alike(topology, per_rank);
  }
}

} // namespace simgpt::step_graph
