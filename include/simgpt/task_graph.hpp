// The task graph: every compute kernel group and every transfer of one training step, with
// the dependencies between them (data, and the order of each CUDA/NCCL stream) as edges.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include <vector>

namespace simgpt {

struct Task {
  enum class Kind { compute, transfer };
  enum class Phase { forward, backward, optimizer, activation, gradient };
  Kind kind = Kind::compute;
  Phase phase = Phase::forward;
  int gpu = -1;  // compute: the GPU; transfer: the sender
  int peer = -1; // transfer: the receiver
  int stage = -1;
  int micro_batch = -1;
  int chunk = 0;
  double seconds = 0; // compute time
  double bytes = 0;   // transfer payload
};

using TaskGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task>;
using TaskId = TaskGraph::vertex_descriptor;

// When each task ran, indexed by TaskId.
struct Timeline {
  std::vector<double> start;
  std::vector<double> finish;
  double makespan() const;
};

// The longest chain of dependencies that ends at the last task to finish, walking back through
// the predecessor that finished last (the one the task waited for).
std::vector<TaskId> critical_path(const TaskGraph& g, const Timeline& t);

} // namespace simgpt
