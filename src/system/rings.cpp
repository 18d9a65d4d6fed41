#include "system/rings.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>

namespace simgpt {

std::vector<int> ring_order(const GroupLinks& group) {
  const std::vector<int>& gpus = group.gpus;
  const size_t n = gpus.size();
  if (!ring_search_covers(n))
    return gpus;
  const auto& bw = group.bandwidth;
  std::vector<size_t> order(n), best;
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  double best_bottleneck = -1;
  int best_crossings = 0;
  // Member 0 stays first: rotations of a ring are the same ring.
  do {
    double bottleneck = std::numeric_limits<double>::infinity();
    int crossings = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t a = order[i], b = order[(i + 1) % n];
      bottleneck = std::min(bottleneck, bw[a][b]);
      crossings += group.node[a] != group.node[b];
    }
    if (bottleneck > best_bottleneck * (1 + 1e-9) ||
        (bottleneck >= best_bottleneck * (1 - 1e-9) && crossings < best_crossings)) {
      best_bottleneck = bottleneck;
      best_crossings = crossings;
      best = order;
    }
  } while (std::next_permutation(order.begin() + 1, order.end()));
  std::vector<int> ring;
  for (size_t i : best)
    ring.push_back(gpus[i]);
  return ring;
}

namespace {

// Bounds on the search, which is exhaustive per ring: in a fully linked 8-GPU group every one of
// the 2520 rings ties for first, and a greedy search after each costs thousands of permutations
// (41 s in all). NCCL itself searches for a bounded time; past these the first greedy result stands.
constexpr size_t kMaxFirstRings = 16;
constexpr size_t kMaxPermutations = 200000;

// The direct links among a group and what is left of each: NCCL's search for rings over NVLink.
struct LinkBudget {
  std::vector<std::vector<int>> hop; // hop[a][b]: index of the one link from member a to b, or -1
  std::vector<double> left;          // per link, bytes/s not yet taken by a ring
  std::vector<bool> shared;          // a FATPIPE link caps each flow but is never used up

  // The link of each hop of a ring in `order` run both ways (-1 where there is no direct link).
  std::vector<int> links(const std::vector<size_t>& order) const {
    std::vector<int> out;
    const size_t n = order.size();
    for (size_t i = 0; i < n; ++i) {
      const size_t a = order[i], b = order[(i + 1) % n];
      out.push_back(hop[a][b]);
      out.push_back(hop[b][a]);
    }
    return out;
  }

  // The rate a ring in `order`, run both ways, can take from every link it uses; 0 if it
  // needs a hop without a direct link.
  double rate(const std::vector<size_t>& order) const {
    std::vector<std::pair<int, int>> uses; // link, hops using it
    for (int l : links(order)) {
      if (l < 0)
        return 0;
      auto u = std::find_if(uses.begin(), uses.end(), [l](const auto& x) { return x.first == l; });
      if (u == uses.end())
        uses.emplace_back(l, 1);
      else
        ++u->second;
    }
    double r = std::numeric_limits<double>::infinity();
    for (auto [l, count] : uses)
      r = std::min(r, shared[static_cast<size_t>(l)] ? left[static_cast<size_t>(l)]
                                                    : left[static_cast<size_t>(l)] / count);
    return r;
  }

  void take(const std::vector<size_t>& order, double r) {
    for (int l : links(order))
      if (!shared[static_cast<size_t>(l)])
        left[static_cast<size_t>(l)] = std::max(0.0, left[static_cast<size_t>(l)] - r);
  }

