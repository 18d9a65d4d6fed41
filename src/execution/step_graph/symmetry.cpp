#include "execution/step_graph/symmetry.hpp"

#include "execution/step_graph/isolated_groups.hpp"
#include "execution/step_graph/parallel_groups.hpp"
#include "execution/step_graph/routes.hpp"

#include <numeric>
#include <vector>

namespace simgpt::step_graph {

namespace {

// The pipeline routes of the first `replicas` replicas, over their tensor ranks, per block of
// `block` consecutive replicas.
std::vector<Routes> block_routes(const std::vector<std::vector<Routes>>& routes, int replicas, int block) {
  std::vector<Routes> out(static_cast<size_t>(replicas / block));
  for (int d = 0; d < replicas; ++d)
    for (const Routes& rank : routes[static_cast<size_t>(d)])
      out[static_cast<size_t>(d / block)].insert(out[static_cast<size_t>(d / block)].end(), rank.begin(), rank.end());
  return out;
}

// The first block of `block` replicas stands for the others: every GPU's work is that of the
// same rank in its replica's place within the first block.
void first_block_stands_in(const ExecutionPlan& plan, int block, int stand_in, StandIns& stand_ins) {
  stand_ins.replicas = stand_in;
  for (int s = 0; s < plan.pp; ++s)
    for (int d = 0; d < plan.dp; ++d)
      for (int t = 0; t < plan.tp; ++t)
        stand_ins.owner_gpu[static_cast<size_t>(plan.gpu(s, d, t))] = plan.gpu(s, d % block % stand_in, t);
}

// Whether the first block's expert-parallel replicas can be one: alike, as their pipeline
// transfers use disjoint, alike routes (their kernels and their share of the tokens are the same
// under balanced routing, and their all-to-alls and gradient collectives join them all). They
// then run the first replica's stream, and each stage's and tensor rank's group its all-to-alls
// whole on it: the flows of the first of each size on the links they use, the others as long.
// That holds where nothing else crosses those links during the later ones; pipeline transfers
// and gradient collectives that share a NIC with them then go at its full rate.
bool fold_expert_groups(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                        const std::vector<std::vector<Routes>>& routes, StandIns& stand_ins,
                        std::vector<std::vector<Ring>>& isolated) {
  if (plan.expert_group_size() < 2 || plan.cp > 1 ||
      !disjoint_and_alike(topology, block_routes(routes, plan.ep, 1)))
    return false;
  first_block_stands_in(plan, plan.ep, 1, stand_ins);
  stand_ins.expert_groups_folded = true;
  for (int s = 0; s < plan.pp; ++s)
    for (int t = 0; t < expert_group_ranks(plan); ++t)
      add_isolated(expert_group(plan, s, 0, t), collectives, stand_ins.isolated_index, isolated);
  return true;
}

} // namespace

void find_symmetry(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                   StandIns& stand_ins, std::vector<std::vector<Ring>>& isolated) {
  const auto routes = pipeline_routes(plan);
  // Expert- and context-parallel groups exchange within blocks of consecutive replicas: the first
  // block stands for the others (one replica when there are none).
  const int block = std::lcm(plan.ep, plan.cp);
  bool blocks_alike = plan.dp == block;
  if (plan.dp > block && plan.dp % block == 0) {
    std::vector<Routes> per_block = block_routes(routes, plan.dp, block);
    for_each_exchange(plan, [&](int first, const Routes& pairs) {
      Routes& mine = per_block[static_cast<size_t>(first / block)];
      mine.insert(mine.end(), pairs.begin(), pairs.end());
    });
    blocks_alike = disjoint_and_alike(topology, per_block);
    if (blocks_alike)
      first_block_stands_in(plan, block, block, stand_ins);
  }
  if (block > 1) {
    if (blocks_alike)
      fold_expert_groups(plan, topology, collectives, routes, stand_ins, isolated);
    return;
  }
  const bool all_isolated = isolated.size() == static_cast<size_t>(plan.pp * plan.dp);
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
