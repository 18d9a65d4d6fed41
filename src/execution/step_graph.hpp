// Builds the task graph of one training step from an execution plan: each GPU's compute
// stream in schedule order, tensor-parallel collectives inside layers, pipeline transfers
// between stages, data-parallel gradient synchronisation and the optimizer step.
#pragma once

#include "execution/collective.hpp"
#include "simgpt/execution/plan.hpp"
#include "execution/task_graph.hpp"

#include <map>
#include <string>
#include <vector>

namespace simgpt {

// What the graph builder needs to know of the network.
class Topology {
public:
  virtual ~Topology() = default;
  virtual std::vector<Ring> rings(const std::vector<int>& gpus) const = 0;
  virtual double route_latency(int a, int b) const = 0;
};

struct CollectiveCount {
  int count = 0;      // over all groups
  int first_gpu = 0;  // those GPU 0 takes part in: what one rank runs, as frameworks count them
  double bytes = 0; // bytes each member sends, summed over collectives and members
};

struct StepGraph {
  TaskGraph graph;
  std::map<std::string, CollectiveCount> collectives; // by kind, per step
  int p2p_transfers = 0;
  double p2p_bytes = 0;
};

// How finely the graph records each GPU's kernels. By default consecutive kernels on a stream
// merge into one task until something must synchronise with them (fewer tasks to replay), and
// the forward rerun by recompute merges into the backward. A detailed graph (for traces) splits
// compute tasks per layer (Task::layer) and gives the rerun its own phase (Phase::recompute):
// the same dependencies and the same kernel times, only more tasks.
struct StepGraphOptions {
  bool detailed = false;
};

StepGraph build_step_graph(const ExecutionPlan& plan, const Topology& topology, const StepGraphOptions& options = {});

} // namespace simgpt
