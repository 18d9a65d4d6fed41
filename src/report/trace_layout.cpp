#include "report/trace_layout.hpp"

#include "execution/collective.hpp"
#include "execution/step_graph/parallel_groups.hpp"
#include "report/trace_stand_ins.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace simgpt {

std::int64_t trace_ns(double seconds) { return std::llround(seconds * 1e9); }

std::vector<std::array<int, 3>> gpu_ranks(const ExecutionPlan& plan) {
  std::vector<std::array<int, 3>> rank(static_cast<size_t>(plan.gpus()));
  for (int s = 0; s < plan.pp; ++s)
    for (int d = 0; d < plan.dp; ++d)
      for (int r = 0; r < plan.tp; ++r)
        rank[static_cast<size_t>(plan.gpu(s, d, r))] = {s, d, r};
  return rank;
}

namespace {

using Role = TraceSlice::Role;

// Slices that share a set of tracks: one GPU's compute, its sends to one peer, its receives
// from one peer, or its collectives of one group (`key`: the peer, or the group's id).
struct TrackGroup {
  int gpu = 0;
  Role role = Role::compute;
  int key = 0;
  auto operator<=>(const TrackGroup&) const = default;
};

// A collective's GPUs and the bytes each sends: its flows, found between its entry and exit
// (the direct algorithm's two phases meet at a middle delay, hence the walk).
struct DrawnCollectiveFlows {
  std::set<int> members;
  std::map<int, double> sent;
};

void add_flows(const TaskGraph& g, TaskId from, TaskId exit, std::set<TaskId>& seen, DrawnCollectiveFlows& c) {
  for (auto [e, end] = boost::out_edges(from, g); e != end; ++e) {
    const TaskId u = boost::target(*e, g);
    if (u == exit || !g[u].collective || !seen.insert(u).second)
      continue;
    if (g[u].kind == Task::Kind::transfer) {
      c.members.insert(g[u].gpu);
      c.members.insert(g[u].peer);
      c.sent[g[u].gpu] += g[u].bytes;
    }
    add_flows(g, u, exit, seen, c);
  }
}

// The slices drawn, with the track group of each; or only their count.
class Collected {
public:
  Collected(const Timeline* t, const TraceWindow& window, size_t max_slices, bool store)
      : t_(t), start_ns_(trace_ns(window.start_s)),
        end_ns_(std::isfinite(window.end_s) ? trace_ns(window.end_s) : std::numeric_limits<std::int64_t>::max()),
        max_(max_slices), store_(store) {}

  // Times `s` from `first`'s start to `last`'s finish (or the part [from, to) of that time);
  // whether it is drawn: it overlaps the window, or is an instant inside it. All are, uncounted.
  bool timed(TraceSlice& s, TaskId first, TaskId last, double from = 0, double to = 1) const {
    if (!t_)
      return true;
    const double start = t_->start[first], length = t_->finish[last] - start;
    s.start_ns = trace_ns(start + length * from);
    s.end_ns = to == 1 ? trace_ns(t_->finish[last]) : trace_ns(start + length * to);
    return s.start_ns < end_ns_ && (s.end_ns > start_ns_ || s.start_ns >= start_ns_);
  }
  // Times `s` from `start` to `end` (seconds; none without a timeline); whether it is drawn.
  bool timed_at(TraceSlice& s, double start, double end) const {
    if (!t_)
      return true;
    s.start_ns = trace_ns(start);
    s.end_ns = trace_ns(end);
    return s.start_ns < end_ns_ && (s.end_ns > start_ns_ || s.start_ns >= start_ns_);
  }
  const Timeline* timeline() const { return t_; }
  // A timed slice, on a track of `group`.
  void add(const TraceSlice& s, const TrackGroup& group) {
    if (++count_ > max_)
      throw TraceTooLarge("too many slices");
    if (!store_)
      return;
    slices_.push_back(s);
    groups_.push_back(group);
  }
  // The collective track group of `gpu` in a group of `members` (ascending).
  TrackGroup collective_group(int gpu, const std::vector<int>& members) {
    if (!store_)
      return {gpu, Role::collective, 0};
    auto [it, fresh] = group_ids_.try_emplace(members, static_cast<int>(member_sets_.size()));
    if (fresh)
      member_sets_.push_back(members);
    return {gpu, Role::collective, it->second};
  }

