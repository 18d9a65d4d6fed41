// The step graph's view of a SimGrid cluster: NCCL's rings over its links, its routes'
// latencies and the links they share. Internal: it takes the Cluster.
#pragma once

#include "execution/step_graph.hpp"
#include "system/cluster.hpp"

namespace simgpt {

class ClusterTopology : public Topology {
public:
  explicit ClusterTopology(const Cluster& cluster) : cluster_(cluster) {}
  std::vector<Ring> rings(const std::vector<int>& gpus) const override { return cluster_.rings(gpus); }
  double route_latency(int a, int b) const override { return cluster_.route_latency(a, b); }
  std::optional<std::vector<const void*>> shared_links(int a, int b) const override {
    const auto links = cluster_.shared_links(a, b);
    return std::vector<const void*>(links.begin(), links.end());
  }
  std::optional<std::vector<double>> route_signature(int a, int b) const override {
    return cluster_.route_signature(a, b);
  }
  int node_of(int gpu) const override { return cluster_.gpus().at(static_cast<size_t>(gpu)).node; }
  double compute_capability(int gpu) const override {
    return cluster_.gpus().at(static_cast<size_t>(gpu)).gpu->compute_capability;
  }
  double route_bandwidth(int a, int b) const override { return cluster_.route_bandwidth(a, b); }
  bool route_over_pcie(int a, int b) const override { return cluster_.route_over_pcie(a, b); }

private:
  const Cluster& cluster_;
};

} // namespace simgpt
