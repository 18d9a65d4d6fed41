#include "execution/step_graph/symmetry.hpp"

#include "execution/step_graph/routes.hpp"

#include <numeric>
#include <vector>

namespace simgpt::step_graph {

void find_symmetry(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                   size_t isolated_groups, StandIns& stand_ins) {
  const auto routes = pipeline_routes(plan);
  // Expert- and context-parallel groups exchange within blocks of consecutive replicas: the first
  // block stands for the others (one replica when there are none).
  const int block = std::lcm(plan.ep, plan.cp);
  if (plan.dp > block && plan.dp % block == 0) {
    std::vector<Routes> per_block(static_cast<size_t>(plan.dp / block));
    for (int d = 0; d < plan.dp; ++d)
      for (const auto& rank : routes[static_cast<size_t>(d)])
        per_block[static_cast<size_t>(d / block)].insert(per_block[static_cast<size_t>(d / block)].end(), rank.begin(),
                                                          rank.end());
    for (int size : {plan.ep, plan.cp})
      for (int first = 0; size > 1 && first < plan.dp; first += size)
        for (int s = 0; s < plan.pp; ++s)
          for (int t = 0; t < plan.tp; ++t)
            for (int a = first; a < first + size; ++a)
              for (int b = first; b < first + size; ++b)
                if (a != b)
                  per_block[static_cast<size_t>(first / block)].emplace_back(plan.gpu(s, a, t), plan.gpu(s, b, t));
    if (disjoint_and_alike(topology, per_block)) {
      stand_ins.replicas = block;
      for (int s = 0; s < plan.pp; ++s)
        for (int d = 0; d < plan.dp; ++d)
          for (int t = 0; t < plan.tp; ++t)
            stand_ins.owner_gpu[static_cast<size_t>(plan.gpu(s, d, t))] = plan.gpu(s, d % block, t);
    }
  }
  if (block > 1)
    return;
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
