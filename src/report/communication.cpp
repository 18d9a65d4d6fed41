#include "report/communication.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

namespace simgpt {
namespace {

using Interval = std::pair<double, double>;
constexpr size_t kDimensions = std::size(kCommDimensionNames);

// The intervals merged: sorted, none overlapping.
std::vector<Interval> merged(std::vector<Interval> in) {
  std::sort(in.begin(), in.end());
  std::vector<Interval> out;
  for (const Interval& i : in) {
    if (i.second <= i.first)
      continue;
    if (!out.empty() && i.first <= out.back().second)
      out.back().second = std::max(out.back().second, i.second);
    else
      out.push_back(i);
  }
  return out;
}

double length(const std::vector<Interval>& merged_intervals) {
  double total = 0;
  for (const auto& [a, b] : merged_intervals)
    total += b - a;
  return total;
}

// How long two merged lists of intervals overlap.
double overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double total = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    total += std::max(0.0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return total;
}

bool takes_part(const TaskGraph& g, TaskId exit, int gpu) {
  for (const auto e : boost::make_iterator_range(boost::in_edges(exit, g))) {
    const Task& flow = g[boost::source(e, g)];
    if (flow.kind == Task::Kind::transfer && (flow.gpu == gpu || flow.peer == gpu))
      return true;
  }
  return false;
}

} // namespace

std::vector<Report::Communication> communication_by_dimension(const StepGraph& step, const Timeline& t,
                                                              const CriticalPathReport& path, int view_gpu) {
  const TaskGraph& g = step.graph;
  std::vector<Interval> compute;
  std::array<std::vector<Interval>, kDimensions> busy;
  auto in_flight = [&](CommDimension d, double a, double b) { busy.at(static_cast<size_t>(d)).emplace_back(a, b); };
  const std::vector<FoldedCollective>& folded = folded_collectives(g);
  for (TaskId v = 0; v < boost::num_vertices(g); ++v) {
    const Task& task = g[v];
    if (task.kind == Task::Kind::compute) {
      if (task.gpu != view_gpu)
        continue;
      // Its kernels compute; a collective folded into it holds the stream only for what the
      // computation beside it does not cover where it is overlapped (tp_comm_overlap,
      // moe_a2a_overlap), none of it at times: it was in flight its whole time, the rest beside
      // the kernels before (taken to end where its hold ends).
      const double finish = t.finish[v];
      walk_task_parts(
          g, v, t.start[v], t.folded,
          [&](double from, double to) {
            if (std::min(to, finish) > from)
              compute.emplace_back(from, std::min(to, finish));
          },
          [&](size_t i, double from, double to) {
            const double whole = std::max(0.0, t.folded[i]) + folded[i].exit_latency_s, end = std::min(to, finish);
            if (end >= from && std::max(whole, end - from) > 0)
              in_flight(g[folded[i].measured].dimension, end - std::max(whole, end - from), end);
          });
    } else if (task.kind == Task::Kind::isolated_collective) {
      if (task.gpu == view_gpu)
        in_flight(task.dimension, t.start[v], t.finish[v]);
    } else if (task.kind == Task::Kind::transfer && !task.collective) { // a pipeline transfer
      if (task.gpu == view_gpu || task.peer == view_gpu)
        in_flight(communication_dimension(task), t.start[v], t.finish[v]);
    } else if (task.kind == Task::Kind::delay && task.phase == Task::Phase::offload) { // an offloaded layer's copy
      if (task.gpu == view_gpu)
        in_flight(task.dimension, t.start[v], t.finish[v]);
    } else if (task.kind == Task::Kind::delay && task.collective && task.entry >= 0) { // a collective's exit
      if (takes_part(g, v, view_gpu))
        in_flight(task.dimension, t.start[static_cast<size_t>(task.entry)], t.finish[v]);
    }
  }
  const std::vector<Interval> computing = merged(std::move(compute));
  std::vector<Report::Communication> out;
  for (const EnumName<CommDimension>& d : kCommDimensionNames) {
    if (d.value == CommDimension::none)
      continue;
    Report::Communication c;
    c.dimension = d.name;
    if (auto count = step.communication.find(d.value); count != step.communication.end()) {
      c.count = count->second.count;
      c.per_gpu = count->second.first_gpu;
      c.bytes = count->second.bytes;
      c.from_table = count->second.from_table;
    }
    const std::vector<Interval> flight = merged(std::move(busy.at(static_cast<size_t>(d.value))));
    c.in_flight_s = length(flight);
    c.hidden_s = overlap(flight, computing);
    if (auto exposed = path.dimension_s.find(d.name); exposed != path.dimension_s.end())
      c.exposed_s = exposed->second;
    out.push_back(c);
  }
  return out;
}

} // namespace simgpt
