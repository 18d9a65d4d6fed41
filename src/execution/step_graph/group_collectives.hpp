// Collectives over groups of GPUs, added to the step's graph as add_collective lays them out
// (collective.hpp), with the count by kind that the reports give.
#pragma once

#include "execution/collective.hpp"
#include "execution/collective_timing.hpp"
#include "execution/step_graph.hpp"

#include <array>
#include <cstddef>
#include <map>
#include <vector>

namespace simgpt::step_graph {

class GroupCollectives {
  const Profile& profile_; // the framework's overhead per ring step
  const Topology& topology_;
  StepGraph& out_; // the graph the collectives join, and their counts
  size_t max_tasks_;
  std::map<std::vector<int>, GroupRings> rings_; // per group, as searched
  const std::map<std::vector<int>, int>* whole_ = nullptr; // groups whose collectives are one task each
  // By kind: its entry in the graph's counts, once made.
  std::array<CollectiveCount*, std::size(kCollectiveKindNames)> counts_{};
  // add_whole's task, its timing given.
  TaskId whole_task(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind, double bytes, int index,
                    bool measured, const CollectiveTiming& t);

public:
  GroupCollectives(const Profile& profile, const Topology& topology, StepGraph& out, size_t max_tasks)
      : profile_(profile), topology_(topology), out_(out), max_tasks_(max_tasks) {}

  // A group's rings and step latency: the same every time, so searched once.
  const GroupRings& rings(const std::vector<int>& gpus);

  // Counts a collective of the group for the reports, by kind and by the dimension it serves.
  // `times`: how many groups' alike collectives this one stands for.
  // `from_table`: priced by a kernel table's measured line (CollectiveTiming::from_table).
  void count(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind, double bytes, int times = 1,
             bool from_table = false);

  // Whether a kernel table's measured line prices the group's collective (CollectiveTiming::
  // from_table), asked only where its GPU's table has lines: a count needs no timing otherwise.
  bool from_table(const std::vector<int>& gpus, CollectiveKind kind, double bytes, bool library = true);

  // What a ring collective of the group pays beyond its flows (execution/collective_timing;
  // `library` false: not the collective library's, a flex dispatcher's exchange).
  CollectiveTiming timing(const std::vector<int>& gpus, CollectiveKind kind, double bytes, bool library = true);

  // A collective of the group replayed whole (Task::Kind::isolated_collective over
  // StepGraph::isolated[`index`]): one task of its flows' bytes and step latencies, not counted.
  // `measured`: whether the replay takes its flows' time as that of the others like it (Task::unmeasured).
  TaskId add_whole(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind, double bytes, int index,
                   bool measured = true, bool library = true);

  // The groups whose ring collectives are replayed whole, by their index in StepGraph::isolated
  // (StandIns::whole_index).
  void replay_whole(const std::map<std::vector<int>, int>& groups) { whole_ = &groups; }

  // Adds a collective over the group's rings to the graph, its tasks marked with the dimension it
  // serves, and counts it: entry, flows and exit, or for a group replayed whole with the ring
  // algorithm one task (Task::Kind::isolated_collective, its entry and exit). `counted` false: a
  // part of a collective that the caller counts whole.
  CollectiveTasks add(CommDimension dimension, const std::vector<int>& gpus, CollectiveKind kind, double bytes,
                      CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring, int times = 1, bool counted = true,
                      bool library = true);
};

} // namespace simgpt::step_graph
