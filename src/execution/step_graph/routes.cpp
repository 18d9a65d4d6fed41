#include "execution/step_graph/routes.hpp"

#include "execution/step_graph/parallel_groups.hpp"

#include <map>
#include <optional>

namespace simgpt::step_graph {

Routes ring_routes(GroupCollectives& collectives, const std::vector<int>& gpus) {
  Routes out;
  for (const Ring& r : collectives.rings(gpus).rings)
    for (size_t i = 0; i < r.gpus.size(); ++i) {
      const int a = r.gpus[i], b = r.gpus[(i + 1) % r.gpus.size()];
      if (a != b) {
        out.emplace_back(a, b);
        out.emplace_back(b, a);
      }
    }
  return out;
}

namespace {

// Every ordered pair of distinct members: a direct collective's or an all-to-all's flows.
Routes all_pairs(const std::vector<int>& members) {
  Routes out;
  for (int a : members)
    for (int b : members)
      if (a != b)
        out.emplace_back(a, b);
  return out;
}

} // namespace

Routes dp_routes(const ExecutionPlan& plan, GroupCollectives& collectives, int s, int t) {
  if (plan.dp < 2)
    return {};
  const std::vector<int> members = dp_group(plan, s, t);
  if (dp_collective_algorithm(plan) != CollectiveAlgorithm::direct)
    return ring_routes(collectives, members);
  return all_pairs(members);
}

void for_each_exchange(const ExecutionPlan& plan, const std::function<void(int first, const Routes& pairs)>& f) {
  for (int first = 0; plan.expert_group_size() > 1 && first < plan.dp; first += plan.ep)
    for (int s = 0; s < plan.pp; ++s)
      for (int t = 0; t < expert_group_ranks(plan); ++t)
        f(first, all_pairs(expert_group(plan, s, first, t)));
  for (int first = 0; plan.cp > 1 && first < plan.dp; first += plan.cp)
    for (int s = 0; s < plan.pp; ++s)
      for (int t = 0; t < plan.tp; ++t)
        f(first, all_pairs(replica_group(plan, s, first, plan.cp, t)));
}

Routes all_exchange_routes(const ExecutionPlan& plan) {
  Routes out;
  for_each_exchange(plan, [&out](int, const Routes& pairs) { out.insert(out.end(), pairs.begin(), pairs.end()); });
  return out;
}

std::vector<std::vector<Routes>> pipeline_routes(const ExecutionPlan& plan) {
  std::vector<std::vector<Routes>> out(static_cast<size_t>(plan.dp), std::vector<Routes>(static_cast<size_t>(plan.tp)));
  for (int s = 0; s < plan.pp; ++s)
    if (plan.pp > 1 && (s + 1 < plan.pp || plan.chunks > 1))
      for (int d = 0; d < plan.dp; ++d)
        for (int t = 0; t < plan.tp; ++t) {
          const int a = plan.gpu(s, d, t), b = plan.gpu((s + 1) % plan.pp, d, t);
          if (a != b) {
            out[static_cast<size_t>(d)][static_cast<size_t>(t)].emplace_back(a, b);
            out[static_cast<size_t>(d)][static_cast<size_t>(t)].emplace_back(b, a);
          }
        }
  return out;
}

bool disjoint_and_alike(const Topology& topology, const std::vector<Routes>& routes) {
  std::map<const void*, size_t> user;
  std::vector<std::optional<std::vector<double>>> first; // the first set's signatures
  for (size_t k = 0; k < routes.size(); ++k) {
    if (routes[k].size() != routes.front().size())
      return false;
    for (size_t i = 0; i < routes[k].size(); ++i) {
      const auto [a, b] = routes[k][i];
      const auto links = topology.shared_links(a, b);
      const auto signature = topology.route_signature(a, b);
      if (k == 0)
        first.push_back(signature);
      if (!links || !signature || signature != first[i])
        return false;
      for (const void* link : *links)
        if (auto [it, inserted] = user.emplace(link, k); !inserted && it->second != k)
          return false;
    }
  }
  return true;
}

} // namespace simgpt::step_graph
