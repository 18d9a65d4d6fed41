#include "memory/timeline.hpp"

#include "simgpt/memory/memory.hpp"
#include "simgpt/model/model.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace simgpt {
namespace {

// What one stage's layers hold: parameters, and per model chunk the activations a micro-batch
// keeps for its backward (`kept`) or would keep without recompute (`full`).
struct StageFootprint {
  double params = 0;
  double layer_params = 0; // of its transformer layers alone
  std::vector<double> kept, full;
  double transient = 0;    // the largest working set beyond the kept activations
};

StageFootprint stage_footprint(int stage, const ExecutionPlan& plan, const Workload& w, const Profile& profile) {
  const auto& m = w.model;
  const auto& par = w.parallelism;
  const double layer_kept =
      layer_activation_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel, w.training.recompute,
                             w.training.precision, profile.dropout, profile.memory.recompute_kept,
                             profile.memory.replicated_kept, plan.softmax_fp32);
  const double layer_full =
      layer_activation_bytes(m, w.training.micro_batch, par.tp, par.sequence_parallel, Recompute::none,
                             w.training.precision, profile.dropout, 1, profile.memory.replicated_kept,
                             plan.softmax_fp32);
  // Selective recompute under FlashAttention reruns nothing (see recomputes_attention_core).
  const bool recompute =
      w.training.recompute == Recompute::full || recomputes_attention_core(m, w.training.recompute);
  const bool stage_checkpoint = w.training.recompute == Recompute::full && profile.memory.checkpoint_stages;
  const int V = plan.pp * plan.chunks;
  StageFootprint f;
  f.kept.resize(static_cast<size_t>(plan.chunks));
  f.full.resize(f.kept.size());
  for (int c = 0; c < plan.chunks; ++c) {
    const int v = c * plan.pp + stage;
    const StageCost& cost = plan.stages[static_cast<size_t>(v)];
    const auto ci = static_cast<size_t>(c);
    f.params += cost.parameters;
    f.layer_params += cost.layers * layer_parameters(m, par.tp);
    f.full[ci] = cost.layers * layer_full;
    if (stage_checkpoint) {
      // One checkpoint spans the stage's layers: it keeps their input once, and recomputing it
      // for the backward materialises all its layers' activations at once.
      f.kept[ci] = layer_kept;
      f.transient = std::max(f.transient, f.full[ci] - layer_kept);
    } else {
      f.kept[ci] = cost.layers * layer_kept;
      // Recomputing a layer for its backward materialises all its activations again.
      if (recompute)
        f.transient = std::max(f.transient, layer_full - layer_kept / std::max(1, cost.layers));
    }
    // The LM head's logits (vocabulary-parallel) and what the loss derives from them.
    if (v == V - 1 && m.head == Head::lm)
      f.transient = std::max(f.transient, profile.memory.logits_bytes *
                                              static_cast<double>(w.training.micro_batch * m.seq_len) *
                                              static_cast<double>(m.vocab) / static_cast<double>(par.tp));
  }
  // ZeRO-3 prefetch: while a layer computes, the gathered (unsharded) weights of the next
  // `zero3_prefetch_layers` layers are already allocated (FSDP's BACKWARD_PRE holds the current
  // and next unit's parameters at its peak; DeepSpeed's prefetch bucket likewise).
  if (plan.zero >= 3 && plan.dp > 1)
    f.transient += plan.zero3_prefetch_layers * plan.layer.param_bytes;
  return f;
}

struct ActivationPeak {
  double bytes = 0, time_s = 0;
  int in_flight = 0;
};

// The compute tasks of each GPU, in task order.
std::vector<std::vector<TaskId>> compute_tasks_by_gpu(const TaskGraph& g, int gpus) {
  std::vector<std::vector<TaskId>> tasks(static_cast<size_t>(gpus));
  for (TaskId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].kind == Task::Kind::compute && g[v].gpu >= 0 && g[v].gpu < gpus)
      tasks[static_cast<size_t>(g[v].gpu)].push_back(v);
  return tasks;
}

// (time, order: frees first, bytes): a micro-batch's activations allocated or freed.
using ActivationEvents = std::vector<std::tuple<double, int, double>>;

// Activations alive over time on one GPU, from its compute tasks: allocated when a micro-batch's
// forward starts, freed when its backward ends (the same micro-batch may span several tasks,
// merged or per layer, its recompute included).
ActivationEvents activation_events(const std::vector<TaskId>& gpu_tasks, const StageFootprint& f, const TaskGraph& g,
                                   const Timeline& t, const ExecutionPlan& plan, const Workload& w,
                                   const Profile& profile) {
  std::map<std::pair<int, int>, std::pair<double, double>> life; // (mb, chunk) -> (alloc, free)
  for (TaskId v : gpu_tasks) {
    const Task& task = g[v];
    if (task.micro_batch < 0)
      continue;
    auto [it, fresh] = life.try_emplace({task.micro_batch, task.chunk}, t.start[v], 0.0);
    if (task.phase == Task::Phase::forward)
      it->second.first = fresh ? t.start[v] : std::min(it->second.first, t.start[v]);
    else
      it->second.second = std::max(it->second.second, t.finish[v]);
  }
  ActivationEvents events;
  for (const auto& [key, span] : life) {
    double bytes = f.kept[static_cast<size_t>(key.second)];
    // A micro-batch that is not checkpointed keeps all its activations.
    if (!profile.recompute_last_micro_batch && key.first == plan.micro_batches - 1 &&
        w.training.recompute == Recompute::full)
      bytes = f.full[static_cast<size_t>(key.second)];
    events.emplace_back(span.first, 1, bytes);
    events.emplace_back(span.second, 0, -bytes);
  }
  std::sort(events.begin(), events.end());
  return events;
}

