// Each GPU's data-parallel NCCL stream. NCCL runs the collectives of one communicator in the
// order they were issued: ZeRO-3's gathers and gradient reduce-scatters on a GPU's data-parallel
// group queue behind each other.
#pragma once

#include "execution/collective.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace simgpt::step_graph {

class DataParallelStreams {
  TaskGraph& graph_;
  std::vector<std::optional<TaskId>> tail_; // per GPU: the exit of its last collective

public:
  DataParallelStreams(TaskGraph& graph, int gpus) : graph_(graph), tail_(static_cast<size_t>(gpus)) {}

  // The collective starts after the one issued before it on the GPU's stream.
  void queue(int gpu, const CollectiveTasks& c) {
    auto& tail = tail_[static_cast<size_t>(gpu)];
    if (tail)
      boost::add_edge(*tail, c.entry, graph_);
    tail = c.exit;
  }

  const std::optional<TaskId>& tail(int gpu) const { return tail_[static_cast<size_t>(gpu)]; }
};

} // namespace simgpt::step_graph
