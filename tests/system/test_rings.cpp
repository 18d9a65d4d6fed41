#include "system/rings.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace simgpt;

namespace {

// A group whose members all share one node and are joined pairwise by their own direct link
// (one per direction) of `rate` bytes/s where `linked(i, j)`, else by a slower shared route.
template <class Linked>
GroupLinks mesh(const std::vector<int>& gpus, double rate, Linked linked) {
  const size_t n = gpus.size();
  GroupLinks g;
  g.gpus = gpus;
  g.node.assign(n, 0);
  g.bandwidth.assign(n, std::vector<double>(n, rate / 10));
  g.direct.assign(n, std::vector<int>(n, -1));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j && linked(gpus[i], gpus[j])) {
        g.bandwidth[i][j] = rate;
        g.direct[i][j] = static_cast<int>(g.link_rate.size());
        g.link_rate.push_back(rate);
        g.link_shared.push_back(false);
      }
  return g;
}

double total_share(const std::vector<Ring>& rings) {
  double s = 0;
  for (const Ring& r : rings)
    s += r.share;
  return s;
}

} // namespace

TEST_CASE("rings over direct links start at the first listed GPU and carry the whole buffer") {
  auto all = [](int, int) { return true; };
  for (const std::vector<int>& group : {std::vector<int>{0, 1, 2, 3}, std::vector<int>{2, 0, 3, 1}}) {
    const auto rings = nccl_rings(mesh(group, 1e9, all));
    REQUIRE_FALSE(rings.empty());
    CHECK_THAT(total_share(rings), Catch::Matchers::WithinRel(1.0, 1e-12));
    for (const Ring& r : rings) {
      CHECK(r.gpus.front() == group.front());
      CHECK(std::is_permutation(r.gpus.begin(), r.gpus.end(), group.begin()));
    }
  }
}

TEST_CASE("the rings do not depend on the order the group is listed in") {
  // An 8-GPU hybrid cube-mesh without its double links: every GPU linked to four others.
  auto cube = [](int a, int b) {
    const int x = a ^ b;
    return (a / 4 == b / 4) || x == 4;
  };
  const auto a = nccl_rings(mesh({0, 1, 2, 3, 4, 5, 6, 7}, 25e9, cube));
  const auto b = nccl_rings(mesh({0, 7, 6, 5, 4, 3, 2, 1}, 25e9, cube));
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i)
    CHECK_THAT(a[i].share, Catch::Matchers::WithinRel(b[i].share, 1e-12));
}

TEST_CASE("without a cycle of direct links a group keeps one ring, with the fewest node crossings") {
  GroupLinks g = mesh({0, 1, 2, 3}, 1e9, [](int, int) { return false; });
  g.node = {0, 1, 0, 1};
  const auto rings = nccl_rings(g);
  REQUIRE(rings.size() == 1);
  CHECK(rings.front().share == 1.0);
  // Two crossings (0 2 | 1 3 or 0 2 3 1 ...), not four (0 1 2 3).
  int crossings = 0;
  const auto& r = rings.front().gpus;
  for (size_t i = 0; i < r.size(); ++i)
    crossings += g.node[static_cast<size_t>(r[i])] != g.node[static_cast<size_t>(r[(i + 1) % r.size()])];
  CHECK(crossings == 2);
}

TEST_CASE("groups outside the search keep their listed order") {
  const std::vector<int> pair{5, 3};
  CHECK(ring_order(GroupLinks{pair, {}, {}, {}, {}, {}}) == pair);
}

TEST_CASE("a fully linked 8-GPU group gets valid rings within the search bound") {
  // Every ring of a full mesh ties for first: the bounded search must still return whole rings
  // (once took 41 s, trying each of the 2520 first rings).
  const std::vector<int> group{3, 0, 1, 2, 4, 5, 6, 7};
  const auto rings = nccl_rings(mesh(group, 25e9, [](int, int) { return true; }));
  REQUIRE_FALSE(rings.empty());
  CHECK_THAT(total_share(rings), Catch::Matchers::WithinRel(1.0, 1e-12));
  for (const Ring& r : rings) {
    CHECK(r.gpus.front() == group.front());
    CHECK(std::is_permutation(r.gpus.begin(), r.gpus.end(), group.begin(), group.end()));
    CHECK(r.share > 0);
  }
}

namespace {

// Two or more nodes of `per_node` members each, GPU g on node g / per_node, behind NIC `nic(g)`.
template <class Nic>
GroupLinks nodes(int count, int per_node, Nic nic) {
  GroupLinks g;
  for (int gpu = 0; gpu < count * per_node; ++gpu) {
    g.gpus.push_back(gpu);
    g.node.push_back(gpu / per_node);
    g.nic.push_back(nic(gpu));
  }
  // Routes of one rate, no direct links, as Cluster::links fills them for the ring search.
  const size_t n = g.gpus.size();
  g.bandwidth.assign(n, std::vector<double>(n, 1e9));
  g.direct.assign(n, std::vector<int>(n, -1));
  return g;
}

} // namespace