ActivationPeak activation_peak(const ActivationEvents& events) {
  ActivationPeak peak;
  double live = 0;
  int count = 0;
  for (const auto& [time, order, bytes] : events) {
    live += bytes;
    count += bytes > 0 ? 1 : -1;
    if (live > peak.bytes)
      peak = {live, time, count};
  }
  return peak;
}

// A stage's resident state on one of its GPUs: its weights, gradients and optimizer state.
struct ResidentState {
  double weights = 0, gradients = 0, optimizer_state = 0;
  double gradients_at_activation_peak = 0; // those already allocated when the backward starts
};

ResidentState resident_state(const StageFootprint& f, const ExecutionPlan& plan, const Workload& w,
                             const Profile& profile) {
  const StateBytes per_param = state_bytes_per_parameter(w.training);
  const bool sharded_state = plan.sharded_optimizer() && plan.dp > 1;
  const double dp = static_cast<double>(plan.dp);
  // Reduce-scattered gradients (ZeRO-2, Alpa's reduce-scatter option) keep only their shard.
  const bool sharded_gradients = plan.zero >= 2 || (plan.dp_algorithm == DpAlgorithm::reduce_scatter && plan.dp > 1);
  const double gradient_share = per_param.gradients / (sharded_gradients ? dp : 1);
  ResidentState state;
  state.weights = f.params * per_param.weights / (plan.zero >= 3 ? dp : 1);
  state.gradients = f.params * gradient_share;
  state.optimizer_state = f.params * per_param.optimizer / (sharded_state ? dp : 1);
  // Without a persistent buffer and without accumulation, a layer's gradients appear as its
  // backward frees its activations: at the activation peak (the backward's start) only the
  // gradients of the parameters outside the transformer layers (embedding, head) exist yet.
  const bool gradients_grow = !profile.memory.persistent_gradients && plan.micro_batches == 1;
  state.gradients_at_activation_peak = gradients_grow ? (f.params - f.layer_params) * gradient_share : state.gradients;
  return state;
}

} // namespace

void add_memory(std::vector<StageReport>& stages, const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                const Workload& w, const Profile& profile, const GpuSpec& gpu) {
  const std::vector<std::vector<TaskId>> tasks = compute_tasks_by_gpu(g, plan.gpus());
  for (StageReport& r : stages) {
    MemoryReport& mem = r.memory;
    const StageFootprint f = stage_footprint(r.stage, plan, w, profile);
    const ResidentState state = resident_state(f, plan, w, profile);
    mem.weights = state.weights;
    mem.gradients = state.gradients;
    mem.optimizer_state = state.optimizer_state;
    const double gradients_at_activation_peak = state.gradients_at_activation_peak;
    const ActivationPeak peak =
        activation_peak(activation_events(tasks[static_cast<size_t>(r.gpu)], f, g, t, plan, w, profile));
    mem.activations = peak.bytes;
    mem.peak_time_s = peak.time_s;
    mem.in_flight = peak.in_flight;
    mem.transient = f.transient;
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

std::vector<MemorySeries> memory_over_time(const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                                           const Workload& w, const Profile& profile) {
  const std::vector<std::vector<TaskId>> tasks = compute_tasks_by_gpu(g, plan.gpus());
  std::vector<MemorySeries> out(static_cast<size_t>(plan.gpus()));
  for (int s = 0; s < plan.pp; ++s) {
    const StageFootprint f = stage_footprint(s, plan, w, profile);
    const ResidentState state = resident_state(f, plan, w, profile);
    const double resident = state.weights + state.gradients_at_activation_peak + state.optimizer_state;
    for (int d = 0; d < plan.dp; ++d)
      for (int r = 0; r < plan.tp; ++r) {
        MemorySeries& series = out[static_cast<size_t>(plan.gpu(s, d, r))];
        series.gpu = plan.gpu(s, d, r);
        series.stage = s;
        series.points = {{0.0, resident}};
        double live = 0;
        int in_flight = 0;
        for (const auto& [time, order, bytes] :
             activation_events(tasks[static_cast<size_t>(series.gpu)], f, g, t, plan, w, profile)) {
          live += bytes;
          in_flight += bytes > 0 ? 1 : -1;
          if (in_flight == 0)
            live = 0; // no rounding residue once every micro-batch has freed its activations
          // Events at one time (a free and the next allocation) make one point: the value after all.
          if (series.points.back().time_s != time)
            series.points.push_back({time, 0});
          series.points.back().bytes = resident + live;
        }
      }
  }
  return out;
}

void judge_memory(Report& r) {
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
}

} // namespace simgpt
