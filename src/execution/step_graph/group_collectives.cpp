#include "execution/step_graph/group_collectives.hpp"

#include "execution/collective_timing.hpp"
#include "execution/step_graph/task_limit.hpp"
#include "system/kernel_table.hpp"
#include "simgpt/framework/profile.hpp"

#include <algorithm>
#include <utility>

namespace simgpt::step_graph {

const GroupRings& GroupCollectives::rings(const std::vector<int>& gpus) {
  auto known = rings_.find(gpus);
  if (known == rings_.end())
    known = rings_.emplace(gpus, group_rings(profile_, topology_, gpus)).first;
  return known->second;
}

void GroupCollectives::count(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind, double bytes,
                             int times, bool from_table) {
  CollectiveCount*& by_kind = counts_.at(static_cast<size_t>(kind));
  if (!by_kind) // a map's entries stay where they are
    by_kind = &out_.collectives[to_string(kind)];
  const bool first_gpu = std::find(gpus.begin(), gpus.end(), 0) != gpus.end();
  const auto n = static_cast<int>(gpus.size());
  const double sent = times * bytes_sent_per_member(kind, n, bytes) * n;
  for (CollectiveCount* count : {by_kind, &out_.communication[dimension]}) {
    count->count += times;
    count->first_gpu += first_gpu ? 1 : 0;
    count->bytes += sent;
    count->from_table += from_table ? times : 0;
  }
}

CollectiveTasks GroupCollectives::add(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind,
                                      double bytes, CollectiveAlgorithm algorithm, int times, bool counted,
                                      bool library) {
  check_task_limit(out_.graph, max_tasks_);
  if (algorithm == CollectiveAlgorithm::ring && whole_)
    if (auto whole = whole_->find(gpus); whole != whole_->end()) {
      const CollectiveTiming t = timing(gpus, kind, bytes, library);
      const TaskId id = whole_task(dimension, gpus, kind, bytes, whole->second, true, t);
      if (counted)
        count(dimension, gpus, kind, bytes, times, t.from_table);
      return {id, id};
    }
  const GroupRings& group = rings(gpus);
  const TaskId first = boost::num_vertices(out_.graph);
  const CollectiveTiming t = timing(gpus, kind, bytes, library);
  CollectiveTasks c = add_collective(out_.graph, kind, algorithm, group.rings, bytes, group.step_latency, t);
  for (TaskId v = first; v < boost::num_vertices(out_.graph); ++v) // its entry, flows, joins and exit
    out_.graph[v].dimension = dimension;
  if (counted)
    count(dimension, gpus, kind, bytes, times, t.from_table);
  return c;
}

TaskId GroupCollectives::add_whole(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind,
                                   double bytes, int index, bool measured, bool library) {
  return whole_task(dimension, gpus, kind, bytes, index, measured, timing(gpus, kind, bytes, library));
}

TaskId GroupCollectives::whole_task(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind,
                                    double bytes, int index, bool measured, const CollectiveTiming& t) {
  Task task;
  task.kind = Task::Kind::isolated_collective;
  task.phase = Task::Phase::collective;
  task.collective = kind;
  task.dimension = dimension;
  task.gpu = gpus.front();
  task.peer = index;
  task.bytes = bytes * t.byte_factor; // what its flows carry; the count keeps the buffer's
  task.seconds = t.exit_latency_s;
  task.unmeasured = !measured;
  return boost::add_vertex(task, out_.graph);
}

bool GroupCollectives::from_table(const std::vector<int>& gpus, CollectiveKind kind, double bytes, bool library) {
  const KernelTable* table = topology_.kernel_table(gpus.front());
  return library && table && table->collective_lines() > 0 && timing(gpus, kind, bytes, library).from_table;
}

CollectiveTiming GroupCollectives::timing(const std::vector<int>& gpus, CollectiveKind kind, double bytes,
                                          bool library) {
  return collective_timing(profile_, topology_, rings(gpus).rings, kind, bytes, library);
}

} // namespace simgpt::step_graph
