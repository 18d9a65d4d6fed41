// Slow GPUs (workload conditions): a built step's compute on their streams takes longer.
#pragma once

#include "execution/step_graph.hpp"

#include <vector>

namespace simgpt::step_graph {

// Each compute task's kernels (and the kernels around the collectives folded into it, and the
// GEMMs a tensor-parallel collective overlaps) take `factor` times as long, the factor of its
// stream: the largest of the GPUs whose kernels run on it (StepGraph::compute_stream). What a
// framework's host does between kernels is in the same tasks and scales with them: a throttled
// GPU whose launches run ahead of it hides them anyway. Collective and transfer tasks keep their
// time (the network paces those), as do the latencies of isolated collectives.
void slow_down(StepGraph& step, const std::vector<double>& factor);

// The factor of each stream's GPU (indexed by GPU; 1 where no GPU's kernels run on it).
std::vector<double> stream_slowdowns(const StepGraph& step, const std::vector<double>& factor);

} // namespace simgpt::step_graph
