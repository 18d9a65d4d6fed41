#include "simgpt/planner/search_space.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace simgpt;

namespace {

const char* kWorkload = R"(
model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}
training: {global_batch: 64}
parallelism: {dp: 8}
)";

Workload base() { return parse_workload(kWorkload, "test.yaml"); }

std::vector<PlanCandidate> candidates(int64_t gpus, const std::vector<std::string>& searches = {}) {
  SearchSpace space;
  space.set_gpus({gpus});
  for (const std::string& s : searches)
    space.restrict(s);
  return space.candidates(base());
}

} // namespace

TEST_CASE("the default search covers every split of the GPUs and each key only where it applies") {
  const std::vector<PlanCandidate> all = candidates(8);
  std::set<std::vector<std::string>> distinct;
  std::set<std::tuple<int64_t, int64_t, int64_t>> splits;
  std::set<int64_t> micro_batches;
  for (const PlanCandidate& c : all) {
    CHECK(c.gpus() == 8);
    CHECK((c.zero == 0 || c.dp > 1));
    CHECK((!c.sequence_parallel || c.tp > 1));
    CHECK((c.schedule == Schedule::interleaved ? c.pp > 1 && c.chunks >= 2 && c.pp * c.chunks <= 24 : c.chunks == 1));
    distinct.insert(plan_values(c));
    splits.insert({c.dp, c.tp, c.pp});
    micro_batches.insert(c.micro_batch);
  }
  CHECK(distinct.size() == all.size());
  CHECK(splits.size() == 10); // ordered factorisations of 8 = 2^3 into three: C(5, 2)
  CHECK(micro_batches == std::set<int64_t>{1, 2, 4, 8, 16, 32, 64});
  // dp 8 x tp 1 x pp 1: 7 micro-batches x 3 recomputes x 2 schedules x 4 ZeRO stages, the workload's placement.
  CHECK(std::count_if(all.begin(), all.end(), [](const PlanCandidate& c) { return c.dp == 8; }) == 7 * 3 * 2 * 4);
  CHECK(std::all_of(all.begin(), all.end(), [](const PlanCandidate& c) { return c.order == RankOrder::tp_dp_pp; }));
}

TEST_CASE("a search restricts a key to the values it lists") {
  const std::vector<PlanCandidate> some =
      candidates(8, {"parallelism.tp=2,4", "training.recompute=full", "parallelism.schedule=interleaved",
                     "parallelism.chunks=2", "parallelism.zero=0", "placement.order=pp-tp-dp"});
  REQUIRE(!some.empty());
  for (const PlanCandidate& c : some) {
    CHECK((c.tp == 2 || c.tp == 4));
    CHECK(c.recompute == Recompute::full);
    CHECK(c.schedule == Schedule::interleaved);
    CHECK(c.chunks == 2);
    CHECK(c.zero == 0);
    CHECK(c.order == RankOrder::pp_tp_dp);
  }
  // A schedule without interleaving has one chunk: a search of other chunk counts leaves it out.
  for (const PlanCandidate& c : candidates(8, {"parallelism.chunks=2,3"}))
    CHECK(c.schedule == Schedule::interleaved);
}

TEST_CASE("a search refuses what it cannot search") {
  SearchSpace space;
  CHECK_THROWS_WITH(space.restrict("parallelism.bogus=1"), Catch::Contains("not a key the planner searches"));
  CHECK_THROWS_WITH(space.restrict("training.precision=fp16"), Catch::Contains("parallelism.dp"));
  CHECK_THROWS_WITH(space.restrict("parallelism.tp="), Catch::Contains("lists no value"));
  CHECK_THROWS_WITH(space.restrict("parallelism.tp"), Catch::Contains("expected KEY=V1,V2"));
  CHECK_THROWS_WITH(space.restrict("parallelism.tp=2,,4"), Catch::Contains("empty value"));
  CHECK_THROWS_WITH(space.restrict("parallelism.tp=0"), Catch::Contains("positive integer"));
  CHECK_THROWS_WITH(space.restrict("parallelism.zero=4"), Catch::Contains("0, 1, 2 or 3"));
  CHECK_THROWS_WITH(space.restrict("training.recompute=some"), Catch::Contains("none, selective, full"));
  space.restrict("parallelism.tp=2");
  CHECK_THROWS_WITH(space.restrict("parallelism.tp=4"), Catch::Contains("given twice"));
  CHECK_THROWS_AS(parse_gpus("0", 8), InputError);
  CHECK_THROWS_AS(parse_gpus("9", 8), InputError);
  CHECK_THROWS_AS(parse_gpus("4,", 8), InputError);
  CHECK(parse_gpus("8,2,8", 8) == std::vector<int64_t>{2, 8});
}

