#include "simgpt/simulate.hpp"
#include "simgpt/simulate/kernel_listing.hpp"

#include "system/cluster.hpp"
#include "cost/compute_cost.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/memory/memory.hpp"
#include "model/model.hpp"
#include "execution/plan.hpp"
#include "simgpt/framework/profile.hpp"
#include "execution/collective.hpp"
#include "execution/collective_timing.hpp"
#include "execution/replay.hpp"
#include "execution/cluster_topology.hpp"
#include "execution/step_graph.hpp"
#include "estimate/collective_cost.hpp"
#include "estimate/step_estimate.hpp"
#include "memory/footprint.hpp"
#include "memory/static_peak.hpp"
#include "memory/timeline.hpp"
#include "report/communication.hpp"
#include "report/conditions_report.hpp"
#include "execution/route_pairs.hpp"
#include "execution/placed_steps.hpp"
#include "report/critical_path.hpp"
#include "report/stage_breakdown.hpp"
#include "report/trace.hpp"
#include "core/digest.hpp"
#include "simgpt/core/version.hpp"
#include "workload/resolved_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <optional>

namespace simgpt {
namespace {

// SimGrid and the cost models carry inf and NaN through silently (a NaN peak even compares
// below every other and vanishes): name the first task whose time is not finite instead.
void check_finite(const TaskGraph& graph, const Timeline& timeline, const std::string& source) {
  for (TaskId v = 0; v < boost::num_vertices(graph); ++v) {
    const double t = timeline.finish[v];
    if (std::isfinite(t))
      continue;
    const Task& task = graph[v];
    const char* kind = task.kind == Task::Kind::compute    ? "compute"
                       : task.kind == Task::Kind::transfer ? "transfer"
                                                           : "delay";
    throw InputError(source, fmt::format("the step time is not finite: a {} task on GPU {} (stage {}, {:.4g} s, {:.4g} "
                                         "bytes) ends at {}; check the profile's and platform's rates and delays",
                                         kind, task.gpu, task.stage, task.seconds, task.bytes, t));
  }
}

} // namespace

double simulate_transfer(const Platform& platform, int from, int to, double bytes, const NetworkWhatIf& network,
                         const Profile& profile, const GpuCatalog& catalog) {
  Cluster cluster(platform, catalog, network, profile);
  const auto n = static_cast<int>(cluster.gpus().size());
  if (from < 0 || to < 0 || from >= n || to >= n || from == to)
    throw InputError(platform.path, fmt::format("a transfer needs two distinct GPUs among its {}", n));
  cluster.check_route(from, to); // throws, naming the hosts, if the route misses a hop
  TaskGraph g;
  Task t;
  t.kind = Task::Kind::transfer;
  t.gpu = from;
  t.peer = to;
  t.bytes = bytes;
  boost::add_vertex(t, g);
  return replay(g, cluster).makespan();
}

double simulate_collective(const Platform& platform, const std::string& collective, int gpus, double bytes,
                           const NetworkWhatIf& network, const Profile& profile, const GpuCatalog& catalog,
                           int gpus_per_thread) {
  const std::optional<CollectiveKind> kind = parse_enum<CollectiveKind>(collective);
  if (!kind)
    throw InputError(platform.path, fmt::format("'{}' is not a collective (expected {})", echo(collective),
                                                valid_enum_names<CollectiveKind>(" or ")));
  Cluster cluster(platform, catalog, network, profile);
  const auto available = static_cast<int>(cluster.gpus().size());
  if (gpus < 2 || gpus > available)
    throw InputError(platform.path, fmt::format("a collective over {} GPUs: expected 2 to the {} GPUs it has", gpus,
                                                available));
  cluster.check_routes(gpus); // throws, naming the hosts, if a route misses a hop
  std::vector<int> members(static_cast<size_t>(gpus));
  for (int i = 0; i < gpus; ++i)
    members[static_cast<size_t>(i)] = i; // the first GPUs, as a job of that many GPUs takes them
  // What a step's collective over the group is (step_graph/group_collectives): NCCL's rings over
  // its links, with the latency and protocol of the profile's collective library.
  const ClusterTopology topology(cluster);
  const std::vector<Ring> rings = library_rings(cluster.rings(members), profile.nccl);
  TaskGraph g;
  add_collective(g, *kind, CollectiveAlgorithm::ring, rings, bytes, 0,
                 collective_timing(profile, topology, rings, *kind, bytes));
  const double launches = gpus_per_thread * cluster.gpus().front().gpu->kernel_launch_s;
  return std::max(launches, replay(g, cluster).makespan());
}

double simulate_transfer(const std::string& platform_path, int from, int to, double bytes, const NetworkWhatIf& network,
                         const std::string& profile_name, const DataPaths& data) {
  return simulate_transfer(Platform::load(platform_path), from, to, bytes, network,
                           load_profile_of(data, profile_name, "transfer profile"), load_catalog(data));
}

double simulate_collective(const std::string& platform_path, const std::string& collective, int gpus, double bytes,
                           const NetworkWhatIf& network, const std::string& profile_name, const DataPaths& data,
                           int gpus_per_thread) {
  return simulate_collective(Platform::load(platform_path), collective, gpus, bytes, network,
                             load_profile_of(data, profile_name, "collective profile"), load_catalog(data),
                             gpus_per_thread);
}

Report simulate(const std::string& platform_path, const Workload& w, const DataPaths& data,
                const SimulationOptions& options) {
  check_workload(w); // before its profile is loaded: the workload's own errors come first
  return simulate(Platform::load(platform_path), w, load_workload_profile(w, data), load_catalog(data), options);
}

namespace {

// The GPUs a job runs on, from placement.first_gpu: as many as the plan needs, routed to each other.
// The first one's model prices the plan; a GPU of another model (mixed hardware) computes at its
// own pace against it (mixed_slowdowns), and the model with the least memory judges every
// stage's peak (a stage's replicas all hold the same tensors).
struct JobGpus {
  int first = 0;
  const GpuSpec* gpu = nullptr;        // the first GPU's model
  const GpuSpec* memory_gpu = nullptr; // the one with the least memory
  std::vector<const GpuSpec*> models;  // per job GPU
  bool mixed = false;
};

JobGpus job_gpus(const Cluster& cluster, const Workload& w, const Platform& platform) {
  const auto available = static_cast<int64_t>(cluster.gpus().size());
  JobGpus job;
  job.first = static_cast<int>(w.placement.first_gpu);
  if (w.placement.first_gpu + w.gpus() > available)
    throw InputError(w.source + (w.placement.first_gpu > 0 ? ": placement.first_gpu" : ": parallelism"),
                     w.placement.first_gpu > 0
                         ? fmt::format("the plan {} needs {} GPUs from GPU {}, but {} has {} (GPUs 0 to {})",
                                       w.gpu_product(), w.gpus(), w.placement.first_gpu, platform.path, available,
                                       available - 1)
                         : fmt::format("the plan {} needs {} GPUs but {} has {}", w.gpu_product(), w.gpus(),
                                       platform.path, available));
  job.gpu = job.memory_gpu = cluster.gpus()[static_cast<size_t>(job.first)].gpu;
  for (int64_t i = 0; i < w.gpus(); ++i) {
    const GpuSpec* model = cluster.gpus()[static_cast<size_t>(job.first + i)].gpu;
    job.models.push_back(model);
    job.mixed = job.mixed || model != job.gpu;
    if (model->memory_bytes < job.memory_gpu->memory_bytes)
      job.memory_gpu = model;
  }
  cluster.check_routes(job.first, w.gpus());
  return job;
}

// One micro-batch's kernels on stage s (over its model chunks), forward and backward, and its
// optimizer step: what a GPU of another model runs in proportion to.
double stage_kernel_seconds(const ExecutionPlan& plan, int s) {
  double t = optimizer_seconds(plan, s) / std::max(1, plan.micro_batches);
  for (int c = 0; c < plan.chunks; ++c) {
    const StageCost& v = plan.stages[static_cast<size_t>(c * plan.pp + s)];
    const LayerSeconds layers = layer_seconds(plan, c * plan.pp + s);
    t += v.embedding_forward + v.embedding_backward + v.head_forward + v.head_backward + layers.forward +
         layers.backward;
  }
  return t;
}

// Mixed hardware: per job GPU, how much longer (or shorter) its stage's kernels take on its own
// model than on the job's first GPU's, each model's plan priced by its own cost model. Empty when
// every GPU is of one model.
std::vector<double> mixed_slowdowns(const JobGpus& job, const Workload& w, const Profile& profile,
                                    const ExecutionPlan& plan) {
  if (!job.mixed)
    return {};
  std::map<const GpuSpec*, std::vector<double>> ratio; // per model, per stage
  std::vector<double> factor(job.models.size(), 1.0);
  for (int s = 0; s < plan.pp; ++s)
    for (int d = 0; d < plan.dp; ++d)
      for (int t = 0; t < plan.tp; ++t) {
        const auto g = static_cast<size_t>(plan.gpu(s, d, t));
        const GpuSpec* model = job.models[g];
        if (model == job.gpu)
          continue;
        auto at = ratio.find(model);
        if (at == ratio.end()) {
          const ComputeCostModel cost(*model, profile, w.training, w.source);
          const ExecutionPlan own = make_plan(w, cost, profile);
          std::vector<double> r;
          for (int stage = 0; stage < plan.pp; ++stage)
            r.push_back(stage_kernel_seconds(own, stage) / stage_kernel_seconds(plan, stage));
          at = ratio.emplace(model, std::move(r)).first;
        }
        factor[g] = at->second[static_cast<size_t>(s)];
      }
  return factor;
}

// Each of the job's GPUs' slowdown (workload conditions), or none when no GPU is slowed.
std::vector<double> condition_slowdowns(const Workload& w, const Cluster& cluster, int first_gpu) {
  if (!w.conditions.gpu_conditions())
    return {};
  std::vector<int> node_of;
  for (int64_t i = 0; i < w.gpus(); ++i)
    node_of.push_back(cluster.gpus()[static_cast<size_t>(first_gpu + i)].node);
  std::vector<double> factor = gpu_slowdowns(w.conditions, first_gpu, node_of, w.source);
  if (std::all_of(factor.begin(), factor.end(), [](double f) { return f == 1; }))
    return {};
  return factor;
}

// The platform's GPUs from the workload's placement.first_gpu on: what its dp is derived from.
int64_t gpus_from(const Cluster& cluster, const Workload& w) {
  const auto available = static_cast<int64_t>(cluster.gpus().size());
  if (w.placement.first_gpu >= available)
    throw InputError(w.source + ": placement.first_gpu",
                     fmt::format("{} is not a GPU of {} (GPUs 0 to {})", w.placement.first_gpu, cluster.path(),
                                 available - 1));
  return available - w.placement.first_gpu;
}

// A job's (sender, receiver) pairs as the platform numbers its GPUs.
std::vector<std::pair<int, int>> global_pairs(std::vector<std::pair<int, int>> pairs, int first_gpu) {
  for (auto& [a, b] : pairs) {
    a += first_gpu;
    b += first_gpu;
  }
  return pairs;
}

// The replay of a job placed from GPU `first_gpu`: its step as the platform numbers the GPUs.
Timeline replay_placed(const StepGraph& step, int first_gpu, Cluster& cluster) {
  const PlacedSteps placed({PlacedStep{&step, first_gpu}});
  return replay(placed.graph, cluster, placed.isolated);
}

// "8 x H100-SXM5-80GB, 8 x H200": the job's GPUs by model, in the order they first appear.
std::string gpu_models(const JobGpus& job) {
  std::vector<std::pair<const GpuSpec*, int>> counts;
  for (const GpuSpec* m : job.models) {
    auto at = std::find_if(counts.begin(), counts.end(), [m](const auto& c) { return c.first == m; });
    if (at == counts.end())
      counts.emplace_back(m, 1);
    else
      ++at->second;
  }
  std::string out;
  for (const auto& [m, n] : counts)
    out += fmt::format("{}{} x {}", out.empty() ? "" : ", ", n, m->name);
  return out;
}

// What slows each GPU: its conditions and its model against the job's first (mixed hardware),
// multiplied; empty when nothing does.
std::vector<double> job_slowdowns(const std::vector<double>& conditions, const std::vector<double>& mixed) {
  if (mixed.empty())
    return conditions;
  if (conditions.empty())
    return mixed;
  std::vector<double> both(conditions.size());
  for (size_t g = 0; g < both.size(); ++g)
    both[g] = conditions[g] * mixed[g];
  return both;
}

// Why a step is not simulated, and what would be: the tasks grow with the micro-batches and, where
// every replica is simulated, with the replicas (a fraction over the limit shrinks them alike).
std::string too_large(const StepGraphTooLarge& e, const ExecutionPlan& plan, const Workload& w,
                      const StepGraphOptions& options) {
  const double fits = static_cast<double>(e.max_tasks) / static_cast<double>(std::max(e.tasks, e.max_tasks + 1));
  std::vector<std::string> would;
  if (const auto m = static_cast<int>(plan.micro_batches * fits); m >= 1 && plan.micro_batches > 1)
    would.push_back(fmt::format("about {} micro-batches per replica (training.global_batch {})", m,
                                static_cast<int64_t>(m) * w.training.micro_batch * plan.dp));
  // A data-parallel degree that expert and context parallelism still divide.
  const int block = std::lcm(plan.ep, plan.cp);
  if (const int dp = static_cast<int>(plan.dp * fits) / block * block;
      dp >= 1 && plan.dp > 1 && e.replicas_simulated == plan.dp)
    would.push_back(fmt::format("about dp {} ({} GPUs)", dp, static_cast<int64_t>(dp) * plan.gpus() / plan.dp));
  if (!options.symmetric)
    would.push_back("--fidelity symmetric (alike replicas simulated once)");
  would.push_back("--fidelity estimate (closed form, no replay)");
  return fmt::format("the step needs {} simulated tasks{}, more than the {} that half this machine's memory holds "
                     "({:.1f} GB at about {:.0f} bytes a task); it would fit with {}",
                     e.projected ? fmt::format("about {}", e.tasks) : fmt::format("more than {}", e.max_tasks),
                     e.projected ? " (projected from its first passes)" : "",
                     e.max_tasks, static_cast<double>(e.max_tasks) * kTaskBytes / 1e9, kTaskBytes,
                     fmt::join(would, ", or "));
}

StepGraph step_graph_of(const ExecutionPlan& plan, const Profile& profile, const Topology& topology, const Workload& w,
                        const StepGraphOptions& graph_options) {
  try {
    return build_step_graph(plan, profile, topology, graph_options);
  } catch (const StepGraphTooLarge& e) {
    throw LimitError(w.source + ": parallelism", too_large(e, plan, w, graph_options));
  }
}

// What a trace draws, its GPUs listed (all when none were selected), ascending and distinct.
TraceSelection drawn(const SimulationOptions& options, const ExecutionPlan& plan) {
  TraceSelection selection = options.trace_selection;
  std::vector<int>& gpus = selection.gpus;
  for (int gpu : gpus)
    if (gpu < 0 || gpu >= plan.gpus())
      throw InputError("--trace-gpus", fmt::format("GPU {} is not one of the job's; expected GPUs 0 to {}", gpu,
                                                   plan.gpus() - 1));
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  if (gpus.empty())
    for (int gpu = 0; gpu < plan.gpus(); ++gpu)
      gpus.push_back(gpu);
  return selection;
}

// The step's peak over GPUs and which stages exceed what their framework may use.
void judge_memory(Report& r) {
  for (const StageReport& s : r.stages) {
    r.peak_allocated_bytes = std::max(r.peak_allocated_bytes, s.memory.peak - s.memory.framework);
    r.peak_reserved_bytes =
        std::max(r.peak_reserved_bytes, s.memory.peak - s.memory.framework + s.memory.allocator_cache);
    if (s.memory.peak > r.peak_memory_bytes) {
      r.peak_memory_bytes = s.memory.peak;
      r.peak_memory_stage = s.stage;
    }
    if (s.memory.out_of_memory()) {
      r.oom = true;
      r.oom_stages.push_back(s.stage);
    }
  }
}

// A kernel table by its place in its data folder (platforms/kernels/<GPU>.yaml), wherever the folder is.
std::string kernel_table_name(const std::string& file) {
  const std::string name = data_file_name(file, "kernels");
  return name == file ? file : "platforms/" + name;
}

// Where the step's kernel time came from, by kind of kernel (the plan's ledger), and the kernel
// tables it came from: what a report and a kernel listing say alike.
std::vector<Report::KernelTime> kernel_time_of(const KernelLedger& kernels) {
  std::vector<Report::KernelTime> time;
  for (int i = 0; i < KernelTable::kKinds; ++i) {
    const auto kind = static_cast<KernelTable::Kind>(i);
    time.push_back({KernelTable::name_of(kind), kernels.sum(kind).measured_s, kernels.sum(kind).fallback_s});
  }
  return time;
}

std::vector<std::string> kernel_table_names(const GpuSpec& gpu) {
  std::vector<std::string> names;
  if (gpu.kernel_table)
    for (const std::string& file : gpu.kernel_table->files())
      names.push_back(kernel_table_name(file));
  return names;
}

// The files the simulation read, each with its digest where it is a file (data files named by
// their place in their data folder: the same report wherever the data is installed), the
// overrides and the workload as simulated.
ReportInputs report_inputs(const Platform& platform, const Workload& w, const Profile& profile,
                           const GpuCatalog& catalog, const GpuSpec& gpu) {
  ReportInputs inputs;
  inputs.version = std::string(version());
  const auto add = [&inputs](const char* role, const std::string& path, const std::string& name) {
    std::error_code ec;
    const bool file = !path.empty() && std::filesystem::is_regular_file(path, ec);
    inputs.files.push_back({role, name, file ? file_digest(path) : ""});
  };
  add("platform", platform.path, platform.path);
  add("workload", w.source, w.source);
  add("profile", profile.file, data_file_name(profile.file, "profiles"));
  for (const std::string& file : catalog.files()) // each data folder's, merged (the first's entries win)
    add("gpu_catalog", file, data_file_name(file, "platforms"));
  if (gpu.kernel_table)
    for (const std::string& file : gpu.kernel_table->files())
      add("kernel_table", file, kernel_table_name(file));
  for (const auto& [key, value] : w.overrides)
    inputs.overrides.push_back(key + "=" + value);
  inputs.resolved_workload = resolved_workload_json(w).dump();
  return inputs;
}

// What any report of a step says first: what ran where, the step time and the rates it gives.
Report report_of_step(const Platform& platform, const Workload& w, const Profile& profile, const GpuSpec& gpu,
                      const ExecutionPlan& plan, double step_time_s) {
  Report r;
  r.platform = platform.name();
  r.workload = std::filesystem::path(w.source).filename().string();
  r.framework = profile.name;
  r.schedule = name_of(w.parallelism.schedule);
  r.gpus = static_cast<int>(w.gpus());
  r.dp = static_cast<int>(w.parallelism.dp);
  r.dp_derived = w.parallelism.dp_derived;
  r.tp = static_cast<int>(w.parallelism.tp);
  r.pp = static_cast<int>(w.parallelism.pp);
  r.micro_batches = plan.micro_batches;
  r.step_time_s = step_time_s;
  const double batch = static_cast<double>(w.training.global_batch);
  r.samples_per_s = batch / r.step_time_s;
  r.tokens_per_s = r.samples_per_s * static_cast<double>(w.model.seq_len);
  r.model_flops = model_flops_per_step(w);
  r.tflops_per_gpu = r.model_flops / r.step_time_s / r.gpus / 1e12;
  r.peak_precision = name_of(w.training.precision);
  if (const auto peak = gpu.peak_flops.find(w.training.precision); peak != gpu.peak_flops.end() && peak->second > 0) {
    r.peak_tflops_per_gpu = peak->second / 1e12;
    r.mfu = r.tflops_per_gpu / r.peak_tflops_per_gpu;
    r.hfu = hardware_flops_per_step(w) / r.step_time_s / r.gpus / peak->second;
  }
  if (w.training.tokens > 0) {
    const double seconds = w.training.tokens / r.tokens_per_s;
    Report::TimeToTrain t{.tokens = w.training.tokens, .days = seconds / 86400,
                          .gpu_hours = seconds / 3600 * r.gpus};
    t.cost = t.gpu_hours * w.training.gpu_hour_price;
    r.time_to_train = t;
  }
  r.kernel_time = kernel_time_of(plan.kernels);
  r.kernel_tables = kernel_table_names(gpu);
  return r;
}

// What the replayed step says: times and rates, what ran, the critical path, each stage's time
// and memory.
Report assemble_report(const Platform& platform, const Workload& w, const Profile& profile, const GpuSpec& gpu,
                       const GpuSpec& memory_gpu, const ExecutionPlan& plan, const StepGraph& step,
                       const Timeline& timeline, const std::string& fidelity) {
  const TaskGraph& graph = step.graph;
  Report r = report_of_step(platform, w, profile, gpu, plan, timeline.makespan());
  r.fidelity.mode = fidelity;
  r.fidelity.replicas_simulated = step.replicas_simulated;
  r.fidelity.tensor_ranks_simulated = step.tensor_ranks_simulated;
  r.fidelity.expert_group_folded = step.expert_group_folded;
  r.p2p_transfers = step.p2p_transfers;
  r.p2p_bytes = step.p2p_bytes;
  for (const auto& [kind, count] : step.collectives)
    r.collectives.push_back({kind, count.count, count.first_gpu, count.bytes});
  r.critical_path = critical_path_report(graph, timeline, plan.pp);
  r.stages = stage_breakdown(graph, timeline, plan);
  r.communication_gpu = r.stages.at(static_cast<size_t>(r.critical_path.pacing_stage)).gpu;
  r.communication = communication_by_dimension(step, timeline, r.critical_path, r.communication_gpu);
  std::vector<StageGpu> stage_gpus;
  for (const StageReport& s : r.stages)
    stage_gpus.push_back({s.stage, s.gpu});
  const std::vector<MemoryReport> memory = peak_memory(stage_gpus, graph, timeline, plan, w, profile, memory_gpu);
  for (size_t i = 0; i < r.stages.size(); ++i)
    r.stages[i].memory = memory[i];
  for (const StageReport& s : r.stages)
    if (!std::isfinite(s.memory.peak))
      throw InputError(w.source + ": model", fmt::format("the peak memory of stage {} is not finite ({}); check the "
                                                         "model's sizes and the profile's memory factors", s.stage, s.memory.peak));
  judge_memory(r);
  return r;
}

// The step in closed form (estimate/): the same plan and costs as the replay, no task graph.
StepEstimate estimate_of(const ExecutionPlan& plan, const Profile& profile, const Cluster& cluster) {
  CollectiveCosts costs(profile, cluster);
  return estimate_step(plan, profile, costs);
}

// What --fidelity estimate reports: the estimated step's times and rates, each stage's compute
// and its static memory peak (no critical path, transfers or collective counts: those are read
// off a replay).
Report estimated_report(const Platform& platform, const Workload& w, const Profile& profile, const GpuSpec& gpu,
                        const ExecutionPlan& plan, const StepEstimate& step) {
  Report r = report_of_step(platform, w, profile, gpu, plan, step.step_time_s);
  r.fidelity.mode = "estimate";
  r.fidelity.replicas_simulated = 0;
  r.fidelity.tensor_ranks_simulated = 0;
  const std::vector<MemoryReport> memory = static_stage_peaks(plan, w, profile, gpu);
  for (int s = 0; s < plan.pp; ++s) {
    StageReport stage;
    stage.stage = s;
    stage.gpu = plan.gpu(s, 0, 0);
    for (int c = 0; c < plan.chunks; ++c)
      stage.layers += plan.stages[static_cast<size_t>(c * plan.pp + s)].layers;
    stage.compute_s = step.stages[static_cast<size_t>(s)].compute_s;
    stage.idle_s = std::max(0.0, step.step_time_s - stage.compute_s);
    stage.memory = memory[static_cast<size_t>(s)];
    r.stages.push_back(stage);
  }
  judge_memory(r);
  return r;
}

// A job placed on its GPUs and planned: what its step graph is built from.
struct PreparedJob {
  Workload w;
  JobGpus gpus;
  ExecutionPlan plan;
  std::vector<double> conditions; // per job GPU, its conditions' slowdown (empty: none)
  std::vector<double> slowdown;   // per job GPU, conditions and mixed hardware (empty: none)
};

PreparedJob prepare_job(const Platform& platform, const Workload& w, const Profile& profile, const Cluster& cluster) {
  PreparedJob job{w, job_gpus(cluster, w, platform), {}, {}, {}};
  const ComputeCostModel cost(*job.gpus.gpu, profile, w.training, w.source);
  job.plan = make_plan(w, cost, profile);
  with_offload(job.plan, w, profile, *job.gpus.gpu);
  check_gpus_used(w, static_cast<int64_t>(cluster.gpus().size()) - w.placement.first_gpu);
  job.conditions = condition_slowdowns(w, cluster, job.gpus.first);
  job.slowdown = job_slowdowns(job.conditions, mixed_slowdowns(job.gpus, w, profile, job.plan));
  return job;
}

// simulate() once the platform is loaded and the workload placed on its GPUs.
Report simulate_on(const Platform& platform, const Workload& workload, const Profile& profile, const GpuCatalog& catalog,
                   const SimulationOptions& options, Cluster& cluster, std::optional<OutputFile>& trace) {
  const bool traced = trace.has_value();
  const PreparedJob job = prepare_job(platform, workload, profile, cluster);
  const Workload& w = job.w;
  const GpuSpec& gpu = *job.gpus.gpu;
  const ExecutionPlan& plan = job.plan;
  const std::vector<double>& slowdown = job.slowdown;
  if (options.fidelity == SimulationOptions::Fidelity::estimate) {
    if (!slowdown.empty() || cluster.has_links_down() || job.gpus.first > 0)
      throw InputError("--fidelity", fmt::format("estimate prices the platform's first GPUs, each alike, and {} {}: "
                                                 "use --fidelity symmetric or full",
                                                 w.source, job.gpus.first > 0 ? "sets placement.first_gpu"
                                                           : job.gpus.mixed    ? "runs on GPUs of several models"
                                                           : !slowdown.empty() ? "has conditions that slow some GPUs"
                                                                               : "has conditions that take links down"));
    const StepEstimate step = estimate_of(plan, profile, cluster);
    if (!std::isfinite(step.step_time_s))
      throw InputError(w.source + " on " + platform.path, fmt::format("the estimated step time is not finite ({}); "
                                                                      "check the profile's and platform's rates and "
                                                                      "delays", step.step_time_s));
    Report r = estimated_report(platform, w, profile, gpu, plan, step);
    r.inputs = report_inputs(platform, w, profile, catalog, gpu);
    if (w.conditions.any())
      r.conditions = conditions_report(w, job.conditions, 0, nullptr, nullptr, cluster);
    return r;
  }
  std::optional<Report::Estimate> beside;
  if (options.estimate_beside && job.gpus.first == 0) { // before the replay: both read the same cluster's links
    const StepEstimate step = estimate_of(plan, profile, cluster);
    beside = Report::Estimate{step.step_time_s, static_peak(plan, w, profile, gpu).stage.peak, step.contended};
  }
  // Slowed GPUs make replicas unlike, and so does a NIC down whose GPUs now share another: each
  // replica is simulated (the symmetry compares replicas' routes, not how a replica's own ranks
  // share their links).
  const bool asked_symmetric = options.fidelity == SimulationOptions::Fidelity::symmetric;
  const bool symmetric = asked_symmetric && slowdown.empty() && !cluster.has_links_down();
  const TraceSelection selection = traced ? drawn(options, plan) : TraceSelection{};
  const StepGraph step = step_graph_of(plan, profile, ClusterTopology(cluster, job.gpus.first), w,
                                       StepGraphOptions{.traced_gpus = selection.gpus,
                                                        .isolate_collectives = options.isolate_collectives,
                                                        .symmetric = symmetric,
                                                        .gpu_slowdown = slowdown});
  if (cluster.has_links_down())
    cluster.check_not_down(global_pairs(communicating_pairs(step), job.gpus.first));
  if (traced)
    check_trace_size(step, plan, selection); // before the replay, the long part
  const Timeline timeline = job.gpus.first == 0 ? replay(step.graph, cluster, step.isolated)
                                                : replay_placed(step, job.gpus.first, cluster);
  check_finite(step.graph, timeline, w.source + " on " + platform.path);

  Report r = assemble_report(platform, w, profile, gpu, *job.gpus.memory_gpu, plan, step, timeline,
                             symmetric ? "symmetric" : "full");
  r.inputs = report_inputs(platform, w, profile, catalog, gpu);
  r.estimate = beside;
  r.first_gpu = job.gpus.first;
  if (job.gpus.mixed)
    r.gpu_models = gpu_models(job.gpus);
  if (w.conditions.any()) {
    r.conditions = conditions_report(w, job.conditions, job.gpus.first, &step, &timeline, cluster);
    r.conditions->every_replica = asked_symmetric && !symmetric;
  }
  if (traced) {
    const TraceWindow& window = selection.window;
    if (window.start_s >= timeline.makespan())
      throw InputError("--trace-window", fmt::format("starts at {} s, after the step's end at {:.6f} s: the trace "
                                                     "would draw nothing",
                                                     window.start_s, timeline.makespan()));
    write_trace_file(*trace, step, timeline, plan,
                     memory_over_time(step.graph, timeline, plan, w, profile, *job.gpus.memory_gpu,
                                      step.compute_stream),
                     selection, r.inputs);
  }
  return r;
}

// Why a job's profile cannot share the first job's fabric: the transfer settings the cluster
// applies to every flow differ (empty when they agree).
std::string fabric_difference(const Profile& a, const Profile& b, const NetworkWhatIf& na, const NetworkWhatIf& nb) {
  const std::pair<const char*, bool> differs[] = {
      {"network.delay", na.delay_s != nb.delay_s},
      {"network.bandwidth", na.bandwidth_Bps != nb.bandwidth_Bps},
      {"the profile's p2p backend", a.p2p_backend != b.p2p_backend},
      {"the profile's bandwidth efficiency", a.bandwidth_efficiency != b.bandwidth_efficiency},
      {"the profile's TCP window", a.tcp_window_bytes != b.tcp_window_bytes ||
                                       a.tcp_initial_window_bytes != b.tcp_initial_window_bytes},
      {"the profile's per-transfer ceiling", a.p2p_max_rate_Bps != b.p2p_max_rate_Bps},
      {"the profile's NCCL tuning", a.nccl.loaded() != b.nccl.loaded() || a.nccl.nvlink_share != b.nccl.nvlink_share}};
  for (const auto& [what, differ] : differs)
    if (differ)
      return what;
  return "";
}

// Throws InputError, naming the workload's key, where the profile's framework cannot run it.
void refuse_unsupported(const Profile& profile, const Workload& w) {
  if (const auto unsupported =
          unsupported_by(profile.supports, profile.name, w.parallelism, w.training, profile.fp8_recast_per_use))
    throw InputError(w.source + ": " + unsupported->key, unsupported->why);
}

} // namespace

KernelListing list_kernels(const std::string& platform_path, const Workload& workload, const DataPaths& data) {
  check_workload(workload);
  const Platform platform = Platform::load(platform_path);
  const Profile profile = load_workload_profile(workload, data);
  const GpuCatalog catalog = load_catalog(data);
  refuse_unsupported(profile, workload);
  Cluster cluster(platform, catalog, workload.network, profile, workload.conditions.links, workload.source);
  const Workload w = on_platform(workload, gpus_from(cluster, workload));
  const GpuSpec& gpu = *job_gpus(cluster, w, platform).gpu;
  const ComputeCostModel cost(gpu, profile, w.training, w.source);
  const ExecutionPlan plan = make_plan(w, cost, profile);
  KernelListing listing;
  listing.gpu = gpu.name;
  listing.tables = kernel_table_names(gpu);
  for (const auto& [shape, use] : plan.kernels.shapes())
    listing.rows.push_back({KernelTable::name_of(shape.kind), KernelTable::fields(shape), use.calls, use.seconds,
                            name_of(use.source), use.width});
  listing.time = kernel_time_of(plan.kernels);
  return listing;
}

// The stages in the pipeline's order: the system (cluster), the model's costs and the plan, the
// step's task graph, its replay in SimGrid, then memory and the report read off the timeline.
Report simulate(const Platform& platform, const Workload& workload, const Profile& profile, const GpuCatalog& catalog,
                const SimulationOptions& options) {
  check_workload(workload); // a Workload filled in C++ meets the rules parse_workload applies to a file
  refuse_unsupported(profile, workload);
  const bool traced = !options.trace_path.empty();
  if (traced && options.fidelity == SimulationOptions::Fidelity::estimate)
    throw InputError("--trace", "draws a replayed step: --fidelity estimate replays none (use symmetric or full)");
  // Checked and made before the simulation, so that an unwritable path fails at once; never a
  // file the simulation reads (platform, workload, profile, GPU catalog), which it would replace.
  std::optional<OutputFile> trace;
  if (traced) {
    std::vector<std::string> inputs{platform.path, workload.source, profile.file};
    inputs.insert(inputs.end(), catalog.files().begin(), catalog.files().end());
    trace.emplace(options.trace_path, "--trace", inputs);
  }
  Cluster cluster(platform, catalog, workload.network, profile, workload.conditions.links, workload.source);
  return simulate_on(platform, on_platform(workload, gpus_from(cluster, workload)), profile, catalog, options, cluster,
                     trace);
}

} // namespace simgpt

