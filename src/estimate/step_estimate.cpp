#include "estimate/step_estimate.hpp"

#include "estimate/pass_time.hpp"
#include "execution/schedule.hpp"
#include "execution/step_graph/parallel_groups.hpp"
#include "execution/tcp_connections.hpp"
#include "simgpt/framework/profile.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

namespace simgpt {
namespace {

using step_graph::central_ps_broadcasts;
using step_graph::dp_collective_algorithm;
using step_graph::dp_gradient_collective;
using step_graph::dp_group;
using step_graph::expert_dp_groups;
using step_graph::tp_group;

// Each stage's passes in its schedule's order: a pass starts when its stage is free and its input
// from the neighbouring virtual stage has arrived (Megatron's p2p transfers, each tensor rank its
// 1/tp slice). As the replay streams them (execution/replay), the messages from one stage to the
// next go one after another: a message's bytes leave once the one before it has left (after the
// TCP window's ramp on a connection that idled: execution/tcp_connections), and it arrives one
// route latency after its last byte left.
class PipelineWalk {
  const ExecutionPlan& plan_;
  const Profile& profile_;
  CollectiveCosts& costs_;
  PassTimes& passes_;
  const int V, M;
  std::vector<double> forward_, backward_, rerun_backward_; // per virtual stage
  std::vector<double> arrival_;                             // per (virtual stage, micro-batch, pass): its input's
  std::map<std::pair<int, int>, double> link_free_; // when the last message's bytes left
  struct Transfer {
    int from = 0, to = 0; // the first tensor rank's GPUs, whose connection stands for the others'
    double bytes = 0, bytes_s = 0, latency_s = 0;
  };
  std::map<std::pair<int, int>, Transfer> transfer_;
  TcpConnections tcp_;

public:
  struct Stage {
    std::vector<PipelineStep> steps;
    size_t next = 0;
    double free = 0, compute = 0, last_send = 0;
    std::vector<GradientReady> gradients; // absolute times, in the order the backward makes them
  };
  std::vector<Stage> stages;

  PipelineWalk(const ExecutionPlan& plan, const Profile& profile, CollectiveCosts& costs, PassTimes& passes)
      : plan_(plan), profile_(profile), costs_(costs), passes_(passes), V(plan.pp * plan.chunks),
        M(plan.micro_batches), arrival_(static_cast<size_t>(V * M * 2), -1), tcp_(costs.cluster()),
        stages(static_cast<size_t>(plan.pp)) {
    for (int v = 0; v < V; ++v) {
      forward_.push_back(passes_.forward(v));
      backward_.push_back(passes_.backward(v, false));
      rerun_backward_.push_back(plan.recompute == Recompute::full ? passes_.backward(v, true) : backward_.back());
    }
    for (int s = 0; s < plan.pp; ++s)
      stages[static_cast<size_t>(s)].steps = stage_schedule(plan.schedule, s, plan.pp, M, plan.chunks, plan.flushes, plan.interleaved_all_warmup);
  }

  void run() {
    for (bool progress = true; progress;) {
      progress = false;
      for (int s = 0; s < plan_.pp; ++s)
        while (advance(s))
          progress = true;
    }
    for (const Stage& st : stages)
      if (st.next != st.steps.size())
        throw std::logic_error("estimate: a pipeline schedule waits for a pass that never runs");
  }

private:
  double& arrival(int v, int micro_batch, bool forward) {
    return arrival_[static_cast<size_t>((v * M + micro_batch) * 2 + (forward ? 1 : 0))];
  }