TEST_CASE("a candidate's overrides read back as the workload the planner estimates") {
  // The planner bounds apply_plan's workload and simulates plan_overrides' through --set: the same one.
  const char* listed = R"(
model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}
training: {global_batch: 64}
parallelism: {dp: 2, pp: 2, partition: "13,11"}
placement: {gpus: 4}
)";
  for (const char* text : {kWorkload, listed}) {
    const Workload w = parse_workload(text, "test.yaml");
    SearchSpace space;
    space.set_gpus({8});
    int checked = 0;
    for (const PlanCandidate& c : space.candidates(w)) {
      const Workload applied = apply_plan(c, w, Partition::balanced);
      Workload read;
      try {
        check_workload(applied);
      } catch (const InputError&) {
        continue; // refused by the same rules either way
      }
      Overrides overrides;
      for (const std::string& s : plan_overrides(c, w, Partition::balanced))
        overrides.push_back(parse_override(s));
      read = parse_workload(text, "test.yaml", overrides);
      std::string values;
      for (const std::string& v : plan_values(c))
        values += v + " ";
      INFO(values);
      CHECK(read.parallelism.dp == applied.parallelism.dp);
      CHECK(read.parallelism.tp == applied.parallelism.tp);
      CHECK(read.parallelism.pp == applied.parallelism.pp);
      CHECK(read.training.micro_batch == applied.training.micro_batch);
      CHECK(read.training.recompute == applied.training.recompute);
      CHECK(read.parallelism.schedule == applied.parallelism.schedule);
      CHECK(read.parallelism.chunks == applied.parallelism.chunks);
      CHECK(read.parallelism.zero == applied.parallelism.zero);
      CHECK(read.parallelism.sequence_parallel == applied.parallelism.sequence_parallel);
      CHECK(read.placement.order == applied.placement.order);
      CHECK(read.placement.gpus == applied.placement.gpus);
      CHECK(read.parallelism.partition == applied.parallelism.partition);
      if (++checked == 300)
        break;
    }
    CHECK(checked == 300);
  }
}

TEST_CASE("neighbours differ in one group of keys alone") {
  PlanCandidate a;
  a.dp = 2, a.tp = 2, a.pp = 2;
  PlanCandidate b = a;
  b.dp = 4, b.tp = 1;
  CHECK(neighbours_in(a, b, 0));
  CHECK(!neighbours_in(a, b, 1));
  CHECK(!neighbours_in(a, a, 0));
  b = a;
  b.schedule = Schedule::interleaved, b.chunks = 3;
  CHECK(neighbours_in(a, b, 3));
  b.zero = 1;
  CHECK(!neighbours_in(a, b, 3));
  CHECK(std::string(neighbour_group_name(0)) == "dp x tp x pp");
}

TEST_CASE("a search of more candidates than the planner's limit is refused as a limit, naming --search") {
  std::string micro_batches, chunks;
  for (int i = 1; i <= 2000; ++i) {
    micro_batches += (i > 1 ? "," : "") + std::to_string(i);
    chunks += (i > 1 ? "," : "") + std::to_string(i + 1);
  }
  try {
    candidates(8, {"training.micro_batch=" + micro_batches, "parallelism.chunks=" + chunks});
    FAIL("searched");
  } catch (const LimitError& e) {
    CHECK(e.where() == "--search");
    CHECK_THAT(e.message(), Catch::Contains("more than 2000000 candidate plans, simgpt's limit"));
  }
  // The default search of a 1,024-layer model on 1,024 GPUs interleaves up to layers / pp chunks.
  Workload deep = base();
  deep.model.layers = 1024;
  deep.training.global_batch = 1024;
  SearchSpace space;
  space.set_gpus({1024});
  CHECK_THROWS_AS(space.candidates(deep), LimitError);
  CHECK(candidates(8).size() < kMaxPlanCandidates);
}

TEST_CASE("context parallelism is searched where the model can split its sequences") {
  const auto degrees = [](const Overrides& o, int64_t gpus) {
    SearchSpace space;
    space.set_gpus({gpus});
    std::set<int64_t> cps;
    for (const PlanCandidate& c : space.candidates(parse_workload(kWorkload, "test.yaml", o)))
      cps.insert(c.cp);
    return cps;
  };
  // Standard attention: none (Megatron-LM runs context parallelism in fused attention only).
  CHECK(degrees({}, 16) == std::set<int64_t>{1});
  // FlashAttention at 2048 tokens: 2, 4 and 8 (seq_len a multiple of 2 cp) where they divide the GPUs.
  CHECK(degrees({{"model.attention", "flash"}}, 16) == std::set<int64_t>{1, 2, 4, 8});
  CHECK(degrees({{"model.attention", "flash"}}, 4) == std::set<int64_t>{1, 2, 4});
  // 24 tokens: 2 and 4 (24 is not a multiple of 2 x 8).
  CHECK(degrees({{"model.attention", "flash"}, {"model.seq_len", "24"}}, 16) == std::set<int64_t>{1, 2, 4});
}
