// Collectives whose links nothing else uses are replayed whole, their group's GPUs on one stream
// (StepGraphOptions::isolate_collectives): the same report as replaying every flow, with fewer tasks.
// Symmetric graphs (StepGraphOptions::symmetric) against full ones.
#include "execution/step_graph.hpp"
#include "report/report_json.hpp"
#include "simgpt/framework/profile.hpp"
#include "support/isolate.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/system/platform_generator.hpp"
#include "simgpt/workload/workload.hpp"
#include "support/flat_topology.hpp"
#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

// DGX A100-like nodes from the preset (NVSwitch ports inside a node, a PCIe link and a NIC per
// GPU between nodes), with `options` (simgpt platform's).
std::string dgx(const std::string& stem, const std::vector<std::pair<std::string, std::string>>& options) {
  const DataPaths data = default_data_paths();
  const std::string path = testing::scratch_path(stem, ".xml");
  write_platform(platform_spec(data.presets(), "dgx-a100", options), load_catalog(data), path);
  return path;
}

std::string dgx_pair() {
  static const std::string path = dgx("dgx_pair", {{"nodes", "2"}});
  return path;
}

// Eight nodes as sold: a NIC per GPU.
std::string dgx_eight() {
  static const std::string path = dgx("dgx_eight_rails", {{"nodes", "8"}});
  return path;
}

// Eight nodes, each with one NIC for its eight GPUs: replicas and tensor ranks then share their
// node's NIC for pipeline transfers and gradient synchronisation.
std::string dgx_eight_one_nic() {
  static const std::string path = dgx("dgx_eight_one_nic", {{"nodes", "8"}, {"nics-per-node", "1"}});
  return path;
}

nlohmann::ordered_json simulate_with(const std::string& platform, const Overrides& o, bool isolate,
                                     SimulationOptions::Fidelity fidelity = SimulationOptions::Fidelity::full) {
  const DataPaths data = default_data_paths();
  return run_isolated([&] {
    Workload w = load_workload(data.find("workloads/gpt3_175b.yaml"), o);
    SimulationOptions options;
    options.isolate_collectives = isolate;
    options.fidelity = fidelity;
    return report_json(simulate(platform, w, data, options));
  });
}

void check_same(const nlohmann::ordered_json& whole, const nlohmann::ordered_json& flows) {
  REQUIRE(whole.contains("step_time_s"));
  CHECK(whole["step_time_s"].get<double>() == Approx(flows["step_time_s"].get<double>()).epsilon(1e-9));
  // Stage breakdown and memory, to the printed digits.
  CHECK(whole["stages"] == flows["stages"]);
  for (const char* key : {"compute_s", "bubble_s", "exposed_comm_s"})
    CHECK(whole["critical_path"][key].get<double>() ==
          Approx(flows["critical_path"][key].get<double>()).epsilon(1e-9).margin(1e-12));
  CHECK(whole["collectives"] == flows["collectives"]);
  CHECK(whole["p2p_transfers"] == flows["p2p_transfers"]);
  CHECK(whole["p2p_bytes"] == flows["p2p_bytes"]);
}

void check_same_report(const std::string& platform, const Overrides& o) {
  check_same(simulate_with(platform, o, true), simulate_with(platform, o, false));
}

// Symmetric against full; returns the symmetric run's fidelity.
nlohmann::ordered_json check_symmetric(const std::string& platform, const Overrides& o) {
  const auto symmetric = simulate_with(platform, o, true, SimulationOptions::Fidelity::symmetric);
  const auto full = simulate_with(platform, o, true, SimulationOptions::Fidelity::full);
  CHECK(full["fidelity"]["mode"] == "full");
  CHECK(full["fidelity"]["replicas_simulated"] == full["dp"]);
  check_same(symmetric, full);
  return symmetric["fidelity"];
}

Overrides small(std::vector<std::pair<std::string, std::string>> extra) {
  Overrides o = {{"model.layers", "8"}, {"training.global_batch", "16"}};
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

} // namespace