  size_t count() const { return count_; }
  bool stores() const { return store_; }
  std::vector<TraceSlice>& slices() { return slices_; }
  const std::vector<TrackGroup>& groups() const { return groups_; }
  const std::vector<std::vector<int>>& member_sets() const { return member_sets_; }

private:
  const Timeline* t_;
  std::int64_t start_ns_, end_ns_;
  size_t max_, count_ = 0;
  bool store_;
  std::vector<TraceSlice> slices_;
  std::vector<TrackGroup> groups_;            // per slice
  std::vector<std::vector<int>> member_sets_; // collective groups, by id (first seen first)
  std::map<std::vector<int>, int> group_ids_;
};

// Walks the step's graph for the slices of the drawn GPUs.
class SliceWalk {
public:
  SliceWalk(const StepGraph& step, const ExecutionPlan& plan, const std::vector<int>& gpus, Collected& out)
      : step_(step), g_(step.graph), plan_(plan), stand_ins_(step, plan), out_(out),
        drawn_(static_cast<size_t>(plan.gpus())), by_communication_(static_cast<size_t>(plan.gpus())),
        by_stream_(static_cast<size_t>(plan.gpus())) {
    for (int gpu : gpus) {
      drawn_[static_cast<size_t>(gpu)] = true;
      by_communication_[static_cast<size_t>(stand_ins_.communication(gpu))].push_back(gpu);
      by_stream_[static_cast<size_t>(stand_ins_.compute(gpu))].push_back(gpu);
    }
  }

  void run() {
    for (TaskId v = 0; v < boost::num_vertices(g_); ++v) {
      const Task& task = g_[v];
      if (task.kind == Task::Kind::isolated_collective && !on_compute_stream(task)) {
        collective(v);
      } else if (task.gpu >= 0 && (task.kind == Task::Kind::compute || task.kind == Task::Kind::isolated_collective)) {
        const std::vector<int>& gpus = by_stream_[static_cast<size_t>(task.gpu)];
        if (task.kind == Task::Kind::compute && task.entry >= 0) {
          if (!gpus.empty())
            folding(v, gpus);
        } else if (task.kind == Task::Kind::compute)
          for (int gpu : gpus)
            compute(v, gpu);
        else if (!gpus.empty())
          isolated_collective(v, gpus);
      } else if (task.kind == Task::Kind::transfer && !task.collective) {
        transfer(v);
      } else if (task.kind == Task::Kind::delay && task.phase == Task::Phase::offload) {
        copy(v);
      } else if (task.kind == Task::Kind::delay && task.collective && task.entry >= 0) {
        collective(v);
      }
    }
  }

private:
  // A compute task's pieces (the task whole when its stream recorded none).
  void compute(TaskId v, int gpu) {
    const Task& task = g_[v];
    if (task.seconds <= 0)
      return;
    TraceSlice s{.role = Role::compute, .phase = task.phase, .task = v, .gpu = gpu};
    const auto [first, last] =
        std::equal_range(step_.kernel_pieces.begin(), step_.kernel_pieces.end(), KernelPiece{.task = v},
                         [](const KernelPiece& a, const KernelPiece& b) { return a.task < b.task; });
    if (first == last) {
      if (out_.timed(s, v, v))
        out_.add(s, {gpu, Role::compute, 0});
      return;
    }
    double done = 0;
    for (auto piece = first; piece != last; ++piece) {
      s.phase = piece->phase;
      s.layer = piece->layer;
      const double from = done / task.seconds;
      done += piece->seconds;
      if (out_.timed(s, v, v, from, piece + 1 == last ? 1 : done / task.seconds))
        out_.add(s, {gpu, Role::compute, 0});
    }
  }

