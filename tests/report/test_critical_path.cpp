#include "report/critical_path.hpp"

#include "execution/cluster_topology.hpp"
#include "execution/replay.hpp"
#include "execution/step_graph.hpp"
#include "cost/compute_cost.hpp"
#include "execution/plan.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"
#include "system/cluster.hpp"
#include "support/isolate.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace simgpt;

namespace {

// A task of the hand-built graphs below, with when it ran.
struct Ran {
  Task task;
  double start, finish;
};

Task compute(Task::Phase phase, int stage, int mb) {
  Task t;
  t.kind = Task::Kind::compute;
  t.phase = phase;
  t.gpu = stage;
  t.stage = stage;
  t.micro_batch = mb;
  return t;
}

Task activation(int from_stage, int mb) {
  Task t;
  t.kind = Task::Kind::transfer;
  t.phase = Task::Phase::activation;
  t.gpu = from_stage;
  t.peer = from_stage + 1;
  t.stage = from_stage;
  t.micro_batch = mb;
  return t;
}

Task collective_delay() {
  Task t;
  t.kind = Task::Kind::delay;
  t.phase = Task::Phase::collective;
  t.collective = CollectiveKind::allreduce;
  return t;
}

void build(TaskGraph& g, Timeline& t, const std::vector<Ran>& tasks,
           const std::vector<std::pair<TaskId, TaskId>>& edges) {
  for (const Ran& r : tasks) {
    boost::add_vertex(r.task, g);
    t.start.push_back(r.start);
    t.finish.push_back(r.finish);
  }
  for (auto [a, b] : edges)
    boost::add_edge(a, b, g);
}

double sum(const std::map<std::string, double>& m) {
  double s = 0;
  for (const auto& [k, v] : m)
    s += v;
  return s;
}

// Two stages, two micro-batches. Stage 1's second forward waits for both its first forward and
// the second activation, which end together: two chains as long, one through stage 0's second
// forward and that activation (ids 1, 2), one through the first activation and stage 1's first
// forward (ids 3, 4).
void two_stage_step(TaskGraph& g, Timeline& t) {
  using P = Task::Phase;
  build(g, t,
        {{compute(P::forward, 0, 0), 0, 1},         // 0
         {compute(P::forward, 0, 1), 1, 2},         // 1
         {activation(0, 1), 2, 2.5},                // 2
         {activation(0, 0), 1, 1.5},                // 3
         {compute(P::forward, 1, 0), 1.5, 2.5},     // 4
         {compute(P::forward, 1, 1), 2.5, 3.5},     // 5
         {collective_delay(), 3.5, 3.5},            // 6: an all-reduce's entry
         {collective_delay(), 3.5, 3.7},            // 7: its exit, with the step latencies
         {compute(P::optimizer, 1, -1), 3.7, 4.0}}, // 8
        {{0, 1}, {1, 2}, {0, 3}, {3, 2}, {3, 4}, {4, 5}, {2, 5}, {5, 6}, {6, 7}, {7, 8}});
}

} // namespace

TEST_CASE("the critical path is the longest chain, through the lowest task ids among chains as long") {
  TaskGraph g;
  Timeline t;
  two_stage_step(g, t);
  CHECK(critical_path(g, t) == std::vector<TaskId>{0, 1, 2, 5, 6, 7, 8});
  // A longer chain wins whatever its ids.
  TaskGraph h;
  Timeline u;
  build(h, u, {{compute(Task::Phase::forward, 0, 0), 0, 1}, {compute(Task::Phase::forward, 1, 0), 0, 2},
               {compute(Task::Phase::forward, 0, 1), 2, 3}},
        {{0, 2}, {1, 2}});
  CHECK(critical_path(h, u) == std::vector<TaskId>{1, 2});
}

