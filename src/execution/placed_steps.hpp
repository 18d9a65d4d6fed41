// Steps of jobs placed on a platform's GPUs, as one task graph the replay runs: a job placed from
// a GPU other than the first (placement.first_gpu), or several jobs sharing a fabric, each on its
// own GPUs, whose flows meet on the links they share.
#pragma once

#include "execution/step_graph.hpp"

#include <utility>
#include <vector>

namespace simgpt {

struct PlacedStep {
  const StepGraph* step = nullptr;
  int first_gpu = 0; // the platform's GPU of the job's GPU 0
};

// The jobs' tasks in order, each job's GPUs renumbered as the platform numbers them, its isolated
// groups and folded collectives after the earlier jobs'. Built where it stays: Boost's graph has
// no move constructor.
struct PlacedSteps {
  TaskGraph graph;
  std::vector<std::vector<Ring>> isolated;
  std::vector<size_t> first_task;   // per job: its first task in `graph`
  std::vector<size_t> first_folded; // per job: its first folded collective

  explicit PlacedSteps(const std::vector<PlacedStep>& jobs);
  PlacedSteps(const PlacedSteps&) = delete;
  PlacedSteps& operator=(const PlacedSteps&) = delete;

  // Job j's part of the replayed timeline, indexed as its own step's tasks.
  Timeline timeline_of(size_t j, const Timeline& all, const StepGraph& step) const;
};

} // namespace simgpt
