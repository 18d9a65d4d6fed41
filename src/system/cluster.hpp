// The system domain: a SimGrid platform of GPU hosts and links, with the network what-if
// (tc netem on each node's outgoing interface) applied. One per process: SimGrid's engine
// is a singleton.
#pragma once

#include "simgpt/system/gpu.hpp"
#include "simgpt/system/platform.hpp"
#include "simgpt/system/rings.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/workload/workload.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace simgrid::s4u {
class Engine;
class Host;
class Link;
} // namespace simgrid::s4u

namespace simgpt {

struct GpuHost {
  simgrid::s4u::Host* host = nullptr;
  const GpuSpec* gpu = nullptr;
  int node = 0;
};

class Cluster {
public:
  // Loads the platform (a file Platform::load checked), checks every host names a catalog GPU,
  // applies the what-if. Throws InputError for a malformed platform.
  Cluster(const Platform& platform, const GpuCatalog& catalog, const NetworkWhatIf& network,
          const Profile& profile);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // GPU hosts in index order (gpu-0, gpu-1, ...).
  const std::vector<GpuHost>& gpus() const { return gpus_; }
  simgrid::s4u::Engine& engine() { return *engine_; }

  // The narrowest link's bandwidth and the latency of the route from GPU a to GPU b.
  double route_bandwidth(int a, int b) const;
  double route_latency(int a, int b) const;
  // The links of the route from GPU a to GPU b that flows share: all but FATPIPE links.
  std::vector<const simgrid::s4u::Link*> shared_links(int a, int b) const;
  // Each link's bandwidth, latency and whether it is a FATPIPE, on the route from GPU a to GPU b.
  std::vector<double> route_signature(int a, int b) const;
  // The group's routes and direct links, for the ring search (system/rings).
  GroupLinks links(const std::vector<int>& gpus) const;
  // The rings NCCL would spread a collective over the group (nccl_rings of its links).
  std::vector<Ring> rings(const std::vector<int>& gpus) const;
  const std::string& path() const { return path_; }
  // Throws InputError naming the hosts if two of the first `used` GPUs have no route, or a route
  // with a hop that has no link.
  void check_routes(int64_t used) const;
  // The same for the route from GPU `from` to GPU `to`.
  void check_route(int from, int to) const;

private:
  void start_engine(const Profile& profile);
  void check_links() const;
  void read_gpus(const GpuCatalog& catalog);
  std::shared_ptr<const std::unordered_set<const simgrid::s4u::Link*>> apply_what_if(const NetworkWhatIf& network);
  void set_transfer_rates(std::shared_ptr<const std::unordered_set<const simgrid::s4u::Link*>> nics,
                          const Profile& profile);

  std::string path_;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  std::vector<GpuHost> gpus_;
};

} // namespace simgpt
