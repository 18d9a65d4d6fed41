#include "execution/step_graph/slowdown.hpp"

#include <algorithm>
#include <stdexcept>

namespace simgpt::step_graph {

std::vector<double> stream_slowdowns(const StepGraph& step, const std::vector<double>& factor) {
  if (factor.size() != step.compute_stream.size())
    throw std::logic_error("a slowdown per GPU of the step is needed");
  std::vector<double> stream(factor.size(), 1.0);
  for (size_t gpu = 0; gpu < factor.size(); ++gpu) {
    double& f = stream[static_cast<size_t>(step.compute_stream[gpu])];
    f = std::max(f, factor[gpu]);
  }
  return stream;
}

void slow_down(StepGraph& step, const std::vector<double>& factor) {
  const std::vector<double> stream = stream_slowdowns(step, factor);
  TaskGraph& g = step.graph;
  const auto of = [&stream](int gpu) { return gpu >= 0 && static_cast<size_t>(gpu) < stream.size() ? stream[static_cast<size_t>(gpu)] : 1.0; };
  for (TaskId v = 0; v < boost::num_vertices(g); ++v)
    if (Task& t = g[v]; t.kind == Task::Kind::compute)
      t.seconds *= of(t.gpu);
  for (FoldedCollective& c : g[boost::graph_bundle].folded) {
    const double f = of(g[c.task].gpu);
    c.kernels_before_s *= f;
    c.kernels_after_s *= f;
    c.overlap_s *= f;
  }
  for (KernelPiece& piece : step.kernel_pieces)
    piece.seconds *= of(g[piece.task].gpu);
}

} // namespace simgpt::step_graph