  // The cycles over all members (member 0 first) with the highest rate, and that rate. A ring
  // and its reverse use the same links both ways: only the one with order[1] < order[n-1], the
  // first of the two in lexicographic order, is kept. Adds the permutations rated to `rated`.
  std::pair<double, std::vector<std::vector<size_t>>> best_cycles(size_t& rated) const {
    const size_t n = hop.size();
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
      order[i] = i;
    double best = 0;
    std::vector<std::vector<size_t>> cycles;
    do {
      if (order[1] > order[n - 1])
        continue;
      ++rated;
      const double r = rate(order);
      if (r > best * (1 + 1e-9)) {
        best = r;
        cycles.clear();
      }
      if (r > 0 && r >= best * (1 - 1e-9))
        cycles.push_back(order);
    } while (std::next_permutation(order.begin() + 1, order.end()));
    return {best, cycles};
  }
};

// Rings found over direct links: each one's order and rate (RingSearches remembers them).
using RingSet = RingSearches::Found;

// Takes the fastest ring until none is left worth having (a millionth of the first).
RingSet greedy(LinkBudget budget, double floor, size_t& rated) {
  RingSet set;
  for (;;) {
    auto [r, cycles] = budget.best_cycles(rated);
    if (cycles.empty() || r <= floor)
      return set;
    budget.take(cycles.front(), r);
    set.rings.emplace_back(cycles.front(), r);
    set.total += r;
  }
}

// The group's direct links, over its members in index order, so that the rings do not depend
// on how the caller listed them: `members[i]` is the listed position of the i-th lowest GPU.
LinkBudget direct_links(const GroupLinks& group, std::vector<size_t>& members) {
  const size_t n = group.gpus.size();
  members.resize(n);
  for (size_t i = 0; i < n; ++i)
    members[i] = i;
  std::sort(members.begin(), members.end(), [&](size_t a, size_t b) { return group.gpus[a] < group.gpus[b]; });
  LinkBudget budget;
  budget.left = group.link_rate;
  budget.shared = group.link_shared;
  budget.hop.assign(n, std::vector<int>(n, -1));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j)
        budget.hop[i][j] = group.direct[members[i]][members[j]];
  return budget;
}

} // namespace

// NCCL 2.18.3, src/graph/search.cc (ncclTopoSearchRecNet): across nodes each channel's ring
// starts from a network interface, takes its bandwidth from that NIC, and the next channel tries
// the next NIC, so the channels spread over every NIC the node's GPUs reach; inside the node the
// channel passes through all of the communicator's GPUs there before leaving for the next node.
// Ring c here enters each node at its c-th member and leaves from the member before it, whose
// NIC is then different for every ring: with both directions run, each NIC sends two of the 2m
// crossing flows, as NCCL's channel pairs per NIC do.
std::vector<Ring> rail_rings(const GroupLinks& group) {
  const size_t n = group.gpus.size();
  if (group.node.size() != n || group.nic.size() != n)
    return {};
  std::vector<int> nodes; // in order of first appearance
  std::vector<std::vector<size_t>> members;
  for (size_t i = 0; i < n; ++i) {
    auto at = std::find(nodes.begin(), nodes.end(), group.node[i]);
    if (at == nodes.end()) {
      nodes.push_back(group.node[i]);
      members.emplace_back();
      at = nodes.end() - 1;
    }
    members[static_cast<size_t>(at - nodes.begin())].push_back(i);
  }
  const size_t per_node = members.front().size();
  if (nodes.size() < 2 || per_node < 2)
    return {};
  for (const auto& m : members) {
    if (m.size() != per_node)
      return {};
    for (size_t i : m)
      if (group.nic[i] < 0)
        return {};
    const bool one_nic = std::all_of(m.begin(), m.end(), [&](size_t i) { return group.nic[i] == group.nic[m.front()]; });
    if (one_nic)
      return {};
  }
  std::vector<Ring> rings;
  for (size_t c = 0; c < per_node; ++c) {
    Ring ring{{}, 1.0 / static_cast<double>(per_node)};
    for (const auto& m : members)
      for (size_t k = 0; k < per_node; ++k)
        ring.gpus.push_back(group.gpus[m[(c + k) % per_node]]);
    // Each ring starts at the caller's first GPU: a broadcast's root, a reduce's destination.
    std::rotate(ring.gpus.begin(), std::find(ring.gpus.begin(), ring.gpus.end(), group.gpus.front()), ring.gpus.end());
    rings.push_back(std::move(ring));
  }
  return rings;
}

