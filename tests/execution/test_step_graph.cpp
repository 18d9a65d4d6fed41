#include "execution/step_graph.hpp"
#include "simgpt/framework/profile.hpp"
#include "support/flat_topology.hpp"

#include <optional>
#include <catch2/catch.hpp>

using namespace simgpt;
using testing::FlatTopology;
using testing::small_plan;

namespace {

int count(const StepGraph& g, const std::string& kind) {
  auto it = g.collectives.find(kind);
  return it == g.collectives.end() ? 0 : it->second.count;
}

} // namespace

TEST_CASE("collectives per step for dp=2 tp=2 pp=2 match a hand count") {
  // Per micro-batch and layer: two tensor-parallel all-reduces forward, two backward, per replica
  // and stage: 2 replicas x 2 stages x 3 micro-batches x 2 layers x 4 = 96. The vocabulary-parallel
  // embedding all-reduces its output once per forward: 2 replicas x 3 micro-batches = 6.
  // Gradients: one all-reduce per stage and tensor rank: 2 x 2 = 4.
  ExecutionPlan p = small_plan(2, 2, 2, 3, 2);
  StepGraph g = build_step_graph(p, Profile{}, FlatTopology());
  CHECK(count(g, "allreduce") == 96 + 6 + 4);
  // Full recompute reruns the forward's two all-reduces per layer.
  p.recompute = Recompute::full;
  CHECK(count(build_step_graph(p, Profile{}, FlatTopology()), "allreduce") == 96 + 48 + 6 + 4);
  // Pipeline transfers: each tensor rank sends its slice, forward and backward, per micro-batch.
  CHECK(g.p2p_transfers == 2 /*replicas*/ * 2 /*tp*/ * 3 /*mb*/ * 2 /*directions*/);
  CHECK(g.p2p_bytes == Approx(24 * 1e6 / 2));
}

TEST_CASE("sequence parallelism swaps each all-reduce for an all-gather and a reduce-scatter") {
  ExecutionPlan p = small_plan(1, 4, 1, 2, 3);
  p.sequence_parallel = true;
  StepGraph g = build_step_graph(p, Profile{}, FlatTopology());
  CHECK(count(g, "allreduce") == 0);
  // Per micro-batch and layer 4 of each (2 blocks, forward and backward); the embedding only
  // reduce-scatters its output.
  CHECK(count(g, "allgather") == 2 * 3 * 4);
  CHECK(count(g, "reducescatter") == 2 * 3 * 4 + 2);
}

TEST_CASE("latent attention all-gathers its latents, not the hidden states, under sequence parallelism") {
  ExecutionPlan p = small_plan(1, 4, 1, 2, 3);
  p.sequence_parallel = true;
  const double before = build_step_graph(p, Profile{}, FlatTopology()).collectives.at("allgather").bytes;
  p.layer.attention_gather_bytes = 0.25e6; // a quarter of the 1 MB activation
  const StepGraph g = build_step_graph(p, Profile{}, FlatTopology());
  CHECK(count(g, "allgather") == 2 * 3 * 4);
  // The attention blocks' gathers (forward and backward, 2 x 3 of them) move a quarter as much.
  const double per_gather = 3.0 / 4 * 1e6 * 4; // bytes_sent_per_member x members for 1 MB
  CHECK(g.collectives.at("allgather").bytes == Approx(before - 2 * 3 * 2 * 0.75 * per_gather));
}

TEST_CASE("sharded optimizers reduce-scatter gradients and all-gather weights") {
  ExecutionPlan p = small_plan(4, 1, 1, 2, 2);
  p.zero = 1;
  StepGraph g = build_step_graph(p, Profile{}, FlatTopology());
  CHECK(count(g, "reducescatter") == 1);
  CHECK(count(g, "allgather") == 1);
  CHECK(count(g, "allreduce") == 0);
  // Overlapped buckets of one layer's gradients each.
  p.zero = 0;
  Profile overlapped;
  overlapped.dp_overlap = true;
  overlapped.dp_bucket_bytes = 1e6;
  CHECK(count(build_step_graph(p, overlapped, FlatTopology()), "allreduce") == 2);
}

TEST_CASE("a central parameter server reduces each stage's gradients to the first replica and broadcasts them back") {
  // dp 4, pp 2, tp 1: one data-parallel group per stage, each a reduce then a broadcast of the
  // stage's gradients, and no all-reduce of gradients (tp 1: none inside the layers either).
  ExecutionPlan p = small_plan(4, 1, 2, 3, 2);
  p.dp_algorithm = DpAlgorithm::central_ps;
  const StepGraph g = build_step_graph(p, Profile{}, FlatTopology());
  CHECK(count(g, "reduce") == 2);
  CHECK(count(g, "broadcast") == 2);
  CHECK(count(g, "allreduce") == 0);
  // A chain moves the whole buffer over each of its 3 hops: as many bytes each way.
  CHECK(g.collectives.at("reduce").bytes == Approx(g.collectives.at("broadcast").bytes));
  p.dp_algorithm = DpAlgorithm::allreduce;
  CHECK(count(build_step_graph(p, Profile{}, FlatTopology()), "allreduce") == 2);
}