TEST_CASE("a hand-built step's time is attributed to compute, bubble and communication by kind") {
  TaskGraph g;
  Timeline t;
  two_stage_step(g, t);
  const CriticalPathReport r = critical_path_report(g, t, 2);
  // Stage 0 computes 2 s on the path and waits 1.3 s (stage 1's second forward and optimizer);
  // stage 1 computes 1.3 s of its own and 0.5 s alongside stage 0's second forward (its own first
  // forward, off the path), and waits 1.5 s. The pacing stage is the one that waits least.
  CHECK(r.pacing_stage == 0);
  CHECK(r.compute_s == Approx(2.0));
  CHECK(r.bubble_s == Approx(1.3));
  CHECK(r.comm_s.size() == 2);
  CHECK(r.comm_s.at("p2p") == Approx(0.5));
  CHECK(r.comm_s.at("allreduce") == Approx(0.2));
  CHECK(r.exposed_comm_s == Approx(0.7));
  CHECK(r.other_s == 0);
  REQUIRE(r.stages.size() == 2);
  CHECK(r.stages[1].compute_s == Approx(1.8));
  CHECK(r.stages[1].bubble_s == Approx(1.5));
  // Longest first, the three 1 s forwards by start; the zero-length entry is never listed.
  REQUIRE(r.top_tasks.size() == 5);
  std::vector<std::string> kinds;
  for (const auto& task : r.top_tasks)
    kinds.push_back(task.kind);
  CHECK(kinds == std::vector<std::string>{"forward", "forward", "forward", "p2p", "optimizer"});
  CHECK(r.top_tasks[1].start_s == 1);
  CHECK(r.top_tasks[2].gpu == 1);
  CHECK(r.top_tasks[2].stage == 1);
  CHECK(r.top_tasks[3].micro_batch == 1);
  CHECK(r.top_tasks[4].duration_s == Approx(0.3));
}

TEST_CASE("a path task starting late is reported as other time, and recompute counts as compute") {
  TaskGraph g;
  Timeline t;
  build(g, t, {{compute(Task::Phase::forward, 0, 0), 0, 1}, {compute(Task::Phase::recompute, 0, 0), 1.5, 2}},
        {{0, 1}});
  const CriticalPathReport r = critical_path_report(g, t, 1);
  CHECK(r.compute_s == Approx(1.5));
  CHECK(r.bubble_s == 0);
  CHECK(r.other_s == Approx(0.5));
  CHECK(r.top_tasks.at(1).kind == "recompute");
}

namespace {

// Replays gpt3xl.yaml with `o` in a child process; returns the critical path's attribution, the
// step time, whether the critical path is a chain from 0 to the step's end, and stage 1's forward
// and backward compute per micro-batch.
nlohmann::ordered_json replayed(const std::string& platform, const Overrides& o) {
  return run_isolated([&] {
    const DataPaths data = default_data_paths();
    const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), o);
    const Profile profile = load_workload_profile(w, data);
    const GpuCatalog catalog = load_catalog(data);
    Cluster cluster(Platform::load(data.find("platforms/" + platform)), catalog, w.network, profile);
    const ComputeCostModel cost(*cluster.gpus().front().gpu, profile, w.training.precision, "test");
    const ExecutionPlan plan = make_plan(w, cost, profile);
    const StepGraph step = build_step_graph(plan, profile, ClusterTopology(cluster));
    const TaskGraph& g = step.graph;
    const Timeline t = replay(g, cluster, step.isolated);
    const double makespan = t.makespan();
    auto is_chain = [&](const std::vector<TaskId>& path) {
      if (path.empty() || t.start[path.front()] != 0 || t.finish[path.back()] < makespan * (1 - 1e-9))
        return false;
      for (size_t i = 1; i < path.size(); ++i)
        if (!boost::edge(path[i - 1], path[i], g).second)
          return false;
      return true;
    };
    double forward = 0, backward = 0;
    for (TaskId v = 0; v < boost::num_vertices(g); ++v) {
      if (g[v].kind != Task::Kind::compute || g[v].gpu != plan.gpu(1, 0, 0))
        continue;
      if (g[v].phase == Task::Phase::forward)
        forward += t.finish[v] - t.start[v];
      if (g[v].phase == Task::Phase::backward)
        backward += t.finish[v] - t.start[v];
    }
    Report r;
    r.critical_path = critical_path_report(g, t, plan.pp);
    nlohmann::ordered_json j;
    j["step_s"] = makespan;
    j["chain"] = is_chain(critical_path(g, t));
    j["forward_s"] = forward / plan.micro_batches;
    j["backward_s"] = backward / plan.micro_batches;
    j["critical_path"] = report_json(r)["critical_path"];
    return j;
  });
}

