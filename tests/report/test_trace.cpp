// The Chrome trace of a step (--trace): what Perfetto and chrome://tracing need to draw it right.
#include "support/isolate.hpp"
#include "execution/schedule.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

using namespace simgpt;

namespace {

// GPT-3 XL on a p3.16xlarge: 4 stages of 2 tensor ranks, 1F1B over 8 micro-batches, recompute.
const Overrides kFourStages{{"framework", "generic"},          {"parallelism.pp", "4"},
                            {"parallelism.tp", "2"},           {"parallelism.schedule", "1f1b"},
                            {"training.global_batch", "8"},    {"training.micro_batch", "1"},
                            {"training.recompute", "full"}};

// Simulates GPT-3 XL with `o` on `platform` with a trace into a file of its own (and `options`'
// selection and fidelity); returns the file's text.
std::string traced_run(const Overrides& o, const std::string& name, SimulationOptions options = {},
                       const std::string& platform = "p3_16xlarge.xml") {
  const DataPaths data = default_data_paths();
  const std::string path = testing::scratch_path("trace_" + name, ".json");
  options.trace_path = path;
  run_isolated([&] {
    const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), o);
    simulate(data.find("platforms/" + platform), w, data, options);
    return nlohmann::ordered_json();
  });
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  return text.str();
}

// Trace times are microseconds with three decimals: whole nanoseconds, compared exactly.
std::int64_t ns(const nlohmann::json& micros) { return std::llround(micros.get<double>() * 1000); }

struct Slice {
  std::int64_t start, end;
  std::string name;
  nlohmann::json args;
};
using Track = std::pair<int, int>; // pid, tid

// The GPUs' slices by track (`category` "critical_path": the critical path's instead).
std::map<Track, std::vector<Slice>> slices_by_track(const nlohmann::json& events, const std::string& category = "") {
  std::map<Track, std::vector<Slice>> tracks;
  for (const auto& e : events)
    if (e["ph"] == "X" && (e["cat"] == "critical_path") == (category == "critical_path")) {
      REQUIRE(e.contains("ts"));
      REQUIRE(e.contains("dur"));
      REQUIRE(e.contains("pid"));
      REQUIRE(e.contains("tid"));
      REQUIRE(e["dur"].get<double>() >= 0);
      tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
          {ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"].get<std::string>(), e["args"]});
    }
  for (auto& [track, slices] : tracks)
    std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
      return std::tie(a.start, a.end) < std::tie(b.start, b.end);
    });
  return tracks;
}

// Each slice as a viewer shows it, by GPU and track name: (GPU, track, start, end, name, args).
using DrawnSlice = std::tuple<int, std::string, std::int64_t, std::int64_t, std::string, std::string>;
std::map<Track, std::string> thread_names(const nlohmann::json& events);
std::vector<DrawnSlice> drawn_slices(const nlohmann::json& events) {
  const auto names = thread_names(events);
  std::vector<DrawnSlice> out;
  for (const auto& [track, slices] : slices_by_track(events))
    for (const Slice& s : slices)
      out.emplace_back(track.first, names.at(track), s.start, s.end, s.name, s.args.dump());
  std::sort(out.begin(), out.end());
  return out;
}

std::map<Track, std::string> thread_names(const nlohmann::json& events) {
  std::map<Track, std::string> names;
  for (const auto& e : events)
    if (e["ph"] == "M" && e["name"] == "thread_name")
      names[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"].get<std::string>();
  return names;
}

// A compute track's forward and backward passes in order: (forward?, micro-batch), one entry per
// pass however many per-layer slices it has.
std::vector<std::pair<bool, int>> passes(const std::vector<Slice>& slices) {
  std::vector<std::pair<bool, int>> out;
  for (const Slice& s : slices) {
    if (s.name != "forward" && s.name != "backward")
      continue;
    const std::pair<bool, int> pass{s.name == "forward", s.args["micro_batch"].get<int>()};
    if (out.empty() || out.back() != pass)
      out.push_back(pass);
  }
  return out;
}

} // namespace

