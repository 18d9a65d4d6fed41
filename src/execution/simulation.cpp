#include "simgpt/execution/simulation.hpp"

#include "simgpt/system/cluster.hpp"
#include "simgpt/cost/compute_cost.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/memory/memory.hpp"
#include "simgpt/model/model.hpp"
#include "simgpt/execution/plan.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/execution/replay.hpp"
#include "simgpt/execution/step_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <cstdlib>
#include <filesystem>

namespace simgpt {
namespace {

class ClusterTopology : public Topology {
public:
  explicit ClusterTopology(const Cluster& cluster) : cluster_(cluster) {}
  std::vector<Ring> rings(const std::vector<int>& gpus) const override { return cluster_.rings(gpus); }
  double route_latency(int a, int b) const override { return cluster_.route_latency(a, b); }

private:
  const Cluster& cluster_;
};

// Time a communication task held up what followed it: a transfer's duration, a collective's
// span from its entry (all members arrived) to its exit; a marker passes on what it waited for.
double comm_seconds(const TaskGraph& g, const Timeline& t, TaskId u) {
  const Task& task = g[u];
  if (task.kind == Task::Kind::transfer)
    return t.finish[u] - t.start[u];
  if (task.kind != Task::Kind::delay)
    return 0;
  if (task.entry >= 0)
    return t.finish[u] - t.finish[static_cast<TaskId>(task.entry)];
  double best = -1, seconds = 0;
  for (auto [e, end] = boost::in_edges(u, g); e != end; ++e) {
    TaskId p = boost::source(*e, g);
    if (t.finish[p] > best) {
      best = t.finish[p];
      seconds = comm_seconds(g, t, p);
    }
  }
  return seconds;
}

// Splits the wall time of each stage's first GPU into computing, waiting for communication
// (the part of each gap the communication it waited for accounts for) and idling.
std::vector<StageReport> stage_breakdown(const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan) {
  const double makespan = t.makespan();
  std::vector<StageReport> stages(static_cast<size_t>(plan.pp));
  std::vector<std::vector<TaskId>> stream(static_cast<size_t>(plan.gpus()));
  for (TaskId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].kind == Task::Kind::compute)
      stream[static_cast<size_t>(g[v].gpu)].push_back(v);
  for (size_t s = 0; s < stages.size(); ++s) {
    StageReport& r = stages[s];
    r.stage = static_cast<int>(s);
    r.gpu = plan.gpu(r.stage, 0, 0);
    for (int c = 0; c < plan.chunks; ++c)
      r.layers += plan.stages[static_cast<size_t>(c * plan.pp) + s].layers;
    auto& tasks = stream[static_cast<size_t>(r.gpu)];
    std::sort(tasks.begin(), tasks.end(), [&](TaskId a, TaskId b) { return t.start[a] < t.start[b]; });
    double previous_finish = 0;
    for (TaskId v : tasks) {
      r.compute_s += t.finish[v] - t.start[v];
      const double gap = std::max(0.0, t.start[v] - previous_finish);
      previous_finish = std::max(previous_finish, t.finish[v]);
      if (gap <= 0)
        continue;
      double best = -1, waited_comm = 0;
      for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
        TaskId u = boost::source(*e, g);
        if (t.finish[u] > best) {
          best = t.finish[u];
          waited_comm = comm_seconds(g, t, u);
        }
      }
      r.comm_wait_s += std::min(gap, waited_comm);
    }
    r.idle_s = std::max(0.0, makespan - r.compute_s - r.comm_wait_s);
  }
  return stages;
}

