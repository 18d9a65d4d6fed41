// ZeRO-3 (FSDP) weight gathers: what they move, and how prefetching overlaps them with compute.
#include "execution/collective.hpp"
#include "execution/replay.hpp"
#include "execution/cluster_topology.hpp"
#include "execution/step_graph.hpp"
#include "system/cluster.hpp"
#include "support/isolate.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "model/model.hpp"
#include "report/report_json.hpp"
#include "simgpt/workload/workload.hpp"

#include "support/two_node_platform.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

using namespace simgpt;

namespace {

// GPT-3 XL's shape on the 8 V100s of a p3.16xlarge, all data-parallel, one micro-batch each.
Overrides data_parallel(int layers, int zero) {
  return {{"framework", "generic"}, {"model.layers", std::to_string(layers)}, {"parallelism.pp", "1"},
          {"parallelism.dp", "8"}, {"parallelism.schedule", "1f1b"}, {"training.global_batch", "8"},
          {"parallelism.zero", std::to_string(zero)}};
}

nlohmann::ordered_json simulate_gpt(const Overrides& o) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), o);
    return report_json(simulate(data.find("platforms/p3_16xlarge.xml"), w, data));
  });
}

ModelSpec gpt_model(int layers) {
  const DataPaths data = default_data_paths();
  return load_workload(data.find("workloads/gpt3xl.yaml"), data_parallel(layers, 3)).model;
}

double collective(const nlohmann::ordered_json& r, const char* kind, const char* what) {
  return r["collectives"][kind][what].get<double>();
}

} // namespace

TEST_CASE("ZeRO-3 gathers each layer's weights, (dp-1)/dp of them from every member, before each use") {
  auto four = simulate_gpt(data_parallel(4, 3));
  auto six = simulate_gpt(data_parallel(6, 3));
  // Two more layers: two more gathers in the forward and two in the backward, and two more
  // gradient reduce-scatters, each of one layer's fp32 weights (tp = 1).
  const double layer_bytes = layer_parameters(gpt_model(4), 1) * element_bytes(Precision::fp32);
  const double dp = 8;
  CHECK(collective(six, "allgather", "count") - collective(four, "allgather", "count") == 4);
  const double per_layer_and_member =
      (collective(six, "allgather", "bytes") - collective(four, "allgather", "bytes")) / 4 / dp;
  CHECK(per_layer_and_member == Approx(layer_bytes * (dp - 1) / dp).epsilon(1e-6));
  CHECK(collective(six, "reducescatter", "count") - collective(four, "reducescatter", "count") == 2);
}

TEST_CASE("ZeRO-3 gathers the sharded embedding and head too, forward and backward") {
  auto r = simulate_gpt(data_parallel(4, 3));
  const ModelSpec m = gpt_model(4);
  const double E = element_bytes(Precision::fp32), dp = 8;
  const double layer = layer_parameters(m, 1) * E;
  const double outer = (embedding_parameters(m, 1) + head_parameters(m, 1)) * E; // embedding and head
  // Per pass: the embedding, 4 layers and the head; each member sends (dp - 1)/dp of each.
  CHECK(collective(r, "allgather", "count") == 2 * (4 + 2));
  CHECK(collective(r, "allgather", "bytes") == Approx(2 * (4 * layer + outer) * (dp - 1)).epsilon(1e-6));
  // Their gradients are reduce-scattered once, as the last micro-batch's backward leaves each.
  CHECK(collective(r, "reducescatter", "count") == 4 + 2);
  CHECK(collective(r, "reducescatter", "bytes") == Approx((4 * layer + outer) * (dp - 1)).epsilon(1e-6));
}

TEST_CASE("ZeRO-3 prefetching shortens a GPT step whose gathers fit under its compute, for one more layer's weights") {
  Overrides blocking = data_parallel(4, 3);
  blocking.emplace_back("framework_options.zero3.prefetch_layers", "0");
  const auto r0 = simulate_gpt(blocking), r1 = simulate_gpt(data_parallel(4, 3));
  const double t0 = r0["step_time_s"].get<double>(), t1 = r1["step_time_s"].get<double>();
  INFO("GPT-3 XL shape, 4 layers, dp 8 on a p3.16xlarge: ZeRO-3 step " << t0 << " s blocking, " << t1
                                                                       << " s prefetching one layer");
  CHECK(t1 < t0);
  // The prefetched layer's gathered weights are live at the peak beside the current one's.
  auto transient = [](const nlohmann::ordered_json& r) {
    return r["stages"][0]["memory_gib"]["transient"].get<double>() * 1024 * 1024 * 1024;
  };
  const double layer_bytes = layer_parameters(gpt_model(4), 1) * element_bytes(Precision::fp32);
  CHECK(transient(r1) - transient(r0) == Approx(layer_bytes).epsilon(1e-6));
  // A depth is a whole number of layers.
  Overrides half = data_parallel(4, 3);
  half.emplace_back("framework_options.zero3.prefetch_layers", "1.5");
  CHECK_THROWS_AS(simulate_gpt(half), InputError);
}