namespace {

// The rings over direct links, greedily, trying each of the fastest first rings: which one is
// taken first decides what the later ones can use (of a fully linked 4-GPU group, one choice
// leaves a second ring, another none). None when no cycle runs over direct links.
RingSet search_direct(const LinkBudget& budget) {
  size_t rated = 0;
  auto [first_rate, firsts] = budget.best_cycles(rated);
  RingSet best;
  if (firsts.empty())
    return best;
  const double floor = 1e-6 * first_rate;
  for (size_t f = 0; f < firsts.size() && f < kMaxFirstRings; ++f) {
    // The first first ring's greedy result always stands; later ones only within the budget.
    if (f > 0 && rated > kMaxPermutations)
      break;
    const auto& first = firsts[f];
    LinkBudget rest = budget;
    rest.take(first, first_rate);
    RingSet set = greedy(rest, floor, rated);
    set.rings.insert(set.rings.begin(), {first, first_rate});
    set.total += first_rate;
    if (set.total > best.total * (1 + 1e-9))
      best = std::move(set);
  }
  return best;
}

// What search_direct reads of a budget, with its links numbered as they first appear in `hop`:
// the member count, each hop's link (-1: none), and each link's rate and whether it is shared.
std::vector<double> shape_of(const LinkBudget& budget) {
  const size_t n = budget.hop.size();
  std::vector<double> shape{static_cast<double>(n)};
  std::vector<int> renamed(budget.left.size(), -1);
  std::vector<size_t> links; // in order of first appearance
  for (const auto& row : budget.hop)
    for (int l : row) {
      if (l >= 0 && renamed[static_cast<size_t>(l)] < 0) {
        renamed[static_cast<size_t>(l)] = static_cast<int>(links.size());
        links.push_back(static_cast<size_t>(l));
      }
      shape.push_back(l < 0 ? -1 : renamed[static_cast<size_t>(l)]);
    }
  for (size_t l : links) {
    shape.push_back(budget.left[l]);
    shape.push_back(budget.shared[l] ? 1 : 0);
  }
  return shape;
}

std::vector<Ring> rings_of(const GroupLinks& group,
                           const std::function<RingSet(const LinkBudget&)>& search,
                           const std::function<std::vector<int>(const GroupLinks&)>& order) {
  const std::vector<int>& gpus = group.gpus;
  if (std::vector<Ring> rails = rail_rings(group); !rails.empty())
    return rails;
  auto single = [&] { return std::vector<Ring>{{order(group), 1.0}}; };
  if (!ring_search_covers(gpus.size()))
    return single();
  std::vector<size_t> members;
  const RingSet best = search(direct_links(group, members));
  if (best.rings.empty())
    return single();
  std::vector<Ring> found;
  for (const auto& [order, r] : best.rings) {
    Ring ring{{}, r / best.total};
    for (size_t i : order)
      ring.gpus.push_back(gpus[members[i]]);
    // Each ring starts at the caller's first GPU: a broadcast's root, a reduce's destination.
    std::rotate(ring.gpus.begin(), std::find(ring.gpus.begin(), ring.gpus.end(), gpus.front()), ring.gpus.end());
    found.push_back(std::move(ring));
  }
  return found;
}

} // namespace

std::vector<Ring> nccl_rings(const GroupLinks& group) { return rings_of(group, search_direct, ring_order); }

std::vector<Ring> RingSearches::rings(const GroupLinks& group) {
  auto search = [this](const LinkBudget& budget) {
    auto [at, added] = found_.try_emplace(shape_of(budget));
    if (added)
      at->second = search_direct(budget);
    return at->second;
  };
  // ring_order reads the members' routes' bandwidths and which share a node: as positions in the
  // listed group, its order is the same for groups alike in those.
  auto order = [this](const GroupLinks& g) {
    const size_t n = g.gpus.size();
    if (!ring_search_covers(n))
      return ring_order(g); // the listed order
    std::vector<double> shape{static_cast<double>(n)};
    for (const auto& row : g.bandwidth)
      shape.insert(shape.end(), row.begin(), row.end());
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        shape.push_back(g.node[i] == g.node[j] ? 1 : 0);
    auto [at, added] = orders_.try_emplace(std::move(shape));
    if (added) {
      GroupLinks positions = g; // the same links over members 0..n-1
      for (size_t i = 0; i < n; ++i)
        positions.gpus[i] = static_cast<int>(i);
      for (int i : ring_order(positions))
        at->second.push_back(static_cast<size_t>(i));
    }
    std::vector<int> ring;
    for (size_t i : at->second)
      ring.push_back(g.gpus[i]);
    return ring;
  };
  return rings_of(group, search, order);
}

} // namespace simgpt