  // Runs stage s's next pass if its input has arrived.
  bool advance(int s) {
    Stage& st = stages[static_cast<size_t>(s)];
    if (st.next == st.steps.size())
      return false;
    const PipelineStep& step = st.steps[st.next];
    const bool forward = step.pass == PipelineStep::Pass::forward;
    const int v = step.chunk * plan_.pp + s;
    double start = st.free;
    if (forward ? v > 0 : v < V - 1) {
      const double input = arrival(v, step.micro_batch, forward);
      if (input < 0)
        return false;
      start = std::max(start, input);
    }
    const bool rerun = plan_.recompute == Recompute::full &&
                       (profile_.recompute_last_micro_batch || step.micro_batch < M - 1);
    const double seconds = forward ? forward_[static_cast<size_t>(v)]
                                   : (rerun ? rerun_backward_ : backward_)[static_cast<size_t>(v)];
    if (!forward && step.micro_batch == M - 1) {
      std::vector<GradientReady> ready;
      passes_.backward(v, rerun, &ready);
      for (GradientReady& g : ready) {
        g.at += start;
        st.gradients.push_back(g);
      }
    }
    const double end = start + seconds;
    st.compute += seconds;
    st.free = end;
    const int to = forward ? v + 1 : v - 1;
    if (to >= 0 && to < V) {
      const int s_to = to % plan_.pp;
      double arrives = end;
      if (s_to != s) {
        const Transfer& t = transfer(s, s_to);
        double& link = link_free_[{s, s_to}];
        const double starts = std::max(end, link);
        link = starts + tcp_.message_starts(t.from, t.to, t.bytes, starts) + t.bytes_s;
        tcp_.message_left(t.from, t.to, link);
        arrives = link + t.latency_s;
        st.last_send = arrives;
        if (profile_.p2p_blocking)
          st.free = arrives;
      }
      arrival(to, step.micro_batch, forward) = arrives;
    }
    ++st.next;
    return true;
  }

  // One tensor rank's slice from stage s to stage s_to, while every replica's ranks send theirs.
  const Transfer& transfer(int s, int s_to) {
    auto known = transfer_.find({s, s_to});
    if (known != transfer_.end())
      return known->second;
    const double bytes = plan_.activation_bytes / plan_.tp;
    std::vector<CollectiveFlow> all;
    for (int d = 0; d < plan_.dp; ++d)
      for (int t = 0; t < plan_.tp; ++t)
        all.push_back({plan_.gpu(s, d, t), plan_.gpu(s_to, d, t), bytes});
    Transfer t{all.front().from, all.front().to, bytes, 0, costs_.route_latency(all.front().from, all.front().to)};
    t.bytes_s = costs_.transfer_seconds(all.front(), {all.begin() + 1, all.end()}) - t.latency_s;
    return transfer_.emplace(std::make_pair(s, s_to), t).first->second;
  }
};

// The step graph's gradient synchronisation of one stage (step_graph/gradient_sync): buckets in
// the order the backward makes them, one after another on one stream, each once its gradients are
// final (with overlap) or once the backward is done; the last after the stage's last send.
class StageSync {
  const ExecutionPlan& plan_;
  const Profile& profile_;
  CollectiveCosts& costs_;

public:
  StageSync(const ExecutionPlan& plan, const Profile& profile, CollectiveCosts& costs)
      : plan_(plan), profile_(profile), costs_(costs) {}

  // When stage s's gradients are synchronised.
  double synchronised(int s, const PipelineWalk::Stage& st) {
    double done = st.free;
    if (plan_.dp < 2)
      return done;
    std::vector<GradientReady> dense, experts;
    for (const GradientReady& g : st.gradients) {
      const bool apart = plan_.ep > 1 && g.expert_bytes > 0;
      dense.push_back({g.at, apart ? g.bytes - g.expert_bytes : g.bytes, 0, g.tensors});
      if (apart)
        experts.push_back({g.at, g.expert_bytes, 0});
    }
    done = std::max(done, buckets(dense, st, dp_groups(s)));
    if (plan_.dp > plan_.ep && plan_.ep > 1)
      done = std::max(done, buckets(experts, st, expert_groups(s)));
    return done;
  }