TEST_CASE("a 4-stage 1F1B trace is valid JSON whose tracks, passes and flows a viewer can draw") {
  const std::string text = traced_run(kFourStages, "1f1b");
  const nlohmann::json trace = nlohmann::json::parse(text); // throws on invalid JSON
  REQUIRE(trace["displayTimeUnit"] == "ms");
  const nlohmann::json& events = trace["traceEvents"];
  const auto tracks = slices_by_track(events);
  const auto names = thread_names(events);
  const std::set<std::string> kinds{"forward",  "backward", "recompute",  "optimizer", "p2p send",
                                    "p2p recv", "broadcast", "all-reduce", "reduce",    "reduce-scatter", "all-gather"};
  std::set<std::string> seen;
  for (const auto& [track, slices] : tracks) {
    INFO("GPU " << track.first << " track " << track.second);
    REQUIRE(names.count(track) == 1);
    // No two slices of a track overlap (tracks of concurrent communication are split).
    for (size_t i = 1; i < slices.size(); ++i)
      CHECK(slices[i].start >= slices[i - 1].end);
    for (const Slice& s : slices) {
      CHECK(kinds.count(s.name) == 1);
      seen.insert(s.name);
    }
  }
  // Full recompute, tensor-parallel all-reduces, no data parallelism.
  CHECK(seen == std::set<std::string>{"forward", "backward", "recompute", "optimizer", "p2p send", "p2p recv",
                                      "all-reduce"});
  // Each stage's GPUs run 1F1B: warm-up forwards, then one forward and one backward, then the rest.
  int compute_tracks = 0;
  for (const auto& [track, slices] : tracks) {
    if (names.at(track) != "compute")
      continue;
    ++compute_tracks;
    const int stage = slices.front().args["stage"].get<int>();
    std::vector<std::pair<bool, int>> expected;
    for (const PipelineStep& step : stage_schedule(Schedule::one_f_one_b, stage, 4, 8, 1))
      expected.emplace_back(step.pass == PipelineStep::Pass::forward, step.micro_batch);
    INFO("GPU " << track.first << " stage " << stage);
    CHECK(passes(slices) == expected);
    for (const Slice& s : slices)
      if (s.name != "optimizer")
        CHECK((s.args.contains("micro_batch") && s.args.contains("chunk")));
  }
  CHECK(compute_tracks == 8);
  // Every flow starts once and finishes once, each end inside a slice of its track.
  std::map<std::int64_t, std::pair<int, int>> flows; // id -> (starts, finishes)
  for (const auto& e : events)
    if (e["ph"] == "s" || e["ph"] == "f") {
      auto& [starts, finishes] = flows[e["id"].get<std::int64_t>()];
      (e["ph"] == "s" ? starts : finishes) += 1;
      const auto& on = tracks.at({e["pid"].get<int>(), e["tid"].get<int>()});
      const std::int64_t t = ns(e["ts"]);
      CHECK(std::any_of(on.begin(), on.end(), [&](const Slice& s) { return s.start <= t && t <= s.end; }));
    }
  CHECK(flows.size() == 2 /*directions*/ * 3 /*stage boundaries*/ * 8 /*micro-batches*/ * 2 /*tensor ranks*/);
  for (const auto& [id, ends] : flows)
    CHECK(ends == std::make_pair(1, 1));
  // A memory counter per GPU that rises above the resident state while activations are kept.
  std::map<int, std::pair<double, double>> memory; // pid -> (first, max)
  for (const auto& e : events)
    if (e["ph"] == "C") {
      const double gib = e["args"]["GiB"].get<double>();
      auto [it, fresh] = memory.try_emplace(e["pid"].get<int>(), gib, gib);
      it->second.second = std::max(it->second.second, gib);
    }
  CHECK(memory.size() == 8);
  for (const auto& [gpu, range] : memory)
    CHECK(range.second > range.first);
}

TEST_CASE("a trace draws the critical path as a process of its own, its tasks back to back over the step") {
  // Data-parallel replicas beside the pipeline: gradient all-reduces and pipeline transfers.
  const Overrides o{{"framework", "generic"},       {"parallelism.pp", "4"}, {"parallelism.dp", "2"},
                    {"training.global_batch", "16"}, {"training.micro_batch", "1"}};
  const nlohmann::json trace = nlohmann::json::parse(traced_run(o, "critical"));
  const auto path = slices_by_track(trace["traceEvents"], "critical_path");
  REQUIRE(path.size() == 1);
  const auto& [track, slices] = *path.begin();
  CHECK(track.first == 8); // after the job's 8 GPUs
  CHECK(thread_names(trace["traceEvents"]).at(track) == "the tasks that set the step time");
  REQUIRE(!slices.empty());
  // The path's tasks follow one another from the step's start to its end, each naming its kind.
  CHECK(slices.front().start == 0);
  CHECK(slices.back().end == std::llround(std::stod(trace["otherData"]["step_time_s"].get<std::string>()) * 1e9));
  std::set<std::string> names;
  for (size_t i = 0; i < slices.size(); ++i) {
    if (i > 0)
      CHECK(slices[i].start == slices[i - 1].end);
    names.insert(slices[i].name);
    if (slices[i].name == "all-reduce")
      CHECK(slices[i].args["dimension"] == "dp");
    if (slices[i].name == "p2p")
      CHECK(slices[i].args["dimension"] == "pp");
  }
  CHECK(names.count("forward") == 1);
  CHECK(names.count("backward") == 1);
  // Every collective and transfer slice of the GPUs names the dimension it serves.
  for (const auto& [gpu_track, gpu_slices] : slices_by_track(trace["traceEvents"]))
    for (const Slice& s : gpu_slices)
      if (s.name == "all-reduce" || s.name.starts_with("p2p"))
        CHECK(s.args["dimension"] == (s.name == "all-reduce" ? "dp" : "pp"));
}

