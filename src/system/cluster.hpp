// The system domain: a SimGrid platform of GPU hosts and links, with the network what-if
// (tc netem on each node's outgoing interface) applied. One per process: SimGrid's engine
// is a singleton.
#pragma once

#include "simgpt/system/gpu.hpp"
#include "simgpt/system/platform.hpp"
#include "system/rings.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/workload/workload.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace simgrid::s4u {
class Engine;
class Host;
class Link;
} // namespace simgrid::s4u

namespace simgpt {

// What a point-to-point flow from one GPU to another sees of TCP (system/cluster.cpp explains):
// whether it crosses a NIC (TCP sockets; NVLink and PCIe flows are not TCP), its payload rate
// alone on the route, its round trip, and the bytes its sockets may send in their first round
// trip after a (re)start.
struct TcpPath {
  bool tcp = false;
  double rate_Bps = 0;
  double rtt_s = 0;
  double initial_window_bytes = 0;
};

// What a flow from one GPU to another gets of its route (what the closed-form estimate prices):
// the links it shares with other flows (all but FATPIPE links) with their bandwidths, the
// fraction of a link's rate its payload gets (set_transfer_rates), its payload rate alone on the
// route (the bottleneck, or TCP-gamma's window / (2 x latency), times that fraction), and the
// route's latency.
struct FlowRoute {
  std::vector<std::pair<const void*, double>> shared_links;
  double payload_factor = 1;
  double rate_Bps = 0;
  double latency_s = 0;
};

struct GpuHost {
  simgrid::s4u::Host* host = nullptr;
  const GpuSpec* gpu = nullptr;
  int node = 0;
  HostCpu cpu = HostCpu::unspecified; // the host's `cpu` property
};

class Cluster {
public:
  // Loads the platform (a file Platform::load checked), checks every host names a catalog GPU,
  // applies the what-if. Throws InputError for a malformed platform.
  // The workload's link conditions (conditions.hpp) apply after the what-if, `source` naming
  // the workload in their messages; a NIC of a compact platform that is down hands its GPUs'
  // traffic to the nearest NIC of the node that is up.
  Cluster(const Platform& platform, const GpuCatalog& catalog, const NetworkWhatIf& network,
          const Profile& profile, const std::vector<LinkCondition>& conditions = {},
          const std::string& source = "workload");
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // GPU hosts in index order (gpu-0, gpu-1, ...).
  const std::vector<GpuHost>& gpus() const { return gpus_; }
  simgrid::s4u::Engine& engine() { return *engine_; }