TEST_CASE("tensor-parallel groups inside NVSwitch nodes give the same report whole as flow by flow") {
  SECTION("tp 8, pp 2, 1F1B") {
    check_same_report(dgx_pair(), small({{"parallelism.tp", "8"}, {"parallelism.pp", "2"}, {"parallelism.dp", "1"}}));
  }
  SECTION("tp 4, pp 2, dp 2, sequence parallel, selective recompute, ZeRO-1") {
    check_same_report(dgx_pair(), small({{"parallelism.tp", "4"}, {"parallelism.pp", "2"}, {"parallelism.dp", "2"},
                                         {"parallelism.sequence_parallel", "true"}, {"parallelism.zero", "1"},
                                         {"training.recompute", "selective"}}));
  }
  SECTION("tp 4, pp 2, dp 2, ZeRO-3") {
    check_same_report(dgx_pair(), small({{"parallelism.tp", "4"}, {"parallelism.pp", "2"}, {"parallelism.dp", "2"},
                                         {"parallelism.zero", "3"}, {"framework", "generic"}}));
  }
  SECTION("dp 16, ZeRO-3: the data-parallel group's gathers and reduce-scatters whole on its own links") {
    check_same_report(dgx_pair(), small({{"parallelism.tp", "1"}, {"parallelism.pp", "1"}, {"parallelism.dp", "16"},
                                         {"parallelism.zero", "3"}, {"framework", "fsdp"}}));
  }
  SECTION("dp 4, ZeRO-1, overlapped gradient buckets and the gather of the updated weights") {
    check_same_report(dgx_pair(), small({{"parallelism.tp", "4"}, {"parallelism.pp", "1"}, {"parallelism.dp", "4"},
                                         {"parallelism.zero", "1"}, {"parallelism.sequence_parallel", "true"},
                                         {"framework_options.collectives.dp_overlap", "true"}}));
  }
  SECTION("tp 4, pp 4, interleaved with 2 chunks") {
    check_same_report(dgx_pair(), small({{"parallelism.tp", "4"}, {"parallelism.pp", "4"}, {"parallelism.dp", "1"},
                                         {"parallelism.schedule", "interleaved"}, {"parallelism.chunks", "2"}}));
  }
}

TEST_CASE("symmetric graphs give the full graph's report on 64 GPUs, with NICs per GPU or shared") {
  SECTION("tp 8, pp 4, dp 2 on rails: one replica, the first rank's transfers") {
    const auto f = check_symmetric(dgx_eight(), small({{"parallelism.tp", "8"}, {"parallelism.pp", "4"},
                                                       {"parallelism.dp", "2"}, {"model.layers", "16"}}));
    CHECK(f["replicas_simulated"] == 1);
    CHECK(f["tensor_ranks_simulated"] == 1);
  }
  SECTION("tp 8, pp 2, dp 4, ZeRO-3 on rails") {
    const auto f = check_symmetric(dgx_eight(), small({{"parallelism.tp", "8"}, {"parallelism.pp", "2"},
                                                       {"parallelism.dp", "4"}, {"parallelism.zero", "3"},
                                                       {"training.global_batch", "32"}, {"framework", "generic"}}));
    CHECK(f["replicas_simulated"] == 1);
  }
  SECTION("tp 8, pp 4, dp 2 with one NIC a node: ranks share it, so every rank's transfers run") {
    const auto f = check_symmetric(dgx_eight_one_nic(), small({{"parallelism.tp", "8"}, {"parallelism.pp", "4"},
                                                               {"parallelism.dp", "2"}, {"model.layers", "16"}}));
    CHECK(f["replicas_simulated"] == 1);
    CHECK(f["tensor_ranks_simulated"] == 8);
  }
  SECTION("tp 4, pp 2, dp 8 with one NIC a node: two replicas a node share it, so all are simulated") {
    const auto f = check_symmetric(dgx_eight_one_nic(), small({{"parallelism.tp", "4"}, {"parallelism.pp", "2"},
                                                               {"parallelism.dp", "8"},
                                                               {"training.global_batch", "64"}}));
    CHECK(f["replicas_simulated"] == 8);
  }
}