  // A compute task with collectives folded into it, on each of `gpus` (those whose stream ran it):
  // its kernel pieces (its kernels whole between collectives when its stream recorded none), each
  // from where the one before ended, and each collective between them as the isolated collective
  // it is like, at the times the replay gave them (walk_task_parts, as task_end).
  void folding(TaskId v, const std::vector<int>& gpus) {
    const Task& task = g_[v];
    const std::vector<FoldedCollective>& folded = folded_collectives(g_);
    // Not a structured binding: the lambdas below capture them (clang 15 cannot).
    const auto pieces =
        std::equal_range(step_.kernel_pieces.begin(), step_.kernel_pieces.end(), KernelPiece{.task = v},
                         [](const KernelPiece& a, const KernelPiece& b) { return a.task < b.task; });
    const auto first = pieces.first, last = pieces.second;
    const Timeline* t = out_.timeline();
    auto piece = first;
    auto next = static_cast<size_t>(task.entry); // the collective the next kernels come before
    auto draw = [&](TraceSlice s, double from, double to) {
      for (int gpu : gpus) {
        s.gpu = gpu;
        if (out_.timed_at(s, from, to))
          out_.add(s, {gpu, Role::compute, 0});
      }
    };
    // The kernels from `from` to `to`: the pieces before the next collective's, the last ending
    // at `to` (the task's end, after the last collective).
    auto kernels = [&](double from, double to) {
      const bool tail = next >= folded.size() || folded[next].task != v;
      const int before = tail ? static_cast<int>(last - first) : folded[next].pieces_before;
      const double seconds = tail ? folded[next - 1].kernels_after_s : folded[next].kernels_before_s;
      if (tail && t)
        to = t->finish[v];
      if (first == last && seconds > 0)
        draw({.role = Role::compute, .phase = task.phase, .task = v}, from, to);
      for (double at = from; piece != last && piece - first < before; ++piece) {
        const double end = piece + 1 == last || piece + 1 - first == before ? to : at + piece->seconds;
        if (piece->seconds > 0)
          draw({.role = Role::compute, .phase = piece->phase, .layer = piece->layer, .task = v}, at, end);
        at = end;
      }
    };
    auto collective = [&](size_t i, double from, double to) {
      TraceSlice slice{.role = Role::collective, .task = v, .folded = static_cast<long>(i),
                       .members = group_size(g_[folded[i].measured])};
      if (out_.timed_at(slice, from, to))
        isolated_collective(folded[i].measured, gpus, slice);
      next = i + 1;
    };
    walk_task_parts(g_, v, t ? t->start[v] : 0, t ? std::span<const double>(t->folded) : std::span<const double>(),
                    kernels, collective);
  }

  // A collective replayed whole (a tensor-parallel group's, or a folded expert-parallel group's
  // all-to-all), on each of `gpus` (those whose stream ran it) with its share of the flows: that
  // of its place in the group whose rings the collective ran over, its own or its stand-in's.
  void isolated_collective(TaskId v, const std::vector<int>& gpus) {
    TraceSlice slice{.role = Role::collective, .task = v, .members = group_size(g_[v])};
    if (out_.timed(slice, v, v))
      isolated_collective(v, gpus, slice);
  }

  // The members of an isolated collective's group: a tensor-parallel group, or ep replicas.
  int group_size(const Task& task) const {
    return task.dimension == CommDimension::ep ? plan_.expert_group_size() : plan_.tp;
  }

  // A GPU's place in the group of isolated collective `task`: its tensor rank, or its replica's
  // place in the expert-parallel group.
  int place(const Task& task, int gpu) const {
    if (task.dimension != CommDimension::ep)
      return stand_ins_.rank(gpu)[2];
    // Its replica's place, and where a group spans the tensor ranks (expert_group) its rank in it.
    const int replica = stand_ins_.rank(gpu)[1] % plan_.ep;
    return plan_.expert_group_tp > 1 ? replica * plan_.tp + stand_ins_.rank(gpu)[2] : replica;
  }

  // The timed slice of isolated collective v (or of one like it, folded) on each of `gpus`.
  void isolated_collective(TaskId v, const std::vector<int>& gpus, TraceSlice& slice) {
    const Task& task = g_[v];
    std::map<int, double> sent; // by place in the group
    if (out_.stores())
      for (const CollectiveFlow& flow :
           isolated_collective_flows(*task.collective, step_.isolated.at(static_cast<size_t>(task.peer)), task.bytes))
        sent[place(task, flow.from)] += flow.bytes;
    for (int gpu : gpus) {
      const auto& [s, d, t] = stand_ins_.rank(gpu);
      std::vector<int> members;
      if (out_.stores()) {
        members = task.dimension == CommDimension::ep ? step_graph::expert_group(plan_, s, d - d % plan_.ep, t)
                                                      : step_graph::tp_group(plan_, s, d);
        std::sort(members.begin(), members.end());
      }
      slice.gpu = gpu;
      slice.bytes = sent[place(task, gpu)];
      out_.add(slice, out_.collective_group(gpu, members));
    }
  }