  // The optimizer's all-gather of the updated weights (a sharded optimizer), after the update;
  // under overlap_param_gather the forward's (pass_time.cpp).
  double gather_seconds(int s, const PipelineWalk::Stage& st) {
    if (!(plan_.sharded_optimizer() && plan_.dp > 1 && plan_.zero < 3) || plan_.overlap_param_gather)
      return 0;
    double dense = 0, experts = 0;
    // The weights as they are held (GradientSync::update).
    for (const GradientReady& g : st.gradients) {
      const bool apart = plan_.ep > 1 && g.expert_bytes > 0;
      dense += apart ? g.weight_bytes - g.expert_weight_bytes : g.weight_bytes;
      experts += apart ? g.expert_weight_bytes : 0;
    }
    GroupFamily groups = dp_groups(s);
    double seconds =
        costs_.seconds(groups.groups().front(), CollectiveKind::allgather, CollectiveAlgorithm::ring, dense, groups);
    if (experts > 0 && plan_.dp > plan_.ep) {
      GroupFamily e = expert_groups(s);
      seconds = std::max(seconds, costs_.seconds(e.groups().front(), CollectiveKind::allgather,
                                                 CollectiveAlgorithm::ring, experts, e));
    }
    return seconds;
  }

private:
  GroupFamily dp_groups(int s) const {
    std::vector<std::vector<int>> groups;
    for (int t = 0; t < plan_.tp; ++t)
      groups.push_back(dp_group(plan_, s, t));
    return GroupFamily(std::move(groups));
  }

  // Every tensor rank's expert-data-parallel groups.
  GroupFamily expert_groups(int s) const {
    std::vector<std::vector<int>> groups;
    for (int t = 0; t < plan_.tp; ++t)
      for (std::vector<int>& members : expert_dp_groups(plan_, s, t))
        groups.push_back(std::move(members));
    return GroupFamily(std::move(groups));
  }

  double buckets(const std::vector<GradientReady>& gradients, const PipelineWalk::Stage& st, GroupFamily groups) {
    const bool zero3 = plan_.zero >= 3;
    // ZeRO-3 is a sharded optimizer: its gradients are reduce-scattered.
    const CollectiveKind kind = dp_gradient_collective(plan_);
    const bool early = profile_.dp_overlap || zero3; // ZeRO-3 reduce-scatters each unit as it is final
    double free = 0, bucket = 0;
    for (const step_graph::GradientCall& call : step_graph::gradient_calls(gradients, profile_.dp_per_tensor && !zero3)) {
      const size_t i = call.point;
      bucket += call.bytes;
      const bool last = i + 1 == gradients.size() && call.last_of_point;
      if (!call.flush && !last && (!early || (!zero3 && bucket < profile_.dp_bucket_bytes)))
        continue;
      double ready = early ? gradients[i].at : st.free;
      if (!early || last)
        ready = std::max(ready, st.last_send);
      free = std::max(free, ready) +
             costs_.seconds(groups.groups().front(), kind, dp_collective_algorithm(plan_), bucket, groups);
      if (central_ps_broadcasts(plan_)) // the reduce's sum broadcast back
        free += costs_.seconds(groups.groups().front(), CollectiveKind::broadcast, dp_collective_algorithm(plan_),
                               bucket, groups);
      bucket = 0;
    }
    return free;
  }
};

} // namespace

StepEstimate estimate_step(const ExecutionPlan& plan, const Profile& profile, CollectiveCosts& costs) {
  costs.take_contended(); // of this step's prices only
  PassTimes passes(plan, profile, costs);
  PipelineWalk walk(plan, profile, costs, passes);
  walk.run();
  StageSync sync(plan, profile, costs);
  StepEstimate out;
  for (int s = 0; s < plan.pp; ++s) {
    const PipelineWalk::Stage& st = walk.stages[static_cast<size_t>(s)];
    const double optimizer = optimizer_seconds(plan, s);
    StageTimes times;
    times.compute_s = st.compute + optimizer;
    times.end_s = sync.synchronised(s, st) + optimizer + sync.gather_seconds(s, st);
    out.step_time_s = std::max(out.step_time_s, times.end_s);
    out.stages.push_back(times);
  }
  out.contended = costs.take_contended();
  return out;
}

} // namespace simgpt