TEST_CASE("an expert-parallel group of alike replicas runs as one, its all-to-alls replayed whole") {
  const auto moe = [](std::vector<std::pair<std::string, std::string>> extra) {
    Overrides o = small({{"model.experts", "8"}, {"model.top_k", "2"}, {"parallelism.tp", "2"},
                         {"parallelism.pp", "2"}, {"parallelism.dp", "16"}, {"training.global_batch", "32"},
                         {"parallelism.sequence_parallel", "true"}});
    o.insert(o.end(), extra.begin(), extra.end());
    return o;
  };
  SECTION("ep 8 on rails: the replicas' transfers on NICs of their own, one group for all") {
    const Overrides o = moe({{"parallelism.ep", "8"}});
    const auto symmetric = simulate_with(dgx_eight(), o, true, SimulationOptions::Fidelity::symmetric);
    const auto full = simulate_with(dgx_eight(), o, true, SimulationOptions::Fidelity::full);
    CHECK(symmetric["fidelity"]["replicas_simulated"] == 1);
    CHECK(symmetric["fidelity"]["expert_group_folded"] == 8);
    CHECK(full["fidelity"]["expert_group_folded"] == 0);
    // Every collective and transfer counted as the full graph counts it; the step as long, up to
    // the pipeline transfers that the folded all-to-alls no longer slow.
    CHECK(symmetric["collectives"] == full["collectives"]);
    CHECK(symmetric["p2p_bytes"] == full["p2p_bytes"]);
    CHECK(symmetric["step_time_s"].get<double>() == Approx(full["step_time_s"].get<double>()).epsilon(0.01));
    CHECK(symmetric["stages"][0]["compute_s"] == full["stages"][0]["compute_s"]);
  }
  SECTION("ep 8 with the weights' all-gathers in the first forward: no all-to-all beside them is the measure") {
    // overlap_param_gather's gathers meet the first forward's all-to-alls on the NVLink ports: those
    // run their own flows, and the folded ones take the time of one that met no gather.
    const Overrides o = moe({{"parallelism.ep", "8"}, {"parallelism.zero", "1"},
                             {"parallelism.overlap_param_gather", "true"}, {"training.global_batch", "64"}});
    const auto symmetric = simulate_with(dgx_eight(), o, true, SimulationOptions::Fidelity::symmetric);
    const auto full = simulate_with(dgx_eight(), o, true, SimulationOptions::Fidelity::full);
    CHECK(symmetric["fidelity"]["expert_group_folded"] == 8);
    CHECK(symmetric["collectives"] == full["collectives"]);
    CHECK(symmetric["step_time_s"].get<double>() == Approx(full["step_time_s"].get<double>()).epsilon(0.01));
  }
  SECTION("experts whole beside tp 2 (etp 1): each group the tensor ranks of ep / tp replicas, folded alike") {
    // Megatron's expert grid with etp 1: ep 8 consecutive ranks, the two tensor ranks of 4
    // replicas, all on one node; no tensor-parallel gather or reduce-scatter around the experts.
    const Overrides o = moe({{"parallelism.ep", "8"}, {"parallelism.etp", "1"}});
    const auto symmetric = simulate_with(dgx_eight(), o, true, SimulationOptions::Fidelity::symmetric);
    const auto full = simulate_with(dgx_eight(), o, true, SimulationOptions::Fidelity::full);
    CHECK(symmetric["fidelity"]["expert_group_folded"] == 4);
    CHECK(symmetric["collectives"] == full["collectives"]);
    CHECK(symmetric["step_time_s"].get<double>() == Approx(full["step_time_s"].get<double>()).epsilon(0.01));
    const auto split = simulate_with(dgx_eight(), moe({{"parallelism.ep", "8"}}), true,
                                     SimulationOptions::Fidelity::full);
    const auto count = [](const nlohmann::ordered_json& r, const char* kind) {
      return r["collectives"].contains(kind) ? r["collectives"][kind]["count"].get<double>() : 0.0;
    };
    // A MoE layer's experts drop their gather and reduce-scatter (the attention blocks and the
    // dense layers keep theirs); as many all-to-alls, each over 8 GPUs of one node.
    CHECK(count(full, "allgather") < count(split, "allgather"));
    CHECK(count(full, "alltoall") == count(split, "alltoall"));
    // Inside a node the all-to-alls run on NVLink, not the two nodes' NICs; each GPU holds its
    // experts whole, twice the expert gradients to reduce over twice the replicas.
    CHECK(full["communication"]["ep"]["in_flight_s"].get<double>() <
          0.5 * split["communication"]["ep"]["in_flight_s"].get<double>());
    CHECK(full["communication"]["dp"]["bytes"].get<double>() > split["communication"]["dp"]["bytes"].get<double>());
  }
  SECTION("one NIC a node: the replicas' transfers share it, so every replica runs its own stream") {
    const auto f = simulate_with(dgx_eight_one_nic(), moe({{"parallelism.ep", "8"}}), true,
                                 SimulationOptions::Fidelity::symmetric)["fidelity"];
    CHECK(f["expert_group_folded"] == 0);
    CHECK(f["replicas_simulated"] != 1);
  }
}