TEST_CASE("expert parallelism exchanges tokens by all-to-all and reduces expert gradients over dp / ep") {
  // dp 4, ep 2: two expert-parallel groups of two replicas, and expert-data-parallel groups of two.
  ExecutionPlan p = small_plan(4, 1, 1, 3, 2);
  p.ep = 2;
  p.layer.moe = true;
  p.layer.moe_forward[0] = p.layer.moe_forward[1] = p.layer.moe_forward[2] = 1e-3 / 3;
  p.layer.moe_backward[0] = p.layer.moe_backward[1] = p.layer.moe_backward[2] = 2e-3 / 3;
  p.layer.all_to_all_bytes = 4e6;
  p.layer.expert_grad_bytes = 0.75e6;
  StepGraph g = build_step_graph(p, Profile{}, FlatTopology());
  // Per layer and micro-batch: dispatch and combine, forward and backward, in each of 2 groups.
  CHECK(count(g, "alltoall") == 2 * 3 * 2 * 4);
  CHECK(g.collectives.at("alltoall").bytes == Approx(48 * 0.5 * 4e6 * 2));
  // One all-reduce of the dense gradients over the 4 replicas, one of the experts' per group of 2.
  CHECK(count(g, "allreduce") == 1 + 2);
  const double dense = 2 * (1e6 - 0.75e6), experts = 2 * 0.75e6;
  CHECK(g.collectives.at("allreduce").bytes == Approx(2.0 * 3 / 4 * dense * 4 + 2 * (2.0 / 2 * experts * 2)));
  // Full recompute reruns the forward's exchanges.
  p.recompute = Recompute::full;
  CHECK(count(build_step_graph(p, Profile{}, FlatTopology()), "alltoall") == 2 * 3 * 2 * 6);
  // ep = dp: each expert on one replica only, nothing to reduce but the dense gradients.
  p.ep = 4;
  p.recompute = Recompute::none;
  StepGraph whole = build_step_graph(p, Profile{}, FlatTopology());
  CHECK(count(whole, "alltoall") == 2 * 3 * 4);
  CHECK(count(whole, "allreduce") == 1);
  // ep 1: the experts' work stays on each GPU, no exchange.
  p.ep = 1;
  CHECK(count(build_step_graph(p, Profile{}, FlatTopology()), "alltoall") == 0);
}

TEST_CASE("rank orders place tensor groups, replicas and stages on GPUs as declared") {
  ExecutionPlan p = small_plan(2, 2, 2, 1, 1);
  // Megatron: tp fastest, then dp, then pp.
  CHECK(p.gpu(0, 0, 1) == 1);
  CHECK(p.gpu(0, 1, 0) == 2);
  CHECK(p.gpu(1, 0, 0) == 4);
  p.order = RankOrder::tp_pp_dp;
  CHECK(p.gpu(1, 0, 0) == 2);
  CHECK(p.gpu(0, 1, 0) == 4);
  p.order = RankOrder::pp_tp_dp;
  CHECK(p.gpu(1, 0, 0) == 1);
  CHECK(p.gpu(0, 0, 1) == 2);
  // Every order is a permutation of the GPUs.
  for (RankOrder o : {RankOrder::tp_dp_pp, RankOrder::tp_pp_dp, RankOrder::dp_tp_pp, RankOrder::pp_tp_dp}) {
    p.order = o;
    std::vector<int> seen(8, 0);
    for (int s = 0; s < 2; ++s)
      for (int d = 0; d < 2; ++d)
        for (int t = 0; t < 2; ++t)
          seen[static_cast<size_t>(p.gpu(s, d, t))] += 1;
    CHECK(seen == std::vector<int>(8, 1));
  }
}

TEST_CASE("ZeRO-3 gathers each layer's weights before every use and reduce-scatters its gradients") {
  ExecutionPlan p = small_plan(2, 1, 1, 3, 2);
  p.zero = 3;
  StepGraph g = build_step_graph(p, Profile{}, FlatTopology());
  // 2 layers x 3 micro-batches x (forward + backward) gathers on the one data-parallel group.
  CHECK(count(g, "allgather") == 12);
  CHECK(count(g, "reducescatter") == 2);
  CHECK(count(g, "allreduce") == 0);
}

TEST_CASE("a step graph past its task limit is refused while it is built") {
  const ExecutionPlan p = small_plan(2, 2, 2, 8, 2);
  const size_t tasks = boost::num_vertices(build_step_graph(p, Profile{}, FlatTopology()).graph);
  CHECK_THROWS_AS(build_step_graph(p, Profile{}, FlatTopology(), {.max_tasks = tasks / 2}), StepGraphTooLarge);
  CHECK_NOTHROW(build_step_graph(p, Profile{}, FlatTopology(), {.max_tasks = tasks + 10}));
}

TEST_CASE("a step graph projected far past its task limit is refused after an eighth of its passes") {
  const ExecutionPlan p = small_plan(2, 2, 4, 64, 2); // 4 stages x 64 micro-batches x 2 passes
  const size_t tasks = boost::num_vertices(build_step_graph(p, Profile{}, FlatTopology()).graph);
  const auto refusal = [&](size_t max_tasks) {
    try {
      build_step_graph(p, Profile{}, FlatTopology(), {.max_tasks = max_tasks});
    } catch (const StepGraphTooLarge& e) {
      return std::optional<StepGraphTooLarge>(e);
    }
    return std::optional<StepGraphTooLarge>();
  };
  // Four times too large: refused once an eighth of the passes (64 of 512) are built, before the
  // graph reaches the limit, with the step's size to a few percent.
  const auto early = refusal(tasks / 4);
  REQUIRE(early);
  CHECK(early->projected);
  CHECK(early->replicas_simulated == 2);
  CHECK(static_cast<double>(early->tasks) == Approx(static_cast<double>(tasks)).epsilon(0.05));
  // Just past the limit: built on until the limit itself, its size projected from what was built.
  const auto late = refusal(tasks - tasks / 10);
  REQUIRE(late);
  CHECK(late->projected);
  CHECK(late->tasks >= tasks - tasks / 10);
  // (each stage's gradient synchronisation and update, made after its passes, are not projected)
  CHECK(static_cast<double>(late->tasks) == Approx(static_cast<double>(tasks)).epsilon(0.1));
  CHECK_FALSE(refusal(tasks + 10));
}