namespace simgpt {

std::vector<Report> simulate_jobs(const std::string& platform_path, const std::vector<Workload>& workloads,
                                  const DataPaths& data, const SimulationOptions& options) {
  if (workloads.size() < 2)
    return {simulate(platform_path, workloads.at(0), data, options)};
  if (!options.trace_path.empty())
    throw InputError("--trace", "draws one job's step: trace each job alone (its --workload)");
  if (options.fidelity == SimulationOptions::Fidelity::estimate)
    throw InputError("--fidelity", "estimate prices a job alone; jobs sharing a fabric need a replay (symmetric or full)");
  const size_t n = workloads.size();
  std::vector<Profile> profiles;
  for (const Workload& w : workloads) {
    check_workload(w);
    profiles.push_back(load_workload_profile(w, data));
    refuse_unsupported(profiles.back(), w);
  }
  // The fabric's: the first job's transfer settings and network what-if, every job's link conditions.
  std::vector<LinkCondition> links;
  for (size_t j = 0; j < n; ++j) {
    if (j > 0)
      if (const std::string what =
              fabric_difference(profiles[0], profiles[j], workloads[0].network, workloads[j].network);
          !what.empty())
        throw InputError(workloads[j].source, fmt::format("shares {}'s fabric, but {} differs from that job's: jobs on "
                                                          "one fabric move their bytes alike",
                                                          workloads[0].source, what));
    for (const LinkCondition& l : workloads[j].conditions.links) {
      if (std::any_of(links.begin(), links.end(), [&](const LinkCondition& o) { return o.link == l.link; }))
        throw InputError(workloads[j].source + ": conditions",
                         fmt::format("{} is conditioned by an earlier job's workload too: the fabric's conditions "
                                     "are one, written once",
                                     echo(l.link)));
      links.push_back(l);
    }
  }
  const Platform platform = Platform::load(platform_path);
  const GpuCatalog catalog = load_catalog(data);
  Cluster cluster(platform, catalog, workloads[0].network, profiles[0], links, workloads[0].source);
  std::vector<PreparedJob> jobs;
  for (size_t j = 0; j < n; ++j) {
    jobs.push_back(prepare_job(platform, on_platform(workloads[j], gpus_from(cluster, workloads[j])), profiles[j],
                               cluster));
    const PreparedJob& job = jobs.back();
    for (size_t k = 0; k < j; ++k) {
      const int a = jobs[k].gpus.first, b = a + jobs[k].plan.gpus(), c = job.gpus.first, d = c + job.plan.gpus();
      if (c < b && a < d)
        throw InputError(job.w.source + ": placement.first_gpu",
                         fmt::format("the job's GPUs {} to {} overlap {}'s GPUs {} to {}: jobs sharing a fabric each "
                                     "run on their own (set placement.first_gpu and placement.gpus)",
                                     c, d - 1, jobs[k].w.source, a, b - 1));
    }
  }
  // What each job's communication crosses, which no other job's collective may take for its own.
  std::vector<std::vector<const void*>> footprint;
  for (size_t j = 0; j < n; ++j)
    footprint.push_back(communication_links(jobs[j].plan, profiles[j], ClusterTopology(cluster, jobs[j].gpus.first)));
  std::vector<std::unique_ptr<StepGraph>> steps;
  std::vector<PlacedStep> placed_jobs;
  for (size_t j = 0; j < n; ++j) {
    std::vector<const void*> foreign;
    for (size_t k = 0; k < n; ++k)
      if (k != j)
        foreign.insert(foreign.end(), footprint[k].begin(), footprint[k].end());
    const ClusterTopology topology(cluster, jobs[j].gpus.first, std::move(foreign));
    StepGraphOptions graph_options{.isolate_collectives = options.isolate_collectives, .symmetric = false,
                                   .gpu_slowdown = jobs[j].slowdown};
    graph_options.max_tasks /= n; // the jobs' graphs together in half the machine's memory
    steps.emplace_back(new StepGraph(step_graph_of(jobs[j].plan, profiles[j], topology, jobs[j].w, graph_options)));
    if (cluster.has_links_down())
      cluster.check_not_down(global_pairs(communicating_pairs(*steps.back()), jobs[j].gpus.first));
    placed_jobs.push_back({steps.back().get(), jobs[j].gpus.first});
  }
  const PlacedSteps placed(placed_jobs);
  const Timeline all = replay(placed.graph, cluster, placed.isolated);
  std::vector<Report> reports;
  for (size_t j = 0; j < n; ++j) {
    const PreparedJob& job = jobs[j];
    const StepGraph& step = *steps[j];
    const Timeline timeline = placed.timeline_of(j, all, step);
    check_finite(step.graph, timeline, job.w.source + " on " + platform.path);
    Report r = assemble_report(platform, job.w, profiles[j], *job.gpus.gpu, *job.gpus.memory_gpu, job.plan, step,
                               timeline, "full");
    r.inputs = report_inputs(platform, job.w, profiles[j], catalog, *job.gpus.gpu);
    r.first_gpu = job.gpus.first;
    r.neighbour_jobs = static_cast<int>(n - 1);
    if (job.gpus.mixed)
      r.gpu_models = gpu_models(job.gpus);
    if (job.w.conditions.gpu_conditions() || !links.empty()) {
      Workload own = job.w;
      own.conditions.links = links; // the fabric's, whichever workload wrote them
      r.conditions = conditions_report(own, job.conditions, job.gpus.first, &step, &timeline, cluster);
    }
    reports.push_back(std::move(r));
  }
  return reports;
}

} // namespace simgpt