namespace {

// Eight GPUs per node. Inside a node a flow leaves by its GPU's switch port and enters by the
// other's; between nodes it goes through both GPUs' NICs or, with `through_ports`, through
// their switch ports as well (so pipeline transfers meet the tensor-parallel rings).
class SwitchedNodes : public testing::FlatTopology {
public:
  explicit SwitchedNodes(bool through_ports) : through_ports_(through_ports) {}
  std::optional<std::vector<const void*>> shared_links(int a, int b) const override {
    std::vector<const void*> links;
    if (a / 8 == b / 8 || through_ports_) {
      links.push_back(&port_up_[static_cast<size_t>(a)]);
      links.push_back(&port_down_[static_cast<size_t>(b)]);
    }
    if (a / 8 != b / 8) {
      links.push_back(&nic_up_[static_cast<size_t>(a)]);
      links.push_back(&nic_down_[static_cast<size_t>(b)]);
    }
    return links;
  }

private:
  bool through_ports_;
  char port_up_[64] = {}, port_down_[64] = {}, nic_up_[64] = {}, nic_down_[64] = {};
};

ExecutionPlan plan_of(int dp, int tp, int pp) { return testing::small_plan(dp, tp, pp, 4, 2); }

size_t count(const StepGraph& g, Task::Kind kind) {
  size_t n = 0;
  for (TaskId v = 0; v < boost::num_vertices(g.graph); ++v)
    n += g.graph[v].kind == kind ? 1 : 0;
  return n;
}

} // namespace

TEST_CASE("a tensor-parallel group is isolated only when no other communication uses its links") {
  const ExecutionPlan p = plan_of(2, 8, 2); // 32 GPUs: one tp group per node
  const StepGraph alone = build_step_graph(p, Profile{}, SwitchedNodes(false));
  const StepGraph flows = build_step_graph(p, Profile{}, SwitchedNodes(false), {.isolate_collectives = false});
  CHECK(alone.isolated.size() == 4);
  CHECK(count(alone, Task::Kind::isolated_collective) > 0);
  // Only the data-parallel and pipeline flows are left as transfers.
  CHECK(count(alone, Task::Kind::transfer) < count(flows, Task::Kind::transfer) / 10);
  CHECK(boost::num_vertices(alone.graph) < boost::num_vertices(flows.graph) / 5);
  // The same collectives, counted alike.
  CHECK(alone.collectives.at("allreduce").count == flows.collectives.at("allreduce").count);
  CHECK(alone.p2p_transfers == flows.p2p_transfers);

  // Pipeline and gradient flows through the switch ports share the rings' links: nothing isolated.
  const StepGraph shared = build_step_graph(p, Profile{}, SwitchedNodes(true));
  CHECK(shared.isolated.empty());
  CHECK(count(shared, Task::Kind::isolated_collective) == 0);
  CHECK(boost::num_vertices(shared.graph) == boost::num_vertices(flows.graph));
}

TEST_CASE("a data-parallel group whose links nothing else uses runs each collective as one task") {
  size_t whole = 0;
  const auto dp_whole = [&](const StepGraph& g) {
    size_t n = 0;
    for (TaskId v = 0; v < boost::num_vertices(g.graph); ++v)
      n += g.graph[v].kind == Task::Kind::isolated_collective && g.graph[v].dimension == CommDimension::dp ? 1 : 0;
    return n;
  };
  const StepGraph alone = build_step_graph(plan_of(8, 1, 1), Profile{}, SwitchedNodes(false));
  const StepGraph flows = build_step_graph(plan_of(8, 1, 1), Profile{}, SwitchedNodes(false), {.isolate_collectives = false});
  whole = dp_whole(alone);
  CHECK(whole > 0);
  CHECK(alone.isolated.size() == 1);
  CHECK(count(alone, Task::Kind::transfer) == 0);
  CHECK(count(flows, Task::Kind::transfer) > 0);
  CHECK(alone.collectives.at("allreduce").count == flows.collectives.at("allreduce").count);
  // Tensor-parallel rings on the same switch ports: the gradients' flows run as flows.
  CHECK(dp_whole(build_step_graph(plan_of(4, 2, 1), Profile{}, SwitchedNodes(false))) == 0);
  // Pipeline transfers through the NICs the replicas' rings use: likewise.
  CHECK(dp_whole(build_step_graph(plan_of(16, 1, 2), Profile{}, SwitchedNodes(false))) == 0);
}