void check_adds_up(const nlohmann::ordered_json& run) {
  const double step = run["step_s"].get<double>();
  const auto& c = run["critical_path"];
  const double comm = c["exposed_comm_s"].get<double>();
  const double other = c["other_s"].get<double>();
  CHECK(sum(c["comm_s"].get<std::map<std::string, double>>()) == Approx(comm).epsilon(1e-6));
  CHECK(c["compute_s"].get<double>() + c["bubble_s"].get<double>() + comm + other == Approx(step).epsilon(1e-3));
  REQUIRE(c["stages"].size() == 4);
  for (const auto& s : c["stages"])
    CHECK(s["compute_s"].get<double>() + s["bubble_s"].get<double>() + comm + other == Approx(step).epsilon(1e-3));
  CHECK(other == Approx(0).margin(1e-6 * step)); // the replay leaves no gaps on the path
  CHECK(c["top_tasks"].size() == 5);
  CHECK(run["chain"].get<bool>());
}

} // namespace

TEST_CASE("the critical path's attribution adds up to the step time for every schedule") {
  const Overrides pp4{{"framework", "generic"}, {"parallelism.pp", "4"}, {"training.global_batch", "8"}};
  SECTION("GPipe") {
    Overrides o = pp4;
    o.emplace_back("parallelism.schedule", "gpipe");
    check_adds_up(replayed("p3_16xlarge.xml", o));
  }
  SECTION("1F1B") {
    Overrides o = pp4;
    o.emplace_back("parallelism.schedule", "1f1b");
    check_adds_up(replayed("p3_16xlarge.xml", o));
  }
  SECTION("interleaved") {
    Overrides o = pp4;
    o.emplace_back("parallelism.schedule", "interleaved");
    o.emplace_back("parallelism.chunks", "2");
    check_adds_up(replayed("p3_16xlarge.xml", o));
  }
  SECTION("1F1B with data and tensor parallelism") {
    Overrides o = pp4;
    o.emplace_back("parallelism.schedule", "1f1b");
    o.emplace_back("parallelism.dp", "2");
    o.emplace_back("parallelism.tp", "2");
    const auto run = replayed("p3_16xlarge_x2.xml", o);
    check_adds_up(run);
    // Tensor-parallel all-reduces block every layer's compute: they are on the path.
    CHECK(run["critical_path"]["comm_s"].contains("allreduce"));
  }
}

TEST_CASE("GPipe and 1F1B with equal stages have the textbook bubble (p - 1)(t_forward + t_backward)") {
  // The classifier head and the embedding lookup are small: the four stages are nearly equal.
  // 1F1B's path zigzags between neighbouring stages in its steady state, where all compute: the
  // bubble is still only the fill and the drain.
  const std::string schedule = GENERATE("gpipe", "1f1b");
  const auto run = replayed("p3_16xlarge.xml", {{"framework", "generic"},
                                                {"parallelism.pp", "4"},
                                                {"parallelism.schedule", schedule},
                                                {"training.global_batch", "8"}});
  const double per_micro_batch = run["forward_s"].get<double>() + run["backward_s"].get<double>();
  CHECK(run["critical_path"]["bubble_s"].get<double>() == Approx(3 * per_micro_batch).epsilon(0.05));
  // The pacing stage computes all its eight micro-batches on the path.
  CHECK(run["critical_path"]["compute_s"].get<double>() == Approx(8 * per_micro_batch).epsilon(0.05));
}

TEST_CASE("interleaved 1F1B's bubble is (p - 1)(t_forward + t_backward) / chunks") {
  // Narayanan et al. 2021, section 2.2.2: with v model chunks per stage, each micro-batch's
  // forward and backward on a chunk take 1/v of the stage's, and the fill and drain v times less.
  const auto [pp, chunks, micro_batches] = GENERATE(std::make_tuple(4, 2, 8), std::make_tuple(4, 3, 8),
                                                    std::make_tuple(2, 2, 4), std::make_tuple(2, 3, 8));
  CAPTURE(pp, chunks, micro_batches);
  const auto run = replayed("p3_16xlarge.xml", {{"framework", "generic"},
                                                {"parallelism.pp", std::to_string(pp)},
                                                {"parallelism.schedule", "interleaved"},
                                                {"parallelism.chunks", std::to_string(chunks)},
                                                {"training.global_batch", std::to_string(micro_batches)}});
  const double per_micro_batch = run["forward_s"].get<double>() + run["backward_s"].get<double>();
  CHECK(run["critical_path"]["bubble_s"].get<double>() ==
        Approx((pp - 1) * per_micro_batch / chunks).epsilon(0.03));
  CHECK(run["critical_path"]["compute_s"].get<double>() == Approx(micro_batches * per_micro_batch).epsilon(0.05));
}