TEST_CASE("the same step gives the same trace, byte for byte") {
  // Data-parallel replicas: gradient all-reduces beside the pipeline.
  const Overrides o{{"framework", "generic"},       {"parallelism.pp", "4"}, {"parallelism.dp", "2"},
                    {"training.global_batch", "16"}, {"training.micro_batch", "1"}};
  const std::string first = traced_run(o, "a"), second = traced_run(o, "b");
  REQUIRE(first.size() > 1000);
  CHECK(first == second);
}

TEST_CASE("an unwritable trace path is an input error naming it, raised before simulating") {
  const DataPaths data = default_data_paths();
  const std::string path = "/nonexistent-simgpt-dir/trace.json";
  CHECK_THROWS_WITH(run_isolated([&] {
                      const Workload w = load_workload(data.find("workloads/gpt3xl.yaml"), kFourStages);
                      simulate(data.find("platforms/p3_16xlarge.xml"), w, data, SimulationOptions{path});
                      return nlohmann::ordered_json();
                    }),
                    Catch::Contains(path));
}

TEST_CASE("a trace of some GPUs and part of the step draws those GPUs' slices in that part, as the whole trace does") {
  const Overrides o{{"framework", "generic"},       {"parallelism.pp", "4"}, {"parallelism.dp", "2"},
                    {"training.global_batch", "16"}, {"training.micro_batch", "1"}};
  const nlohmann::json whole = nlohmann::json::parse(traced_run(o, "whole"));
  const double start_s = 1.0, end_s = 2.5;
  const nlohmann::json part = nlohmann::json::parse(
      traced_run(o, "part", {.trace_selection = {.gpus = {0, 2, 7}, .window = {.start_s = start_s, .end_s = end_s}}}));
  CHECK(part["otherData"]["gpus_drawn"] == nlohmann::json::array({0, 2, 7}));
  const std::int64_t start = std::llround(start_s * 1e9), end = std::llround(end_s * 1e9);
  std::vector<DrawnSlice> expected;
  for (const DrawnSlice& s : drawn_slices(whole["traceEvents"])) {
    const auto& [gpu, track, from, to, name, args] = s;
    if ((gpu == 0 || gpu == 2 || gpu == 7) && from < end && (to > start || from >= start))
      expected.push_back(s);
  }
  REQUIRE(expected.size() > 50);
  CHECK(drawn_slices(part["traceEvents"]) == expected);
  std::set<int> processes, counted, flowing;
  for (const auto& e : part["traceEvents"]) {
    processes.insert(e["pid"].get<int>());
    if (e["ph"] == "C") {
      counted.insert(e["pid"].get<int>());
      CHECK(ns(e["ts"]) >= start);
      CHECK(ns(e["ts"]) < end);
    }
    if (e["ph"] == "s" || e["ph"] == "f")
      flowing.insert(e["pid"].get<int>());
  }
  CHECK(processes == std::set<int>{0, 2, 7, 8}); // 8: the critical path's, after the job's 8 GPUs
  CHECK(counted == std::set<int>{0, 2, 7});
  // Arrows between drawn neighbours only: GPUs 0 and 2 (stages 0 and 1 of the first replica);
  // GPU 7's neighbour, GPU 5, is not drawn.
  CHECK(flowing == std::set<int>{0, 2});
}

TEST_CASE("GPUs whose work a symmetric step's stand-ins simulate are drawn as a full simulation draws them") {
  // 2 replicas of 2 stages of 8 tensor ranks on ND A100 v4 nodes: the first replica stands for
  // the second, each node's tensor-parallel collectives are replayed whole on one stream, and the
  // first rank's transfers stand for the others'.
  const Overrides o{{"framework", "megatron"},        {"training.precision", "fp16"}, {"parallelism.tp", "8"},
                    {"parallelism.pp", "2"},          {"parallelism.dp", "2"},       {"parallelism.schedule", "1f1b"},
                    {"training.global_batch", "8"},   {"placement.gpus", "32"}};
  const TraceSelection some{.gpus = {0, 5, 11, 19, 30}};
  const nlohmann::json symmetric = nlohmann::json::parse(
      traced_run(o, "symmetric", {.trace_selection = some}, "nd_a100_v4_x16.xml"));
  const nlohmann::json full = nlohmann::json::parse(traced_run(
      o, "full", {.trace_selection = some, .fidelity = SimulationOptions::Fidelity::full}, "nd_a100_v4_x16.xml"));
  const auto drawn = drawn_slices(symmetric["traceEvents"]);
  REQUIRE(drawn.size() > 1000);
  CHECK(drawn == drawn_slices(full["traceEvents"]));
}