  // An offloaded layer's copy to or from the host's memory, on each drawn GPU whose stream ran it.
  void copy(TaskId v) {
    const Task& task = g_[v];
    TraceSlice s{.role = Role::copy, .phase = task.phase, .task = v};
    if (task.seconds <= 0 || !out_.timed(s, v, v))
      return;
    for (int gpu : by_stream_[static_cast<size_t>(task.gpu)]) {
      s.gpu = gpu;
      out_.add(s, {gpu, Role::copy, 0});
    }
  }

  void transfer(TaskId v) {
    const Task& task = g_[v];
    TraceSlice s{.task = v};
    if (!out_.timed(s, v, v))
      return;
    for (int gpu : by_communication_[static_cast<size_t>(task.gpu)]) {
      s.role = Role::send;
      s.gpu = gpu;
      s.peer = stand_ins_.rename(gpu, task.peer);
      out_.add(s, {gpu, Role::send, s.peer});
    }
    for (int gpu : by_communication_[static_cast<size_t>(task.peer)]) {
      s.role = Role::receive;
      s.gpu = gpu;
      s.peer = stand_ins_.rename(gpu, task.gpu);
      out_.add(s, {gpu, Role::receive, s.peer});
    }
  }

  // A collective's slice on each drawn member, and on each drawn GPU it stands for: by its exit,
  // or the one task of a collective replayed whole on the data-parallel stream.
  void collective(TaskId exit) {
    const Task& task = g_[exit];
    const bool whole = task.kind == Task::Kind::isolated_collective;
    const auto entry = whole ? exit : static_cast<TaskId>(task.entry);
    TraceSlice s{.role = Role::collective, .task = exit};
    if (!out_.timed(s, entry, exit)) // all members' arrival to the end
      return;
    DrawnCollectiveFlows flows;
    if (whole) {
      for (const CollectiveFlow& flow :
           isolated_collective_flows(*task.collective, step_.isolated.at(static_cast<size_t>(task.peer)), task.bytes)) {
        flows.members.insert(flow.from);
        flows.members.insert(flow.to);
        flows.sent[flow.from] += flow.bytes;
      }
    } else {
      std::set<TaskId> seen;
      add_flows(g_, entry, exit, seen, flows);
    }
    if (flows.members.empty())
      return;
    const std::vector<int> members(flows.members.begin(), flows.members.end());
    auto add = [&](int gpu, int source, const std::vector<int>& group) {
      s.gpu = gpu;
      s.members = static_cast<int>(group.size());
      s.bytes = flows.sent[source];
      out_.add(s, out_.collective_group(gpu, group));
    };
    for (int member : members) {
      if (drawn_[static_cast<size_t>(member)])
        add(member, member, members);
      for (int gpu : by_communication_[static_cast<size_t>(member)]) {
        if (flows.members.count(gpu))
          continue; // drawn with its own flows
        std::vector<int> renamed;
        for (int m : members)
          renamed.push_back(stand_ins_.rename(gpu, m));
        std::sort(renamed.begin(), renamed.end());
        add(gpu, member, renamed);
      }
    }
  }

  const StepGraph& step_;
  const TaskGraph& g_;
  const ExecutionPlan& plan_;
  const TraceStandIns stand_ins_;
  Collected& out_;
  std::vector<bool> drawn_;
  std::vector<std::vector<int>> by_communication_; // per GPU: the drawn GPUs whose communication it simulates
  std::vector<std::vector<int>> by_stream_;        // per GPU: the drawn GPUs whose compute it runs
};

// "0-3", "0,8,16,24": a group's GPUs, runs of consecutive ones joined, long lists cut.
std::string gpu_list(const std::vector<int>& gpus) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < gpus.size();) {
    size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1)
      ++j;
    parts.push_back(j == i ? fmt::format("{}", gpus[i]) : fmt::format("{}-{}", gpus[i], gpus[j]));
    i = j + 1;
  }
  constexpr size_t kShown = 6;
  if (parts.size() <= kShown)
    return fmt::format("{}", fmt::join(parts, ","));
  parts.resize(kShown);
  return fmt::format("{},... ({} GPUs)", fmt::join(parts, ","), gpus.size());
}