  // The route from GPU a to GPU b: its narrowest link's bandwidth, its latency, and whether it
  // crosses PCIe (a link named pcie-* as `simgpt platform` names them: NCCL's latency table tells
  // PCIe hops from NVLink ones). One route lookup for all three.
  struct RouteFigures {
    double bandwidth = 0, latency = 0;
    bool over_pcie = false;
    // The bandwidth the route's links report to software that detects them (NCCL's topology
    // search: a NIC's link speed), before a network.bandwidth what-if, which like tc netem's
    // rate limits the wire without changing what the NIC reports.
    double detected_bandwidth = 0;
    // The share of the route's rate a flow's payload gets (flow_route's payload_factor).
    double payload_factor = 1;
  };
  RouteFigures route_figures(int a, int b) const;
  double route_bandwidth(int a, int b) const { return route_figures(a, b).bandwidth; }
  double route_latency(int a, int b) const { return route_figures(a, b).latency; }
  bool route_over_pcie(int a, int b) const { return route_figures(a, b).over_pcie; }
  // The links of the route from GPU a to GPU b that flows share: all but FATPIPE links.
  std::vector<const simgrid::s4u::Link*> shared_links(int a, int b) const;
  // Each link's bandwidth, latency and whether it is a FATPIPE, on the route from GPU a to GPU b.
  std::vector<double> route_signature(int a, int b) const;
  // All three, from one route lookup (some 5,000 instructions in a listed platform's zones).
  struct RouteFacts {
    RouteFigures figures;
    std::vector<const simgrid::s4u::Link*> shared_links;
    std::vector<double> signature;
  };
  RouteFacts route_facts(int a, int b) const;
  // The group's routes and direct links, for the ring search (system/rings).
  GroupLinks links(const std::vector<int>& gpus) const;
  // The rings NCCL would spread a collective over the group (nccl_rings of its links).
  std::vector<Ring> rings(const std::vector<int>& gpus) const;
  const std::string& path() const { return path_; }
  // Whether flows started from now on pay their route's latency (true, SimGrid's CM02 as
  // configured) or carry their bytes alone (false): a point-to-point message on a long-lived
  // connection, whose latency the replay adds after its bytes have left (execution/replay). Either
  // way the TCP window's bound (window / (2 x route latency)) and CM02's bandwidth share (in
  // proportion to 1 / route latency) are those of the whole route.
  void set_flow_latency(bool paid) { *latency_factor_ = paid ? 1.0 : kLatencyFree; }
  TcpPath tcp_path(int from, int to) const;
  FlowRoute flow_route(int from, int to) const;
  // Throws InputError naming the link, the workload's conditions.links_down and the two GPUs when
  // a route between a pair of `pairs` crosses a link that is down: SimGrid's routes are static,
  // and the platform has no other route between them.
  void check_not_down(const std::vector<std::pair<int, int>>& pairs) const;
  bool has_links_down() const { return !down_.empty(); }
  // The indices (in the workload's conditions' links) of the conditioned links the route from GPU a
  // to GPU b crosses, each once.
  std::vector<size_t> conditions_on_route(int a, int b) const;
  // Throws InputError naming the hosts if two of the first `used` GPUs have no route, or a route
  // with a hop that has no link.
  void check_routes(int64_t used) const;
  // The same for the `used` GPUs from `first`.
  void check_routes(int64_t first, int64_t used) const;
  // The same for the route from GPU `from` to GPU `to`.
  void check_route(int from, int to) const;

private:
  void start_engine(const Profile& profile, const GpuCatalog& catalog, const std::vector<LinkCondition>& conditions);
  void apply_link_conditions(const std::vector<LinkCondition>& conditions, const std::string& source);
  void check_links() const;
  void read_gpus(const GpuCatalog& catalog);
  std::shared_ptr<const std::unordered_set<const simgrid::s4u::Link*>> apply_what_if(const NetworkWhatIf& network);
  const simgrid::s4u::Link* first_nic(int a, int b) const;
  void set_transfer_rates(std::shared_ptr<const std::unordered_set<const simgrid::s4u::Link*>> nics,
                          const Profile& profile);

  // The factor a flow's latency is multiplied by when it carries its bytes alone. Not 0: SimGrid
  // 3.32's CM02 gives a flow with no latency left a bandwidth share of weight 1 instead of
  // 1 / route latency (NetworkCm02Model::comm_action_set_variable), which would starve or favour
  // it against the other flows on its links. What is left, a billionth of the route's latency
  // (50 ps at 50 ms), is far below any task's time.
  static constexpr double kLatencyFree = 1e-9;

  std::string path_;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  std::shared_ptr<double> latency_factor_ = std::make_shared<double>(1.0);
  std::shared_ptr<const std::unordered_set<const simgrid::s4u::Link*>> nics_;
  std::unordered_map<const simgrid::s4u::Link*, double> detected_bandwidth_; // links a what-if slowed: their own rate
  double efficiency_ = 1, max_rate_ = 0, tcp_window_ = 0, tcp_initial_window_ = 0, nvlink_share_ = 1;
  std::vector<GpuHost> gpus_;
  std::unordered_set<const simgrid::s4u::Link*> down_; // the halves of links a condition took down
  std::string down_source_;                            // the workload that said so
  std::unordered_map<const simgrid::s4u::Link*, size_t> conditioned_; // link half -> its condition's index
};

} // namespace simgpt
