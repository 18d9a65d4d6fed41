#include "simgpt/plan.hpp"

#include "simgpt/compute_cost.hpp"
#include "simgpt/model.hpp"
#include "simgpt/profile.hpp"
#include "simgpt/schedule.hpp"

#include <map>

namespace simgpt {
namespace {

// Bytes the optimizer step reads and writes per parameter. Adam: master weight, gradient and two
// moments in fp32, read and written (the gradient only read); mixed precision adds reading the
// half-precision gradient and writing the half-precision weight copy. SGD with momentum: weight
// and momentum read and written, gradient read.
double optimizer_bytes_per_parameter(const TrainingSpec& t) {
  const bool mixed = t.precision != Precision::fp32;
  if (t.optimizer == Optimizer::adam)
    return 4 * 7 + (mixed ? 2 + 2 : 0);
  return 4 * 5 + (mixed ? 2 + 2 : 0);
}

} // namespace

PipelinePlan make_pipeline_plan(const Workload& w, const ComputeCostModel& cost, const Profile& profile) {
  PipelinePlan plan;
  plan.stages = static_cast<int>(w.parallelism.pp);
  plan.chunks = static_cast<int>(w.parallelism.chunks);
  plan.micro_batches = static_cast<int>(w.micro_batches());
  plan.blocking_p2p = profile.p2p_blocking;
  for (int s = 0; s < plan.stages; ++s)
    plan.gpu_of_stage.push_back(s);

  const Shard shard{w.training.micro_batch, w.parallelism.tp, w.training.precision};
  const KernelForm form = cost.form();
  const Kernels layer_forward = transformer_forward(w.model, shard, form);
  const Kernels layer_backward = backward_of(layer_forward);
  Kernels recompute;
  if (w.training.recompute == Recompute::full)
    recompute = layer_forward;
  else if (w.training.recompute == Recompute::selective)
    recompute = attention_core_forward(w.model, shard, form);
  const Kernels embedding = embedding_forward(w.model, shard);
  const Kernels head = head_forward(w.model, shard);

  const double layer_f = cost.seconds(layer_forward);
  const double layer_b = cost.seconds(layer_backward) + cost.seconds(recompute);
  const double optimizer_bandwidth = cost.gpu().memory_bandwidth * cost.gpu().memory_efficiency;
  const double opt_bytes = optimizer_bytes_per_parameter(w.training);

  const int virtual_stages = plan.stages * plan.chunks;
  const int layers = static_cast<int>(w.model.layers / virtual_stages);
  for (int v = 0; v < virtual_stages; ++v) {
    StageCost c;
    c.layers = layers;
    c.forward_s = layers * layer_f + profile.microbatch_overhead_s;
    c.backward_s = layers * layer_b + profile.microbatch_overhead_s;
    double params = layers * layer_parameters(w.model, w.parallelism.tp);
    if (v == 0) {
      c.forward_s += cost.seconds(embedding);
      c.backward_s += cost.seconds(backward_of(embedding));
      params += embedding_parameters(w.model, w.parallelism.tp);
    }
    if (v == virtual_stages - 1) {
      c.forward_s += cost.seconds(head);
      c.backward_s += cost.seconds(backward_of(head));
      params += head_parameters(w.model, w.parallelism.tp);
      // An LM head on its own stage keeps a copy of the word embedding it is tied to.
      if (w.model.head == Head::lm && virtual_stages > 1)
        params += static_cast<double>(w.model.vocab * w.model.hidden / w.parallelism.tp);
    }
    c.optimizer_s = params * opt_bytes / optimizer_bandwidth + layers * cost.gpu().kernel_launch_s;
    plan.cost.push_back(c);
  }
  plan.activation_bytes = static_cast<double>(w.training.micro_batch * w.model.seq_len * w.model.hidden) *
                          element_bytes(w.training.precision);
  return plan;
}

TaskGraph build_pipeline_graph(const Workload& w, const PipelinePlan& plan) {
  TaskGraph g;
  const int P = plan.stages, V = plan.stages * plan.chunks, M = plan.micro_batches;
  std::vector<std::vector<TaskId>> forward(V, std::vector<TaskId>(M)), backward(V, std::vector<TaskId>(M));
  std::vector<std::vector<TaskId>> stream(P); // each stage's compute tasks in order

  for (int s = 0; s < P; ++s) {
    for (const PipelineStep& step : stage_schedule(w.parallelism.schedule, s, P, M, plan.chunks)) {
      const int v = step.chunk * P + s;
      const bool fwd = step.pass == PipelineStep::Pass::forward;
      Task t;
      t.kind = Task::Kind::compute;
      t.phase = fwd ? Task::Phase::forward : Task::Phase::backward;
      t.gpu = plan.gpu_of_stage[s];
      t.stage = s;
      t.micro_batch = step.micro_batch;
      t.chunk = step.chunk;
      t.seconds = fwd ? plan.cost[v].forward_s : plan.cost[v].backward_s;
      TaskId id = boost::add_vertex(t, g);
      (fwd ? forward : backward)[v][step.micro_batch] = id;
      if (!stream[s].empty())
        boost::add_edge(stream[s].back(), id, g);
      stream[s].push_back(id);
    }
    Task opt;
    opt.phase = Task::Phase::optimizer;
    opt.gpu = plan.gpu_of_stage[s];
    opt.stage = s;
    for (int c = 0; c < plan.chunks; ++c)
      opt.seconds += plan.cost[c * P + s].optimizer_s;
    TaskId id = boost::add_vertex(opt, g);
    boost::add_edge(stream[s].back(), id, g);
    stream[s].push_back(id);
  }

  // Position of each compute task in its stream, to find the task after a blocking send.
  std::vector<int> position(boost::num_vertices(g), -1);
  for (int s = 0; s < P; ++s)
    for (size_t i = 0; i < stream[s].size(); ++i)
      position[stream[s][i]] = static_cast<int>(i);

  // Transfers, issued in the order their producers run, one stream per direction of a stage pair.
  std::map<std::pair<int, int>, TaskId> last_on_link;
  for (int s = 0; s < P; ++s) {
    for (TaskId producer : std::vector<TaskId>(stream[s])) {
      const Task p = g[producer];
      if (p.phase == Task::Phase::optimizer)
        continue;
      const int v = p.chunk * P + s;
      const bool fwd = p.phase == Task::Phase::forward;
      const int to = fwd ? v + 1 : v - 1;
      if (to < 0 || to >= V)
        continue;
      const TaskId consumer = fwd ? forward[to][p.micro_batch] : backward[to][p.micro_batch];
      const int dst = plan.gpu_of_stage[to % P];
      if (dst == p.gpu) {
        boost::add_edge(producer, consumer, g);
        continue;
      }
      Task t;
      t.kind = Task::Kind::transfer;
      t.phase = fwd ? Task::Phase::activation : Task::Phase::gradient;
      t.gpu = p.gpu;
      t.peer = dst;
      t.stage = s;
      t.micro_batch = p.micro_batch;
      t.chunk = p.chunk;
      t.bytes = plan.activation_bytes;
      TaskId id = boost::add_vertex(t, g);
      boost::add_edge(producer, id, g);
      boost::add_edge(id, consumer, g);
      auto link = std::make_pair(p.gpu, dst);
      if (auto prev = last_on_link.find(link); prev != last_on_link.end())
        boost::add_edge(prev->second, id, g);
      last_on_link[link] = id;
      if (plan.blocking_p2p) {
        const auto next = static_cast<size_t>(position[producer] + 1);
        if (next < stream[s].size())
          boost::add_edge(id, stream[s][next], g);
      }
    }
  }
  return g;
}

} // namespace simgpt
