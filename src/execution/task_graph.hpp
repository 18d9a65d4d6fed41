// The task graph: every compute kernel group, transfer and collective of one training step,
// with the dependencies between them (data, and the order of each CUDA/NCCL stream) as edges.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include <optional>
#include <vector>

namespace simgpt {

struct Task {
  enum class Kind {
    compute,  // kernels on one GPU's compute stream
    transfer, // one point-to-point flow over the platform's route
    delay     // a fixed time that uses no resource (collective step latencies, joins)
  };
  enum class Phase { forward, backward, optimizer, activation, gradient, collective };
  Kind kind = Kind::compute;
  Phase phase = Phase::forward;
  int gpu = -1;  // compute: the GPU; transfer: the sender
  int peer = -1; // transfer: the receiver
  int stage = -1;
  int micro_batch = -1;
  int chunk = 0;
  double seconds = 0; // compute or delay time
  double bytes = 0;   // transfer payload
  long entry = -1;    // a collective's exit task: its entry task (the collective's start)
};

// Edges stored in vectors (not lists): a step has millions of them.
using TaskGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task, boost::no_property,
                                        boost::no_property, boost::vecS>;
using TaskId = TaskGraph::vertex_descriptor;

// When each task ran, indexed by TaskId.
struct Timeline {
  std::vector<double> start;
  std::vector<double> finish;
  double makespan() const;
};

// The predecessor of `v` that finished last (the first of them on a tie): what `v` waited for.
// nullopt when `v` has none.
std::optional<TaskId> last_finished_predecessor(const TaskGraph& g, const Timeline& t, TaskId v);

// The longest chain of dependencies that ends at the last task to finish, walking back through
// the predecessor that finished last (the one the task waited for).
std::vector<TaskId> critical_path(const TaskGraph& g, const Timeline& t);

} // namespace simgpt