// Tensor-parallel when its GPUs share a stage and replica, data-parallel when they share a
// stage and tensor rank.
std::string collective_track_name(const std::vector<int>& members, const std::vector<std::array<int, 3>>& rank) {
  auto all_share = [&](size_t other) {
    const auto& first = rank[static_cast<size_t>(members.front())];
    return std::all_of(members.begin(), members.end(), [&](int gpu) {
      const auto& x = rank[static_cast<size_t>(gpu)];
      return x[0] == first[0] && x[other] == first[other];
    });
  };
  const char* kind = all_share(1) ? "tensor-parallel collectives" : all_share(2) ? "data-parallel collectives" : "collectives";
  return fmt::format("{} (GPUs {})", kind, gpu_list(members));
}

std::string track_name(const TrackGroup& group, int lane, const std::vector<std::vector<int>>& member_sets,
                       const std::vector<std::array<int, 3>>& rank) {
  std::string name;
  switch (group.role) {
  case Role::compute: name = "compute"; break;
  case Role::send: name = fmt::format("p2p send to GPU {}", group.key); break;
  case Role::receive: name = fmt::format("p2p recv from GPU {}", group.key); break;
  case Role::copy: name = "host copies"; break;
  case Role::collective:
    name = collective_track_name(member_sets[static_cast<size_t>(group.key)], rank);
    break;
  }
  return lane == 0 ? name : fmt::format("{} #{}", name, lane + 1);
}

// Puts each slice of a group on the first of the group's lanes that is free by its start.
std::vector<int> assign_lanes(std::vector<size_t>& members, const std::vector<TraceSlice>& slices) {
  std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
    const TraceSlice &x = slices[a], &y = slices[b];
    return std::tie(x.start_ns, x.end_ns, x.task) < std::tie(y.start_ns, y.end_ns, y.task);
  });
  std::vector<std::int64_t> free_at;
  std::vector<int> lanes;
  for (size_t i : members) {
    const auto lane = std::find_if(free_at.begin(), free_at.end(),
                                   [&](std::int64_t end) { return end <= slices[i].start_ns; });
    lanes.push_back(static_cast<int>(lane - free_at.begin()));
    if (lane == free_at.end())
      free_at.push_back(slices[i].end_ns);
    else
      *lane = slices[i].end_ns;
  }
  return lanes;
}

} // namespace

size_t count_trace_slices(const StepGraph& step, const ExecutionPlan& plan, const std::vector<int>& gpus) {
  Collected counted(nullptr, {}, std::numeric_limits<size_t>::max(), false);
  SliceWalk(step, plan, gpus, counted).run();
  return counted.count();
}

TraceLayout lay_out_trace(const StepGraph& step, const Timeline& t, const ExecutionPlan& plan,
                          const std::vector<int>& gpus, const TraceWindow& window, size_t max_slices) {
  Collected c(&t, window, max_slices, true);
  SliceWalk(step, plan, gpus, c).run();
  std::map<TrackGroup, std::vector<size_t>> by_group;
  for (size_t i = 0; i < c.slices().size(); ++i)
    by_group[c.groups()[i]].push_back(i);
  const auto rank = gpu_ranks(plan);
  TraceLayout out;
  out.gpus = gpus;
  out.slices.reserve(c.slices().size());
  for (auto& [group, members] : by_group) {
    const std::vector<int> lanes = assign_lanes(members, c.slices());
    const int count = lanes.empty() ? 0 : *std::max_element(lanes.begin(), lanes.end()) + 1;
    for (int lane = 0; lane < count; ++lane) {
      const int track = static_cast<int>(out.tracks.size());
      out.tracks.push_back({group.gpu, track + 1, track_name(group, lane, c.member_sets(), rank)});
      for (size_t k = 0; k < members.size(); ++k)
        if (lanes[k] == lane) {
          out.slices.push_back(c.slices()[members[k]]);
          out.slices.back().track = track;
        }
    }
  }
  out.process_tids.assign(static_cast<size_t>(plan.gpus()), -1);
  for (size_t i = 0; i < gpus.size(); ++i) // a GPU without tracks
    out.process_tids[static_cast<size_t>(gpus[i])] = static_cast<int>(out.tracks.size() + 1 + i);
  for (auto track = out.tracks.rbegin(); track != out.tracks.rend(); ++track)
    out.process_tids[static_cast<size_t>(track->gpu)] = track->tid;
  return out;
}

} // namespace simgpt
