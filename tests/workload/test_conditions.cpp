// The workload's conditions section: what it reads, what it refuses, and the seeded draw.
#include "simgpt/workload/conditions.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace simgpt;

namespace {

const char* kConditionsBase = "model: {layers: 2, hidden: 64, heads: 4, seq_len: 32, vocab: 100}\n"
                    "training: {global_batch: 8, micro_batch: 1}\n"
                    "parallelism: {dp: 8}\n";

Workload conditions_with(const Overrides& sets) { return parse_workload(kConditionsBase, "w.yaml", sets); }

std::string conditions_error(const Overrides& sets) {
  try {
    (void)conditions_with(sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("conditions read slowdowns by GPU, range and node, and link factors, latencies and failures") {
  const Workload w = conditions_with({{"conditions.gpu_slowdown", "3:1.2, 5-7:1.5"},
                           {"conditions.node_slowdown", "1:1.1"},
                           {"conditions.link_bandwidth", "nic-2:0.5"},
                           {"conditions.link_latency", "nic-2:20us, uplink-0:1ms"},
                           {"conditions.links_down", "nic-3"}});
  const Conditions& c = w.conditions;
  REQUIRE(c.gpus.size() == 2);
  CHECK(c.gpus[1].first == 5);
  CHECK(c.gpus[1].last == 7);
  CHECK(c.gpus[1].factor == 1.5);
  CHECK(c.nodes.at(0).factor == 1.1);
  REQUIRE(c.links.size() == 3); // nic-2's factor and latency are one entry
  CHECK(c.links[0].link == "nic-2");
  CHECK(c.links[0].bandwidth_factor == 0.5);
  CHECK(c.links[0].latency_added_s == Approx(20e-6));
  CHECK(c.links[2].down);
  // Written back as read, and read again the same.
  const Workload again = parse_workload(workload_yaml(w), "again.yaml");
  CHECK(workload_yaml(again) == workload_yaml(w));
  CHECK(again.conditions.links.size() == 3);
}

TEST_CASE("bad conditions name the key and what is valid") {
  CHECK_THAT(conditions_error({{"conditions.gpu_slowdown", "3"}}),
             Catch::Contains("w.yaml: conditions.gpu_slowdown") && Catch::Contains("NAME:VALUE"));
  CHECK_THAT(conditions_error({{"conditions.gpu_slowdown", "3:0.5"}}), Catch::Contains("not a factor"));
  CHECK_THAT(conditions_error({{"conditions.gpu_slowdown", "7-5:1.2"}}), Catch::Contains("'7-5' is not a GPU or a range"));
  CHECK_THAT(conditions_error({{"conditions.gpu_slowdown", "a:1.2"}}), Catch::Contains("is not a GPU"));
  CHECK_THAT(conditions_error({{"conditions.gpu_slowdown", "1:1.2,,2:1.1"}}), Catch::Contains("empty entry"));
  CHECK_THAT(conditions_error({{"conditions.link_bandwidth", "nic-1:0"}}), Catch::Contains("not a factor"));
  CHECK_THAT(conditions_error({{"conditions.link_latency", "nic-1:fast"}}), Catch::Contains("not a duration"));
  CHECK_THAT(conditions_error({{"conditions.random_fraction", "1.5"}}),
             Catch::Contains("conditions.random_fraction") && Catch::Contains("from 0 to 1"));
  CHECK_THAT(conditions_error({{"conditions.random_fraction", "0.1"}, {"conditions.random_slowdown", "1.3-1.1"}}),
             Catch::Contains("empty range"));
  CHECK_THAT(conditions_error({{"conditions.seed", "3"}}),
             Catch::Contains("conditions.seed") && Catch::Contains("conditions.random_fraction"));
  CHECK_THAT(conditions_error({{"conditions.random_slowdown", "1.2"}}), Catch::Contains("none are drawn"));
  CHECK_THAT(conditions_error({{"conditions.slow", "1"}}), Catch::Contains("unknown key"));
  // A fraction of 0 is a draw of none: a sweep's or a baseline's point, with its other keys kept.
  CHECK(conditions_error({{"conditions.random_fraction", "0"}, {"conditions.seed", "3"}}).empty());
}

TEST_CASE("the seeded draw is the same for a seed, slows the fraction asked, and changes with the seed") {
  Conditions c;
  c.random_fraction = 0.25;
  c.random_min = 1.1;
  c.random_max = 1.3;
  const std::vector<int> nodes(16, 0);
  const auto slowed = [&](uint64_t seed) {
    c.seed = seed;
    const std::vector<double> f = gpu_slowdowns(c, 0, nodes, "w.yaml");
    std::set<size_t> which;
    for (size_t g = 0; g < f.size(); ++g)
      if (f[g] > 1) {
        CHECK((f[g] >= 1.1 && f[g] <= 1.3));
        which.insert(g);
      }
    return which;
  };
  CHECK(slowed(1).size() == 4);
  CHECK(slowed(1) == slowed(1));
  bool differs = false;
  for (uint64_t seed = 2; seed < 10; ++seed)
    differs = differs || slowed(seed) != slowed(1);
  CHECK(differs);
  // At least one GPU when the fraction rounds to none.
  c.random_fraction = 0.01;
  CHECK(slowed(1).size() == 1);
  // A fixed factor, and a listed GPU's larger one kept where both apply.
  c.random_fraction = 1;
  c.random_min = c.random_max = 1.2;
  c.gpus = {{3, 3, 1.5}};
  const std::vector<double> f = gpu_slowdowns(c, 0, nodes, "w.yaml");
  CHECK(f[3] == 1.5);
  CHECK(f[0] == 1.2);
}

TEST_CASE("a node's slowdown reaches its GPUs, and a node or GPU outside the job is refused") {
  Conditions c;
  c.nodes = {{1, 1, 1.25}};
  const std::vector<int> nodes{0, 0, 1, 1};
  const std::vector<double> f = gpu_slowdowns(c, 0, nodes, "w.yaml");
  CHECK(f == std::vector<double>{1, 1, 1.25, 1.25});
  c.nodes = {{5, 5, 1.25}};
  CHECK_THROWS_WITH(gpu_slowdowns(c, 0, nodes, "w.yaml"), Catch::Contains("conditions.node_slowdown") &&
                                                              Catch::Contains("no GPU of the job is on node 5"));
  c.nodes.clear();
  c.gpus = {{2, 2, 1.1}};
  // The job from the platform's GPU 4: GPU 2 is not its.
  CHECK_THROWS_WITH(gpu_slowdowns(c, 4, nodes, "w.yaml"), Catch::Contains("GPU 2 is not one of the job's (GPUs 4 to 7"));
}