TEST_CASE("a topology that cannot name its links isolates nothing") {
  CHECK(build_step_graph(plan_of(1, 4, 2), Profile{}, testing::FlatTopology()).isolated.empty());
}

TEST_CASE("an isolated group's collectives after the first of each kind and size fold into its compute tasks") {
  const ExecutionPlan p = plan_of(2, 8, 2); // 4 isolated groups, all-reduces of one size
  const StepGraph g = build_step_graph(p, Profile{}, SwitchedNodes(false));
  const std::vector<FoldedCollective>& folded = folded_collectives(g.graph);
  // Each group runs the flows of its first all-reduce only.
  REQUIRE(g.isolated.size() == 4);
  CHECK(count(g, Task::Kind::isolated_collective) == 4);
  REQUIRE(!folded.empty());
  for (size_t i = 0; i < folded.size(); ++i) {
    const FoldedCollective& f = folded[i];
    const Task& task = g.graph[f.task];
    const Task& measured = g.graph[f.measured];
    CHECK(task.kind == Task::Kind::compute);
    CHECK(measured.kind == Task::Kind::isolated_collective);
    CHECK(measured.gpu == task.gpu);      // on the same stream,
    CHECK(f.measured < f.task);           // before it
    CHECK(f.exit_latency_s == measured.seconds);
    // A task's folded collectives follow one another, from the one its entry names.
    if (i == 0 || folded[i - 1].task != f.task)
      CHECK(task.entry == static_cast<long>(i));
  }
  // A compute task's kernels are those between its collectives and after the last.
  for (TaskId v = 0; v < boost::num_vertices(g.graph); ++v) {
    const Task& task = g.graph[v];
    if (task.kind != Task::Kind::compute || task.entry < 0)
      continue;
    double kernels = 0;
    size_t i = static_cast<size_t>(task.entry);
    for (; i < folded.size() && folded[i].task == v; ++i)
      kernels += folded[i].kernels_before_s;
    kernels += folded[i - 1].kernels_after_s;
    CHECK(kernels == Approx(task.seconds).epsilon(1e-12));
  }
  // Replayed flow by flow, nothing is folded.
  const StepGraph flows = build_step_graph(p, Profile{}, SwitchedNodes(false), {.isolate_collectives = false});
  CHECK(folded_collectives(flows.graph).empty());
}

TEST_CASE("a compute task's parts are its kernels and folded collectives, end to end") {
  TaskGraph g;
  Task compute;
  compute.seconds = 3;
  Task collective;
  collective.kind = Task::Kind::isolated_collective;
  collective.collective = CollectiveKind::allreduce;
  collective.seconds = 0.25;
  const TaskId measured = boost::add_vertex(collective, g);
  compute.entry = 0;
  const TaskId v = boost::add_vertex(compute, g);
  // 1 s of kernels, a collective, none, another, 2 s of kernels.
  g[boost::graph_bundle].folded = {{.task = v, .measured = measured, .kernels_before_s = 1, .exit_latency_s = 0.25},
                                   {.task = v, .measured = measured, .kernels_after_s = 2, .exit_latency_s = 0.25}};
  Timeline t;
  t.folded = {0.5, 0.5}; // flows
  t.start = {0, 10};
  t.finish = {0.75, task_end(g, v, 10, t.folded)};
  CHECK(t.finish[v] == 14.5);
  const std::vector<TaskPart> parts = task_parts(g, t, v);
  REQUIRE(parts.size() == 4);
  CHECK(parts[0].start == 10);
  CHECK(parts[0].finish == 11);
  CHECK(parts[0].folded == -1);
  CHECK(parts[1].finish == 11.75);
  CHECK(parts[1].folded == 0);
  CHECK(parts[2].finish == 12.5);
  CHECK(parts[2].folded == 1);
  CHECK(parts[3].finish == 14.5);
  CHECK(parts[3].folded == -1);
  double collectives = 0; // the folded collectives' time: flows and exit latencies
  for (const TaskPart& part : parts)
    collectives += part.folded >= 0 ? part.finish - part.start : 0;
  CHECK(collectives == 1.5);
  // A task that holds none is one part of kernels.
  const std::vector<TaskPart> alone = task_parts(g, t, measured);
  REQUIRE(alone.size() == 1);
  CHECK(alone.front().folded == -1);
}
