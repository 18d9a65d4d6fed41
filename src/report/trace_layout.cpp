#include "report/trace_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
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
struct CollectiveFlows {
  std::set<int> members;
  std::map<int, double> sent;
};

void add_flows(const TaskGraph& g, TaskId from, TaskId exit, std::set<TaskId>& seen, CollectiveFlows& c) {
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

// Everything the layout collects before it assigns tracks.
struct Collected {
  std::vector<TraceSlice> slices;
  std::vector<TrackGroup> groups;             // per slice
  std::vector<std::vector<int>> member_sets;  // collective groups, by id (first seen first)
};

void collect_collective(const TaskGraph& g, const Timeline& t, TaskId exit, Collected& out,
                        std::map<std::vector<int>, int>& group_ids) {
  const auto entry = static_cast<TaskId>(g[exit].entry);
  CollectiveFlows flows;
  std::set<TaskId> seen;
  add_flows(g, entry, exit, seen, flows);
  std::vector<int> members(flows.members.begin(), flows.members.end());
  if (members.empty())
    return;
  auto [it, fresh] = group_ids.try_emplace(members, static_cast<int>(out.member_sets.size()));
  if (fresh)
    out.member_sets.push_back(members);
  for (int gpu : members) {
    TraceSlice s;
    s.role = Role::collective;
    s.task = exit;
    s.gpu = gpu;
    s.start_ns = trace_ns(t.start[entry]);
    s.end_ns = trace_ns(t.finish[exit]);
    s.members = static_cast<int>(members.size());
    s.bytes = flows.sent[gpu];
    out.slices.push_back(s);
    out.groups.push_back({gpu, Role::collective, it->second});
  }
}

Collected collect(const TaskGraph& g, const Timeline& t) {
  Collected out;
  std::map<std::vector<int>, int> group_ids;
  auto add = [&](Role role, TaskId v, int gpu, int key) {
    out.slices.push_back({role, v, gpu, 0, trace_ns(t.start[v]), trace_ns(t.finish[v])});
    out.groups.push_back({gpu, role, key});
  };
  for (TaskId v = 0; v < boost::num_vertices(g); ++v) {
    const Task& task = g[v];
    if (task.kind == Task::Kind::compute && task.seconds > 0) {
      add(Role::compute, v, task.gpu, 0);
    } else if (task.kind == Task::Kind::transfer && !task.collective) {
      add(Role::send, v, task.gpu, task.peer);
      add(Role::receive, v, task.peer, task.gpu);
    } else if (task.kind == Task::Kind::delay && task.collective && task.entry >= 0) {
      collect_collective(g, t, v, out, group_ids);
    }
  }
  return out;
}

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

std::string track_name(const TrackGroup& group, int lane, const Collected& c,
                       const std::vector<std::array<int, 3>>& rank) {
  std::string name;
  switch (group.role) {
  case Role::compute: name = "compute"; break;
  case Role::send: name = fmt::format("p2p send to GPU {}", group.key); break;
  case Role::receive: name = fmt::format("p2p recv from GPU {}", group.key); break;
  case Role::collective:
    name = collective_track_name(c.member_sets[static_cast<size_t>(group.key)], rank);
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

TraceLayout lay_out_trace(const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan) {
  Collected c = collect(g, t);
  std::map<TrackGroup, std::vector<size_t>> by_group;
  for (size_t i = 0; i < c.slices.size(); ++i)
    by_group[c.groups[i]].push_back(i);
  const auto rank = gpu_ranks(plan);
  TraceLayout out;
  out.slices.reserve(c.slices.size());
  for (auto& [group, members] : by_group) {
    const std::vector<int> lanes = assign_lanes(members, c.slices);
    const int count = lanes.empty() ? 0 : *std::max_element(lanes.begin(), lanes.end()) + 1;
    for (int lane = 0; lane < count; ++lane) {
      const int track = static_cast<int>(out.tracks.size());
      out.tracks.push_back({group.gpu, track + 1, track_name(group, lane, c, rank)});
      for (size_t k = 0; k < members.size(); ++k)
        if (lanes[k] == lane) {
          out.slices.push_back(c.slices[members[k]]);
          out.slices.back().track = track;
        }
    }
  }
  for (int gpu = 0; gpu < plan.gpus(); ++gpu)
    out.process_tids.push_back(static_cast<int>(out.tracks.size()) + 1 + gpu); // a GPU without tracks
  for (auto track = out.tracks.rbegin(); track != out.tracks.rend(); ++track)
    out.process_tids[static_cast<size_t>(track->gpu)] = track->tid;
  return out;
}

} // namespace simgpt
