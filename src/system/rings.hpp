// NCCL's rings: the order it chains a group of GPUs into a ring, and how it spreads a
// collective over several rings where GPUs are joined by direct links (NVLink). Works on a
// description of the group's links, so it needs no SimGrid engine.
#pragma once

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

namespace simgpt {

// One of NCCL's channels: a ring over the group's GPUs and the part of every buffer it carries.
// NCCL spreads a collective over several rings when the links allow (on a DGX-1's hybrid
// cube-mesh, the double-NVLink cycle and the single-NVLink cycle), each on its own links.
struct Ring {
  std::vector<int> gpus; // in ring order
  double share = 1;      // of the buffer; a collective's rings sum to 1
};

// What the ring search knows of a group: its members as the caller listed them, and between
// every ordered pair of members the route's narrowest bandwidth and, when the route is one
// direct link, that link. Filled only for groups the search covers (3 to 8 members).
struct GroupLinks {
  std::vector<int> gpus;                       // members, as listed
  std::vector<int> node;                       // per member
  std::vector<std::vector<double>> bandwidth;  // [i][j]: bytes/s of the route's narrowest link
  std::vector<std::vector<int>> direct;        // [i][j]: index of the one link from i to j, or -1
  std::vector<double> link_rate;               // per link, bytes/s
  std::vector<bool> link_shared;               // a FATPIPE link caps each flow but is never used up
  // Per member, the network interface its traffic to other nodes leaves through (an id shared
  // by the members behind the same NIC), or -1; filled for groups over several nodes.
  std::vector<int> nic;
};

// Groups of these sizes are searched (exhaustively, as NCCL's topology search within a node);
// others keep their listed order.
inline bool ring_search_covers(std::size_t members) { return members > 2 && members <= 8; }

// The order NCCL would chain the group into a ring: the one whose slowest hop is fastest, then
// the fewest node crossings.
std::vector<int> ring_order(const GroupLinks& group);

// Across nodes whose members reach the network through several NICs, NCCL's rings: one per
// member of a node, each passing through every node's members in turn and crossing to the next
// node from a different NIC, so that every NIC carries an equal share (the rails). Empty where
// that does not apply: one node, one member per node, unequal nodes, or one NIC per node.
std::vector<Ring> rail_rings(const GroupLinks& group);

// The rings NCCL would spread a collective over: the rails across nodes (rail_rings) where there
// are any; otherwise rings are taken greedily over direct links,
// each the cycle whose slowest remaining link is fastest, until no cycle is left; each carries a
// share of the data in proportion to its rate. Groups without such a cycle get the one ring of
// ring_order. Each ring starts at the group's first listed GPU.
std::vector<Ring> nccl_rings(const GroupLinks& group);

// The searches over direct links that nccl_rings made, by the shape of the links searched (which
// member pairs share which link, at what rate: all the search reads), so that alike groups, such
// as every node's tensor-parallel group, are searched once; the same for ring_order's orders.
// Megatron's 1T model on 3,072 GPUs has 384 tensor-parallel groups and 512 data-parallel ones.
class RingSearches {
public:
  // nccl_rings, each search over direct links made once per shape.
  std::vector<Ring> rings(const GroupLinks& group);

  // What a search found, over the members in GPU order: each ring's order and rate.
  struct Found {
    std::vector<std::pair<std::vector<std::size_t>, double>> rings;
    double total = 0;
  };

private:
  std::map<std::vector<double>, Found> found_;
  std::map<std::vector<double>, std::vector<std::size_t>> orders_; // ring_order's, as member positions
};

} // namespace simgpt
