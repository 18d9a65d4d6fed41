#include "execution/step_graph/isolated_groups.hpp"

#include "execution/step_graph/parallel_groups.hpp"
#include "execution/step_graph/routes.hpp"

#include <map>

namespace simgpt::step_graph {
namespace {

// Users of a link other than a tensor-parallel group's collectives (data-parallel collectives,
// pipeline transfers), and several users.
constexpr int kOthers = -1, kSeveral = -2;

// Who uses each link that flows share, from the routes of all the step's communication.
class LinkUsers {
  const Topology& topology_;
  std::map<const void*, int> user_;                // per shared link: the tp group using it, kOthers or kSeveral
  std::vector<std::vector<const void*>> links_of_; // per tp group
  bool known_ = true;                              // every route's links are known

public:
  // Other jobs' links are used by others from the start.
  LinkUsers(const Topology& topology, size_t groups) : topology_(topology), links_of_(groups) {
    for (const void* link : topology.foreign_links())
      user_.emplace(link, kOthers);
  }

  // The routes of tp group `id` (or of kOthers) use their links.
  void use(int id, const Routes& routes) {
    for (const auto& [a, b] : routes) {
      const auto links = topology_.shared_links(a, b);
      if (!links) {
        known_ = false;
        continue;
      }
      for (const void* link : *links) {
        if (auto [it, inserted] = user_.emplace(link, id); !inserted && it->second != id)
          it->second = kSeveral;
        if (id >= 0)
          links_of_[static_cast<size_t>(id)].push_back(link);
      }
    }
  }

  bool known() const { return known_; }

  // Whether tp group `id` alone uses its links.
  bool alone(size_t id) const {
    bool alone = true;
    for (const void* link : links_of_[id])
      alone = alone && user_.at(link) == static_cast<int>(id);
    return alone;
  }
};

} // namespace

void add_isolated(const std::vector<int>& group, GroupCollectives& collectives, std::map<std::vector<int>, int>& index,
                  std::vector<std::vector<Ring>>& isolated) {
  index[group] = static_cast<int>(isolated.size());
  isolated.push_back(collectives.rings(group).rings);
}

void find_isolated_groups(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                          StandIns& stand_ins, std::vector<std::vector<Ring>>& isolated) {
  LinkUsers users(topology, static_cast<size_t>(plan.pp * plan.dp));
  std::vector<std::vector<int>> groups;
  for (int s = 0; s < plan.pp; ++s)
    for (int d = 0; d < plan.dp; ++d) {
      groups.push_back(tp_group(plan, s, d));
      users.use(static_cast<int>(groups.size()) - 1, ring_routes(collectives, groups.back()));
    }
  for (int s = 0; s < plan.pp; ++s)
    for (int t = 0; t < plan.tp; ++t)
      users.use(kOthers, dp_routes(plan, collectives, s, t));
  for (const auto& replica : pipeline_routes(plan))
    for (const Routes& rank : replica)
      users.use(kOthers, rank);
  if (!users.known())
    return;
  for (size_t id = 0; id < groups.size(); ++id) {
    if (!users.alone(id))
      continue;
    add_isolated(groups[id], collectives, stand_ins.isolated_index, isolated);
    for (int gpu : groups[id])
      stand_ins.stream_gpu[static_cast<size_t>(gpu)] = groups[id].front();
  }
}

void find_whole_dp_groups(const ExecutionPlan& plan, const Topology& topology, GroupCollectives& collectives,
                          StandIns& stand_ins, std::vector<std::vector<Ring>>& isolated) {
  if (plan.dp < 2 || dp_collective_algorithm(plan) != CollectiveAlgorithm::ring)
    return;
  std::vector<std::vector<int>> groups;
  for (int s = 0; s < plan.pp; ++s)
    for (int t = 0; t < plan.tp; ++t) {
      groups.push_back(dp_group(plan, s, t));
      if (plan.ep > 1 && plan.dp > plan.ep)
        for (std::vector<int>& experts : expert_dp_groups(plan, s, t))
          groups.push_back(std::move(experts));
    }
  LinkUsers users(topology, groups.size());
  for (size_t id = 0; id < groups.size(); ++id)
    users.use(static_cast<int>(id), ring_routes(collectives, groups[id]));
  if (plan.tp > 1)
    for (int s = 0; s < plan.pp; ++s)
      for (int d = 0; d < plan.dp; ++d)
        users.use(kOthers, ring_routes(collectives, tp_group(plan, s, d)));
  for (const auto& replica : pipeline_routes(plan))
    for (const Routes& rank : replica)
      users.use(kOthers, rank);
  users.use(kOthers, all_exchange_routes(plan));
  if (!users.known())
    return;
  for (size_t id = 0; id < groups.size(); ++id)
    if (users.alone(id))
      add_isolated(groups[id], collectives, stand_ins.whole_index, isolated);
}

} // namespace simgpt::step_graph