// Memory of each stage's first GPU over the replayed step: resident state, plus the activations
// of the micro-batches between their forward's start and their backward's end, plus the largest
// transient working set; the optimizer step may allocate a copy of the state instead.
void add_memory(std::vector<StageReport>& stages, const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                const Workload& w, const Profile& profile, const GpuSpec& gpu) {
  const auto& m = w.model;
  const auto& par = w.parallelism;
  const StateBytes per_param = state_bytes_per_parameter(w.training);
  const bool sharded_state = plan.sharded_optimizer() && plan.dp > 1;
  const double dp = static_cast<double>(plan.dp);
  const double layer_kept =
      layer_activation_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel, w.training.recompute,
                             w.training.precision, profile.dropout, profile.memory.recompute_kept,
                             profile.memory.replicated_kept, plan.softmax_fp32);
  const double layer_full =
      layer_activation_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel, Recompute::none,
                             w.training.precision, profile.dropout, 1, profile.memory.replicated_kept,
                             plan.softmax_fp32);
  const int V = plan.pp * plan.chunks;
  for (StageReport& r : stages) {
    MemoryReport& mem = r.memory;
    double params = 0;
    std::vector<double> kept(static_cast<size_t>(plan.chunks)), full(kept.size());
    double transient = 0;
    const bool recompute = w.training.recompute != Recompute::none;
    const bool stage_checkpoint = w.training.recompute == Recompute::full && profile.memory.checkpoint_stages;
    for (int c = 0; c < plan.chunks; ++c) {
      const int v = c * plan.pp + r.stage;
      const StageCost& cost = plan.stages[static_cast<size_t>(v)];
      params += cost.parameters;
      full[static_cast<size_t>(c)] = cost.layers * layer_full;
      if (stage_checkpoint) {
        // One checkpoint spans the stage's layers: it keeps their input once, and recomputing it
        // for the backward materialises all its layers' activations at once.
        kept[static_cast<size_t>(c)] = layer_kept;
        transient = std::max(transient, full[static_cast<size_t>(c)] - layer_kept);
      } else {
        kept[static_cast<size_t>(c)] = cost.layers * layer_kept;
        // Recomputing a layer for its backward materialises all its activations again.
        if (recompute)
          transient = std::max(transient, layer_full - layer_kept / std::max(1, cost.layers));
      }
      // The LM head's logits (vocabulary-parallel) and what the loss derives from them.
      if (v == V - 1 && m.head == Head::lm)
        transient = std::max(transient, profile.memory.logits_bytes *
                                            static_cast<double>(w.training.micro_batch * m.seq_len) *
                                            static_cast<double>(m.vocab) / static_cast<double>(par.tp));
    }
    mem.weights = params * per_param.weights / (plan.zero >= 3 ? dp : 1);
    // Reduce-scattered gradients (ZeRO-2, Alpa's reduce-scatter option) keep only their shard.
    const bool sharded_gradients = plan.zero >= 2 || (plan.dp_algorithm == DpAlgorithm::reduce_scatter && plan.dp > 1);
    const double gradient_share = per_param.gradients / (sharded_gradients ? dp : 1);
    mem.gradients = params * gradient_share;
    // Without a persistent buffer and without accumulation, a layer's gradients appear as its
    // backward frees its activations: at the activation peak (the backward's start) only the
    // gradients of the parameters outside the transformer layers (embedding, head) exist yet.
    double layer_params = 0;
    for (int c = 0; c < plan.chunks; ++c)
      layer_params += plan.stages[static_cast<size_t>(c * plan.pp + r.stage)].layers *
                      layer_parameters(m, par.tp);
    const bool gradients_grow = !profile.memory.persistent_gradients && plan.micro_batches == 1;
    const double gradients_at_activation_peak =
        gradients_grow ? (params - layer_params) * gradient_share : mem.gradients;
    mem.optimizer_state = params * per_param.optimizer / (sharded_state ? dp : 1);

    // Activations alive over time: allocated when a micro-batch's forward starts, freed when its
    // backward ends (the same micro-batch may span several merged tasks).
    std::map<std::pair<int, int>, std::pair<double, double>> life; // (mb, chunk) -> (alloc, free)
    for (TaskId v = 0; v < boost::num_vertices(g); ++v) {
      const Task& task = g[v];
      if (task.kind != Task::Kind::compute || task.gpu != r.gpu || task.micro_batch < 0)
        continue;
      auto [it, fresh] = life.try_emplace({task.micro_batch, task.chunk}, t.start[v], 0.0);
      if (task.phase == Task::Phase::forward)
        it->second.first = fresh ? t.start[v] : std::min(it->second.first, t.start[v]);
      else
        it->second.second = std::max(it->second.second, t.finish[v]);
    }
    std::vector<std::tuple<double, int, double>> events; // time, order (frees first), bytes
    for (const auto& [key, span] : life) {
      double bytes = kept[static_cast<size_t>(key.second)];
      // A micro-batch that is not checkpointed keeps all its activations.
      if (!profile.recompute_last_micro_batch && key.first == plan.micro_batches - 1 &&
          w.training.recompute == Recompute::full)
        bytes = full[static_cast<size_t>(key.second)];
      events.emplace_back(span.first, 1, bytes);
      events.emplace_back(span.second, 0, -bytes);
    }
    std::sort(events.begin(), events.end());
    double live = 0;
    int count = 0;
    for (const auto& [time, order, bytes] : events) {
      live += bytes;
      count += bytes > 0 ? 1 : -1;
      if (live > mem.activations) {
        mem.activations = live;
        mem.peak_time_s = time;
        mem.in_flight = count;
      }
    }
    mem.transient = transient;
    // The peak is either during the backward (activations) or at the optimizer step, when all
    // gradients exist and the update may allocate new state.
    const double update = profile.memory.update_copy * mem.weights;
    if (update + mem.gradients > mem.activations + mem.transient + gradients_at_activation_peak) {
      mem.activations = 0;
      mem.transient = update;
      mem.in_flight = 0;
      mem.peak_time_s = t.makespan();
    } else {
      mem.gradients = gradients_at_activation_peak;
    }
    const double allocated = mem.weights + mem.gradients + mem.optimizer_state + mem.activations + mem.transient;
    mem.framework = profile.memory.context_bytes + profile.memory.allocator_overhead * allocated;
    mem.peak = allocated + mem.framework;
    mem.capacity = gpu.memory_bytes;
    mem.usable = profile.memory.context_bytes +
                 profile.memory.pool_fraction * std::max(0.0, gpu.memory_bytes - profile.memory.context_bytes);
  }
}

} // namespace