TEST_CASE("across nodes with a NIC per GPU, NCCL's rings leave every node through a different NIC") {
  const GroupLinks g = nodes(3, 4, [](int gpu) { return gpu % 4; });
  const auto rings = nccl_rings(g);
  REQUIRE(rings.size() == 4);
  std::vector<int> leaving; // the node-0 member each ring leaves node 0 from
  for (const Ring& r : rings) {
    CHECK(r.share == 0.25);
    CHECK(r.gpus.front() == 0);
    CHECK(std::is_permutation(r.gpus.begin(), r.gpus.end(), g.gpus.begin(), g.gpus.end()));
    int crossings = 0;
    for (size_t i = 0; i < r.gpus.size(); ++i) {
      const int a = r.gpus[i], b = r.gpus[(i + 1) % r.gpus.size()];
      if (a / 4 != b / 4) {
        ++crossings;
        if (a / 4 == 0)
          leaving.push_back(a);
      }
    }
    CHECK(crossings == 3); // each node's members in one run
  }
  std::sort(leaving.begin(), leaving.end());
  CHECK(leaving == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("one NIC per node, unequal nodes or one member per node keep a single ring") {
  CHECK(nccl_rings(nodes(2, 4, [](int) { return 0; })).size() == 1);
  CHECK(nccl_rings(nodes(4, 1, [](int gpu) { return gpu; })).size() == 1);
  GroupLinks uneven = nodes(2, 4, [](int gpu) { return gpu % 4; });
  uneven.gpus.pop_back();
  uneven.node.pop_back();
  uneven.nic.pop_back();
  uneven.bandwidth.pop_back();
  for (auto& row : uneven.bandwidth)
    row.pop_back();
  uneven.direct.assign(uneven.gpus.size(), std::vector<int>(uneven.gpus.size(), -1));
  CHECK(nccl_rings(uneven).size() == 1);
}

TEST_CASE("remembered searches give each group the rings its own search would") {
  // Alike groups on other GPUs, listed in other orders, then one whose links differ.
  auto cube = [](int a, int b) {
    const int x = (a % 8) ^ (b % 8);
    return (a % 8 / 4 == b % 8 / 4) || x == 4;
  };
  auto ring = [](int a, int b) { return (a + 1) % 4 == b % 4 || (b + 1) % 4 == a % 4; };
  const std::vector<GroupLinks> groups = {
      mesh({0, 1, 2, 3, 4, 5, 6, 7}, 25e9, cube), mesh({8, 9, 10, 11, 12, 13, 14, 15}, 25e9, cube),
      mesh({23, 16, 17, 18, 19, 20, 21, 22}, 25e9, cube), mesh({8, 9, 10, 11, 12, 13, 14, 15}, 50e9, cube),
      mesh({0, 1, 2, 3}, 1e9, ring), mesh({4, 5, 6, 7}, 1e9, [](int, int) { return true; })};
  RingSearches searches;
  for (const GroupLinks& g : groups) {
    const auto remembered = searches.rings(g);
    const auto searched = nccl_rings(g);
    REQUIRE(remembered.size() == searched.size());
    for (size_t i = 0; i < searched.size(); ++i) {
      CHECK(remembered[i].gpus == searched[i].gpus);
      CHECK(remembered[i].share == searched[i].share);
    }
  }
}

TEST_CASE("remembered ring orders are those ring_order gives each group") {
  // Without direct links: one ring each, ordered by bandwidth and node crossings. The groups'
  // GPUs differ, their links' shapes repeat, one has its nodes swapped.
  auto group = [](std::vector<int> gpus, std::vector<int> node) {
    GroupLinks g = mesh(gpus, 1e9, [](int, int) { return false; });
    g.node = std::move(node);
    return g;
  };
  const std::vector<GroupLinks> groups = {group({0, 1, 2, 3, 4}, {0, 1, 0, 1, 0}), group({9, 7, 5, 3, 1}, {0, 1, 0, 1, 0}),
                                          group({9, 7, 5, 3, 1}, {1, 0, 1, 0, 1}), group({2, 4, 6, 8, 10}, {0, 0, 1, 1, 1})};
  RingSearches searches;
  for (const GroupLinks& g : groups) {
    const auto remembered = searches.rings(g);
    REQUIRE(remembered.size() == 1);
    CHECK(remembered.front().gpus == ring_order(g));
  }
}
