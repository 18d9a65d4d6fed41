// The zone of a compact platform: every GPU of every node in one SimGrid zone whose routes are
// computed from the node's layout when SimGrid asks for one, instead of a zone per node and a
// table of routes in each. SimGrid 3.32 walks every zone to check a new host's name and every
// host to seal each zone, so 16,384 node zones cost minutes to build; one zone costs seconds.
//
// A route crosses the links the XML form's zones give (write_star: a Full zone per node, joined
// through a switch zone in a Floyd zone), in path order, its latency summed in the same order, so
// both forms simulate the same step: between two GPUs of a node, the fabric route; between
// nodes, the source's PCIe and NIC links up, the flow cap, the destination's NIC and PCIe links
// down. The XML route lists the cap twice (out of one node, into the other): a FATPIPE counts a
// flow once, so once here. The flow cap is left out where it cannot bind (set_flow_cap).
#pragma once

#include "system/platform_gen/checked_spec.hpp"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Link.hpp>

#include <unordered_map>
#include <utility>
#include <vector>

namespace simgpt::platform_gen {

class CompactZone : public simgrid::kernel::routing::NetZoneImpl {
public:
  // A node link (its place in node_links) in one direction.
  struct Hop {
    int link = 0;
    bool up = true;
  };

  // The zone for `c`'s cluster; made first, it is the platform's root zone.
  CompactZone(const std::string& name, const CheckedSpec& c);

  // Node `node`'s links, in node_links' order: each split-duplex link's halves.
  void add_node_links(std::vector<std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*>> links);
  // The FATPIPE capping each flow between nodes. At or above the NIC's rate it never binds: every
  // route between nodes crosses a NIC up and one down, each at most that rate (the network
  // what-if only lowers them). In SimGrid's max-min solver it would still join every flow between
  // nodes into one system, solved whole whenever a flow ends (a replay on 65,536 GPUs: 28 s with
  // it, 7.4 s without, the same step), so routes then leave it out (its latency, 0, still counted).
  void set_flow_cap(simgrid::s4u::Link* cap, double nic_bandwidth) {
    cap_ = cap;
    cap_binds_ = cap->get_bandwidth() < nic_bandwidth;
  }

  // NIC `nic` (nic-<nic>) is out of service: the GPUs of its node that use it go through the
  // nearest NIC of the node that is up (the next one, then the one before, and so on), as NCCL,
  // which finds a node's NICs when it starts, would use those it finds. When every NIC of the node
  // is down the routes keep it (and a job that uses them is refused: Cluster::check_not_down).
  void route_around(int nic);

  // The GPU whose host this netpoint is (hosts are made in GPU order: netpoint id = GPU).
  int gpus() const { return static_cast<int>(node_of_.size()); }
  int node_of(int gpu) const { return node_of_[static_cast<size_t>(gpu)]; }

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

private:
  int gpus_per_node_;
  std::vector<int> node_of_;
  std::vector<std::vector<Hop>> fabric_;    // per pair of a node's GPUs (a * g + b): the fabric route
  std::vector<Hop> up_, down_;              // per GPU of a node: its PCIe and NIC links out, and in
  int nics_per_node_ = 1;
  std::vector<int> nic_place_;              // per NIC of a node: its place in node_links
  std::vector<int> nic_of_;                 // per GPU of a node: its NIC
  std::vector<char> nic_down_;              // per NIC of the platform
  std::unordered_map<int, int> rerouted_;   // GPU -> the NIC of its node it uses instead of its own
  std::vector<std::vector<simgrid::s4u::Link*>> node_links_; // per node: UP halves, then DOWN halves
  simgrid::s4u::Link* cap_ = nullptr;
  bool cap_binds_ = true;

  simgrid::s4u::Link* link(int node, Hop hop) const;
};

} // namespace simgpt::platform_gen