DataPaths default_data_paths() {
  if (const char* env = std::getenv("SIMGPT_DATA"); env != nullptr && *env != '\0')
    return {env, {}};
  return {SIMGPT_DATA_DIR, {}};
}

double simulate_transfer(const std::string& platform_path, int from, int to, double bytes, const NetworkWhatIf& network,
                         const std::string& profile_name, const DataPaths& data) {
  const GpuCatalog catalog = GpuCatalog::load(data.catalog());
  Profile profile = load_profile(data.profiles(), profile_name, "transfer profile");
  for (const auto& [key, value] : data.profile_overrides)
    set_profile_parameter(profile, key, value);
  Cluster cluster(platform_path, catalog, network, profile);
  const auto n = static_cast<int>(cluster.gpus().size());
  if (from < 0 || to < 0 || from >= n || to >= n || from == to)
    throw InputError(platform_path, fmt::format("a transfer needs two distinct GPUs among its {}", n));
  TaskGraph g;
  Task t;
  t.kind = Task::Kind::transfer;
  t.gpu = from;
  t.peer = to;
  t.bytes = bytes;
  boost::add_vertex(t, g);
  return replay(g, cluster).makespan();
}

Report simulate(const std::string& platform_path, const Workload& w, const DataPaths& data) {
  const GpuCatalog catalog = GpuCatalog::load(data.catalog());
  Profile profile = load_profile(data.profiles(), w.framework, w.source + ": framework", w.framework_options);
  for (const auto& [key, value] : data.profile_overrides)
    set_profile_parameter(profile, key, value);
  Cluster cluster(platform_path, catalog, w.network, profile);
  const auto available = static_cast<int64_t>(cluster.gpus().size());
  if (w.gpus() > available)
    throw InputError(w.source + ": parallelism",
                     fmt::format("the plan dp*tp*pp = {}*{}*{} needs {} GPUs but {} has {}", w.parallelism.dp,
                                 w.parallelism.tp, w.parallelism.pp, w.gpus(), platform_path, available));
  const GpuSpec& gpu = *cluster.gpus().front().gpu;
  for (int64_t i = 0; i < w.gpus(); ++i)
    if (cluster.gpus()[static_cast<size_t>(i)].gpu != &gpu)
      throw InputError(platform_path, "simgpt needs the GPUs a job uses to be of one model");

  const ComputeCostModel cost(gpu, profile, w.training.precision, w.source + ": training.precision");
  const ExecutionPlan plan = make_plan(w, cost, profile);
  const StepGraph step = build_step_graph(plan, ClusterTopology(cluster));
  const TaskGraph& graph = step.graph;
  const Timeline timeline = replay(graph, cluster);

  Report r;
  r.platform = std::filesystem::path(platform_path).filename().string();
  r.workload = std::filesystem::path(w.source).filename().string();
  r.framework = profile.name;
  r.schedule = to_string(w.parallelism.schedule);
  r.gpus = static_cast<int>(w.gpus());
  r.dp = static_cast<int>(w.parallelism.dp);
  r.tp = static_cast<int>(w.parallelism.tp);
  r.pp = static_cast<int>(w.parallelism.pp);
  r.micro_batches = plan.micro_batches;
  r.step_time_s = timeline.makespan();
  const double batch = static_cast<double>(w.training.global_batch);
  r.samples_per_s = batch / r.step_time_s;
  r.tokens_per_s = r.samples_per_s * static_cast<double>(w.model.seq_len);
  r.model_flops = model_flops_per_step(w);
  r.tflops_per_gpu = r.model_flops / r.step_time_s / r.gpus / 1e12;
  r.p2p_transfers = step.p2p_transfers;
  r.p2p_bytes = step.p2p_bytes;
  for (const auto& [kind, count] : step.collectives)
    r.collectives.push_back({kind, count.count, count.first_gpu, count.bytes});
  for (TaskId v : critical_path(graph, timeline))
    (graph[v].kind == Task::Kind::compute ? r.critical_compute_s : r.critical_comm_s) +=
        timeline.finish[v] - timeline.start[v];
  r.stages = stage_breakdown(graph, timeline, plan);
  add_memory(r.stages, graph, timeline, plan, w, profile, gpu);
  for (const StageReport& s : r.stages) {
    r.peak_allocated_bytes = std::max(r.peak_allocated_bytes, s.memory.peak - s.memory.framework);
    if (s.memory.peak > r.peak_memory_bytes) {
      r.peak_memory_bytes = s.memory.peak;
      r.peak_memory_stage = s.stage;
    }
    if (s.memory.peak > s.memory.usable) {
      r.oom = true;
      r.oom_stages.push_back(s.stage);
    }
  }
  return r;
}

} // namespace simgpt
