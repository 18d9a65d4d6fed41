#include "execution/collective.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace simgpt {

double bytes_sent_per_member(CollectiveKind kind, int members, double bytes) {
  const double n = members;
  switch (kind) {
  case CollectiveKind::allreduce: return 2 * (n - 1) / n * bytes;
  case CollectiveKind::reduce_scatter:
  case CollectiveKind::allgather:
  case CollectiveKind::all_to_all: return (n - 1) / n * bytes;
  case CollectiveKind::broadcast:
  case CollectiveKind::reduce:
  case CollectiveKind::ring_shift: return bytes;
  }
  return 0;
}

namespace {

TaskId add_delay(TaskGraph& g, CollectiveKind kind, double seconds) {
  Task t;
  t.kind = Task::Kind::delay;
  t.phase = Task::Phase::collective;
  t.collective = kind;
  t.seconds = seconds;
  return boost::add_vertex(t, g);
}

} // namespace

TaskId add_collective_floor(TaskGraph& g, const CollectiveTasks& c, CollectiveKind kind, double seconds) {
  const TaskId wait = add_delay(g, kind, seconds);
  boost::add_edge(c.entry, wait, g);
  boost::add_edge(wait, c.exit, g);
  return wait;
}

namespace {

TaskId add_flow(TaskGraph& g, CollectiveKind kind, int from, int to, double bytes) {
  Task t;
  t.kind = Task::Kind::transfer;
  t.phase = Task::Phase::collective;
  t.collective = kind;
  t.gpu = from;
  t.peer = to;
  t.bytes = bytes;
  return boost::add_vertex(t, g);
}

// One phase of the direct algorithm: every member sends `bytes` to every other member.
void all_to_all(std::vector<CollectiveFlow>& flows, const std::vector<int>& members, double bytes) {
  for (int a : members)
    for (int b : members)
      if (a != b)
        flows.push_back({a, b, bytes});
}

} // namespace

int ring_steps(CollectiveKind kind, int members) {
  if (kind == CollectiveKind::all_to_all || kind == CollectiveKind::ring_shift)
    return 1;
  return kind == CollectiveKind::allreduce ? 2 * (members - 1) : members - 1;
}

RingCollective ring_collective(CollectiveKind kind, const std::vector<Ring>& rings, double bytes,
                               double step_latency_s) {
  RingCollective out;
  const int n = rings.empty() ? 0 : static_cast<int>(rings.front().gpus.size());
  if (n < 2)
    return out;
  out.exit_latency_s = (ring_steps(kind, n) - 1) * step_latency_s;
  const double per_member = bytes_sent_per_member(kind, n, bytes);
  const bool chain = kind == CollectiveKind::broadcast || kind == CollectiveKind::reduce;
  // NCCL runs its rings in both directions (channels on opposite link directions): half the
  // data goes round each way, so duplex point-to-point links carry it at twice one ring's
  // rate, while a shared NIC still sends all of it.
  const bool both_ways = !chain && n > 2;
  const std::vector<int> steps_to = both_ways ? std::vector<int>{1, n - 1} : std::vector<int>{1};
  for (const Ring& ring : rings) {
    const double sent = ring.share * (both_ways ? per_member / 2 : per_member);
    for (int i = 0; i < (chain ? n - 1 : n); ++i) {
      const int from = ring.gpus[static_cast<size_t>(i)];
      for (int step : steps_to) {
        const int to = ring.gpus[static_cast<size_t>((i + step) % n)];
        // A reduce runs the chain towards its first GPU, a broadcast away from it.
        out.flows.push_back(kind == CollectiveKind::reduce ? CollectiveFlow{to, from, sent}
                                                           : CollectiveFlow{from, to, sent});
      }
    }
  }
  return out;
}

CollectiveTasks add_collective(TaskGraph& g, CollectiveKind kind, CollectiveAlgorithm algorithm,
                               const std::vector<Ring>& rings, double bytes, double step_latency_s) {
  const int n = rings.empty() ? 0 : static_cast<int>(rings.front().gpus.size());
  const CollectiveTiming timing{n < 2 ? 0 : (ring_steps(kind, n) - 1) * step_latency_s, 1};
  return add_collective(g, kind, algorithm, rings, bytes, step_latency_s, timing);
}

