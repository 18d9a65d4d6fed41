// The step graph's view of a SimGrid cluster: NCCL's rings over its links, its routes'
// latencies and the links they share. Internal: it takes the Cluster.
#pragma once

#include "execution/step_graph.hpp"
#include "system/cluster.hpp"

#include <cstdint>
#include <unordered_map>

namespace simgpt {

class ClusterTopology : public Topology {
public:
  // The job's GPU i is the cluster's GPU first_gpu + i (placement.first_gpu), and the links in
  // `foreign` carry other jobs' communication (jobs sharing the fabric).
  explicit ClusterTopology(const Cluster& cluster, int first_gpu = 0, std::vector<const void*> foreign = {})
      : cluster_(cluster), first_(first_gpu), foreign_(std::move(foreign)) {}
  std::vector<Ring> rings(const std::vector<int>& gpus) const override {
    if (first_ == 0)
      return searches_.rings(cluster_.links(gpus));
    std::vector<int> global;
    for (int g : gpus)
      global.push_back(g + first_);
    std::vector<Ring> out = searches_.rings(cluster_.links(global));
    for (Ring& r : out)
      for (int& g : r.gpus)
        g -= first_;
    return out;
  }
  double route_latency(int a, int b) const override { return known(a, b).figures.latency; }
  std::optional<std::vector<const void*>> shared_links(int a, int b) const override {
    const auto& links = known(a, b).shared_links;
    return std::vector<const void*>(links.begin(), links.end());
  }
  std::optional<std::vector<double>> route_signature(int a, int b) const override { return known(a, b).signature; }
  int node_of(int gpu) const override { return cluster_.gpus().at(static_cast<size_t>(gpu + first_)).node; }
  double compute_capability(int gpu) const override {
    return cluster_.gpus().at(static_cast<size_t>(gpu + first_)).gpu->compute_capability;
  }
  double route_bandwidth(int a, int b) const override { return known(a, b).figures.bandwidth; }
  double route_detected_bandwidth(int a, int b) const override { return known(a, b).figures.detected_bandwidth; }
  bool route_over_pcie(int a, int b) const override { return known(a, b).figures.over_pcie; }
  double route_payload_factor(int a, int b) const override { return known(a, b).figures.payload_factor; }
  const KernelTable* kernel_table(int gpu) const override {
    return cluster_.gpus().at(static_cast<size_t>(gpu + first_)).gpu->kernel_table.get();
  }
  HostCpu host_cpu(int gpu) const override { return cluster_.gpus().at(static_cast<size_t>(gpu + first_)).cpu; }
  const std::vector<const void*>& foreign_links() const override { return foreign_; }

private:
  // What a route is, asked of SimGrid once per pair: the step graph asks its figures at every
  // collective's every ring hop (Megatron's 1T on 3,072 GPUs: 30% of its time in route_to), and
  // the links and signature of every replica's and rank's routes to tell which are alike. Routes
  // do not change once the cluster is built (its network what-if is applied then).
  const Cluster::RouteFacts& known(int a, int b) const {
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    auto at = known_.find(key);
    if (at == known_.end())
      at = known_.emplace(key, cluster_.route_facts(a + first_, b + first_)).first;
    return at->second;
  }

  const Cluster& cluster_;
  int first_ = 0;
  std::vector<const void*> foreign_;
  mutable std::unordered_map<uint64_t, Cluster::RouteFacts> known_;
  mutable RingSearches searches_;
};

} // namespace simgpt