TEST_CASE("a prefetch bucket counted in elements, as DeepSpeed's, reaches as many layers as it covers") {
  const double layer_elements = layer_parameters(gpt_model(4), 1); // about 50.3 M
  const double layer_bytes = layer_elements * element_bytes(Precision::fp32);
  auto transient_with = [](const std::string& key, const std::string& value) {
    Overrides o = data_parallel(4, 3);
    o.emplace_back("framework_options.zero3." + key, value);
    return simulate_gpt(o)["stages"][0]["memory_gib"]["transient"].get<double>() * 1024 * 1024 * 1024;
  };
  const double none = transient_with("prefetch_layers", "0");
  // One layer and a bit: a second layer's gather starts, so two layers are in flight.
  CHECK(transient_with("prefetch_bucket", std::to_string(layer_elements * 1.2)) - none ==
        Approx(2 * layer_bytes).epsilon(1e-6));
  CHECK(transient_with("prefetch_bucket", std::to_string(layer_elements * 0.5)) - none ==
        Approx(layer_bytes).epsilon(1e-6));
  // No more layers than the model has.
  CHECK(transient_with("prefetch_bucket", "1e12") - none == Approx(4 * layer_bytes).epsilon(1e-6));
}

namespace {

using testing::two_node_platform;


// Two replicas of `layers` layers (forward f, backward 2f per layer), one micro-batch, no
// embedding, head or optimizer time: compute alone takes layers x 3f.
ExecutionPlan two_replicas(int layers, double f, double layer_bytes, int zero, int prefetch) {
  ExecutionPlan p;
  p.dp = 2;
  p.zero = zero;
  p.zero3_prefetch_layers = prefetch;
  p.layer = {f / 2, f / 2, f, f, 0, layer_bytes, layer_bytes};
  StageCost c;
  c.layers = layers;
  p.stages.push_back(c);
  return p;
}

// Replays the plan's step (or, for `lone`, just one collective of the layer's bytes over both
// GPUs) on the two-node platform; returns its makespan.
double replay_time(const ExecutionPlan& plan, const CollectiveKind* lone = nullptr) {
  const std::string platform = two_node_platform();
  return run_isolated([&] {
           GpuCatalog catalog = GpuCatalog::load(default_data_paths().catalog());
           Cluster cluster(Platform::load(platform), catalog, {}, Profile{});
           if (lone) {
             TaskGraph g;
             add_collective(g, *lone, CollectiveAlgorithm::ring, cluster.rings({0, 1}), plan.layer.param_bytes,
                            cluster.route_latency(0, 1));
             return nlohmann::ordered_json(replay(g, cluster).makespan());
           }
           const StepGraph step = build_step_graph(plan, Profile{}, ClusterTopology(cluster));
           return nlohmann::ordered_json(replay(step.graph, cluster, step.isolated).makespan());
         })
      .get<double>();
}

} // namespace

TEST_CASE("ZeRO-3 prefetching hides every gather but each pass's first behind the layers' compute") {
  const int L = 4;
  const double f = 0.010, bytes = 4e6; // a gather of 4 MB over 10 Gbps: about 1.7 ms, under f
  const ExecutionPlan plain = two_replicas(L, f, bytes, 0, 1);
  const CollectiveKind gather_kind = CollectiveKind::allgather, scatter_kind = CollectiveKind::reduce_scatter;
  const double gather = replay_time(plain, &gather_kind), scatter = replay_time(plain, &scatter_kind);
  REQUIRE(gather + scatter < f);
  const double compute = L * 3 * f;
  ExecutionPlan alone = plain; // no ZeRO, one replica: the compute alone
  alone.dp = 1;
  REQUIRE(replay_time(alone) == Approx(compute).margin(1e-9));
  const double prefetched = replay_time(two_replicas(L, f, bytes, 3, 1));
  const double blocking = replay_time(two_replicas(L, f, bytes, 3, 0));
  // Prefetching one layer ahead: the forward's and the backward's first gathers and the last
  // layer's gradient reduce-scatter (the optimizer waits for it) are exposed; every other gather
  // runs on the NCCL stream while the previous layer computes, after the reduce-scatter issued
  // before it. Nothing else shares the links, so the only slack is SimGrid's timing precision
  // (its default 1e-5 relative on rates): 1e-6 s over a 0.13 s step.
  CHECK(prefetched == Approx(compute + 2 * gather + scatter).margin(1e-6));
  // Blocking: every gather is exposed, and in the backward each waits behind the reduce-scatter
  // of the layer before it on the same stream.
  CHECK(blocking == Approx(compute + 2 * L * gather + L * scatter).margin(1e-6));
  CHECK(prefetched < blocking);
}

TEST_CASE("a profile that reduces every micro-batch under ZeRO-3 reduce-scatters each unit once a backward") {
  // Megatron-FSDP's optim_grads_params (profiles/megatron.yaml: zero3.reduce_every_micro_batch):
  // four micro-batches, four reduce-scatters a unit; the generic profile reduces the last one's only.
  Overrides o = data_parallel(4, 3);
  o.push_back({"training.global_batch", "32"});
  const auto generic = simulate_gpt(o);
  o.push_back({"framework", "megatron"});
  const auto megatron = simulate_gpt(o);
  const double units = collective(generic, "reducescatter", "count");
  CHECK(units == 6); // 4 layers, the embedding and the head
  CHECK(collective(megatron, "reducescatter", "count") == 4 * units);
  CHECK(collective(megatron, "reducescatter", "bytes") == Approx(4 * collective(generic, "reducescatter", "bytes")));
}