CollectiveFlows collective_flows(CollectiveKind kind, CollectiveAlgorithm algorithm, const std::vector<Ring>& rings,
                                 double bytes, double step_latency_s, const CollectiveTiming& ring_timing) {
  if (rings.empty())
    throw std::logic_error("collective_flows: no ring");
  const std::vector<int>& members = rings.front().gpus;
  const int n = static_cast<int>(members.size());
  double shares = 0;
  for (const Ring& r : rings) {
    if (!std::is_permutation(r.gpus.begin(), r.gpus.end(), members.begin(), members.end()))
      throw std::logic_error("collective_flows: rings over different GPUs");
    shares += r.share;
  }
  if (std::abs(shares - 1) > 1e-9)
    throw std::logic_error("collective_flows: ring shares do not sum to 1");
  CollectiveFlows out;
  if (n < 2)
    return out;
  const bool two_phases = kind == CollectiveKind::allreduce;
  out.phases.emplace_back();
  if (kind == CollectiveKind::all_to_all) {
    // Every member sends each other member its 1/n of the buffer at once: NCCL's all-to-all is a
    // group of n - 1 sends and receives (PyTorch's all_to_all_single, ProcessGroupNCCL::alltoall_base;
    // nccl-tests src/alltoall.cu), one step whose latency the exit adds beyond the flows'.
    out.exit_latency_s = ring_timing.exit_latency_s;
    all_to_all(out.phases[0], members, bytes * ring_timing.byte_factor / n);
  } else if (kind == CollectiveKind::ring_shift) {
    // Every member sends its whole buffer to the next in the group's order, at once (ring
    // attention's exchange of key and value blocks: batched isend/irecv to the neighbours).
    out.exit_latency_s = ring_timing.exit_latency_s;
    for (int i = 0; i < n; ++i)
      out.phases[0].push_back({members[static_cast<size_t>(i)], members[static_cast<size_t>((i + 1) % n)], bytes});
  } else if (algorithm == CollectiveAlgorithm::direct) {
    // Each member owns a 1/n shard: gradients go to their owner, then updated values come back.
    const double shard = bytes / n;
    out.exit_latency_s = two_phases ? step_latency_s : 0;
    all_to_all(out.phases[0], members, shard);
    if (two_phases) {
      out.phases.emplace_back();
      all_to_all(out.phases[1], members, shard);
    }
  } else {
    RingCollective ring = ring_collective(kind, rings, bytes * ring_timing.byte_factor, 0);
    out.exit_latency_s = ring_timing.exit_latency_s;
    out.phases[0] = std::move(ring.flows);
  }
  return out;
}

std::vector<CollectiveFlow> isolated_collective_flows(CollectiveKind kind, const std::vector<Ring>& rings, double bytes) {
  if (kind != CollectiveKind::all_to_all && kind != CollectiveKind::ring_shift)
    return ring_collective(kind, rings, bytes, 0).flows;
  CollectiveFlows flows = collective_flows(kind, CollectiveAlgorithm::ring, rings, bytes, 0, {});
  return flows.phases.empty() ? std::vector<CollectiveFlow>{} : std::move(flows.phases.front());
}

CollectiveTasks add_collective(TaskGraph& g, CollectiveKind kind, CollectiveAlgorithm algorithm,
                               const std::vector<Ring>& rings, double bytes, double step_latency_s,
                               const CollectiveTiming& ring_timing) {
  const CollectiveFlows flows = collective_flows(kind, algorithm, rings, bytes, step_latency_s, ring_timing);
  CollectiveTasks c;
  c.entry = add_delay(g, kind, 0);
  if (flows.phases.empty()) {
    c.exit = c.entry;
    return c;
  }
  c.exit = add_delay(g, kind, flows.exit_latency_s);
  // Between phases, a task of no time that the next phase's flows start after.
  std::vector<TaskId> joins{c.entry};
  for (size_t p = 1; p < flows.phases.size(); ++p)
    joins.push_back(add_delay(g, kind, 0));
  joins.push_back(c.exit);
  for (size_t p = 0; p < flows.phases.size(); ++p)
    for (const CollectiveFlow& flow : flows.phases[p]) {
      TaskId f = add_flow(g, kind, flow.from, flow.to, flow.bytes);
      boost::add_edge(joins[p], f, g);
      boost::add_edge(f, joins[p + 1], g);
    }
  g[c.exit].entry = static_cast<long>(c.entry);
  return c;
}

} // namespace simgpt
