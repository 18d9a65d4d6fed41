#include "simgpt/system/cluster.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/units.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace simgpt {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int gpu_index(const std::string& name) {
  int index = -1;
  if (name.rfind("gpu-", 0) != 0)
    return -1;
  auto [ptr, ec] = std::from_chars(name.data() + 4, name.data() + name.size(), index);
  return (ec == std::errc() && ptr == name.data() + name.size()) ? index : -1;
}

// The links of the route from one GPU host to another, and its latency.
std::vector<simgrid::s4u::Link*> route(const GpuHost& from, const GpuHost& to, double* latency) {
  std::vector<simgrid::s4u::Link*> links;
  double l = 0;
  from.host->route_to(to.host, links, &l);
  if (latency)
    *latency = l;
  return links;
}

} // namespace

Cluster::Cluster(const std::string& platform_path, const GpuCatalog& catalog, const NetworkWhatIf& network,
                 const Profile& profile)
    : path_(platform_path) {
  if (!std::ifstream(platform_path))
    throw InputError(platform_path, "cannot read the platform file");
  int argc = 1;
  char name[] = "simgpt";
  char* argv[] = {name, nullptr};
  engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  xbt_log_control_set("root.thresh:critical");
  // CM02 without cross traffic reproduces the analytical transfer time exactly (see the notes on
  // SimGrid 3.32); LV08's latency factor models TCP slow start, which NCCL's long-lived connections
  // do not pay.
  simgrid::s4u::Engine::set_config("network/model:CM02");
  simgrid::s4u::Engine::set_config("network/crosstraffic:0");
  // The per-flow TCP window: rate <= window / (2 x route latency). 0 disables the cap.
  simgrid::s4u::Engine::set_config("network/TCP-gamma", profile.tcp_window_bytes);
  try {
    engine_->load_platform(platform_path);
  } catch (const std::exception& e) {
    throw InputError(platform_path, fmt::format("not a valid SimGrid platform: {}", e.what()));
  }

  for (simgrid::s4u::Host* host : engine_->get_all_hosts()) {
    int index = gpu_index(host->get_name());
    if (index < 0)
      continue;
    const char* model = host->get_property("gpu");
    if (model == nullptr)
      throw InputError(platform_path + ": host " + host->get_name(),
                       "has no 'gpu' property (add <prop id=\"gpu\" value=\"V100-SXM2-16GB\"/>)");
    const char* node = host->get_property("node");
    GpuHost g{host, &catalog.at(model, platform_path + ": host " + host->get_name() + " property gpu"),
              node ? std::atoi(node) : index};
    gpus_.push_back(g);
  }
  std::sort(gpus_.begin(), gpus_.end(),
            [](const GpuHost& a, const GpuHost& b) { return gpu_index(a.host->get_name()) < gpu_index(b.host->get_name()); });
  if (gpus_.empty())
    throw InputError(platform_path, "no GPU hosts (hosts are named gpu-0, gpu-1, ... with a 'gpu' property)");
  for (size_t i = 0; i < gpus_.size(); ++i)
    if (gpu_index(gpus_[i].host->get_name()) != static_cast<int>(i))
      throw InputError(platform_path, fmt::format("GPU hosts must be numbered gpu-0 to gpu-{} without gaps",
                                                  gpus_.size() - 1));

  // NICs are the split-duplex links with property role=nic; SimGrid keeps the property on the
  // split-duplex link, not on its _UP and _DOWN halves.
  // NIC halves.
  auto nics = std::make_shared<std::unordered_set<const simgrid::s4u::Link*>>();
  for (simgrid::s4u::Link* link : engine_->get_all_links()) {
    const std::string& name = link->get_name();
    if (!ends_with(name, "_UP"))
      continue;
    auto* duplex = engine_->split_duplex_link_by_name(name.substr(0, name.size() - 3));
    const char* role = duplex ? duplex->get_property("role") : nullptr;
    if (role == nullptr || std::string_view(role) != "nic")
      continue;
    // A per-flow cap as a bandwidth factor would shrink the NIC's capacity for all its flows.
    if (duplex->get_property("flow_limit") != nullptr)
      throw InputError(platform_path + ": link " + duplex->get_name() + " property flow_limit",
                       "is not read: cap each flow with a FATPIPE link on the routes between servers "
                       "(see platforms/gen_platforms.py)");
    nics->insert(duplex->get_link_up());
    nics->insert(duplex->get_link_down());
    // tc netem delay D rate R on the node's outgoing interface: the UP direction.
    if (network.delay_s)
      link->set_latency(link->get_latency() + *network.delay_s);
    if (network.bandwidth_Bps)
      link->set_bandwidth(std::min(link->get_bandwidth(), *network.bandwidth_Bps));
  }

  // Transfers through a NIC carry TCP/IP headers: the payload gets a fraction of the link rate.
  // A backend with its own throughput ceiling (a CPU-bound protocol) caps each such transfer
  // below its route's bottleneck. SimGrid applies the factor to the payload, not to the links'
  // use, so a capped transfer uses its links at its uncapped rate: right for one transfer at a
  // time (the backend's measured case), pessimistic when many share a NIC.
  const double efficiency = profile.bandwidth_efficiency;
  const double max_rate = profile.p2p_max_rate_Bps;
  engine_->get_netzone_root()->get_network_model()->set_bw_factor_cb(
      [efficiency, max_rate, nics](double, const simgrid::s4u::Host*, const simgrid::s4u::Host*,
                                   const std::vector<simgrid::s4u::Link*>& links,
                                   const std::unordered_set<simgrid::s4u::NetZone*>&) {
        bool through_nic = false;
        double cap = max_rate > 0 ? max_rate : std::numeric_limits<double>::infinity();
        double bottleneck = std::numeric_limits<double>::infinity();
        for (const simgrid::s4u::Link* l : links) {
          bottleneck = std::min(bottleneck, l->get_bandwidth());
          through_nic = through_nic || nics->contains(l);
        }
        return through_nic ? std::min(efficiency, cap / bottleneck) : 1.0;
      });
}

Cluster::~Cluster() = default;

double Cluster::route_bandwidth(int a, int b) const {
  double bw = std::numeric_limits<double>::infinity();
  for (const simgrid::s4u::Link* l : route(gpus_[static_cast<size_t>(a)], gpus_[static_cast<size_t>(b)], nullptr))
    bw = std::min(bw, l->get_bandwidth());
  return bw;
}

double Cluster::route_latency(int a, int b) const {
  double latency = 0;
  route(gpus_[static_cast<size_t>(a)], gpus_[static_cast<size_t>(b)], &latency);
  return latency;
}

std::vector<int> Cluster::ring_order(const std::vector<int>& gpus) const {
  const size_t n = gpus.size();
  if (n <= 2 || n > 8)
    return gpus;
  std::vector<std::vector<double>> bw(n, std::vector<double>(n, 0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j)
        bw[i][j] = route_bandwidth(gpus[i], gpus[j]);
  std::vector<size_t> order(n), best;
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  double best_bottleneck = -1;
  int best_crossings = 0;
  // Member 0 stays first: rotations of a ring are the same ring.
  do {
    double bottleneck = std::numeric_limits<double>::infinity();
    int crossings = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t a = order[i], b = order[(i + 1) % n];
      bottleneck = std::min(bottleneck, bw[a][b]);
      crossings += gpus_[static_cast<size_t>(gpus[a])].node != gpus_[static_cast<size_t>(gpus[b])].node;
    }
    if (bottleneck > best_bottleneck * (1 + 1e-9) ||
        (bottleneck >= best_bottleneck * (1 - 1e-9) && crossings < best_crossings)) {
      best_bottleneck = bottleneck;
      best_crossings = crossings;
      best = order;
    }
  } while (std::next_permutation(order.begin() + 1, order.end()));
  std::vector<int> ring;
  for (size_t i : best)
    ring.push_back(gpus[i]);
  return ring;
}

namespace {

// The direct links among a group and what is left of each: NCCL's search for rings over NVLink.
struct LinkBudget {
  std::vector<std::vector<int>> hop; // hop[a][b]: index of the one link from member a to b, or -1
  std::vector<double> left;          // per link, bytes/s not yet taken by a ring
  std::vector<bool> shared;          // a FATPIPE link caps each flow but is never used up

  // The link of each hop of a ring in `order` run both ways (-1 where there is no direct link).
  std::vector<int> links(const std::vector<size_t>& order) const {
    std::vector<int> out;
    const size_t n = order.size();
    for (size_t i = 0; i < n; ++i) {
      const size_t a = order[i], b = order[(i + 1) % n];
      out.push_back(hop[a][b]);
      out.push_back(hop[b][a]);
    }
    return out;
  }

  // The rate a ring in `order`, run both ways, can take from every link it uses; 0 if it
  // needs a hop without a direct link.
  double rate(const std::vector<size_t>& order) const {
    std::vector<std::pair<int, int>> uses; // link, hops using it
    for (int l : links(order)) {
      if (l < 0)
        return 0;
      auto u = std::find_if(uses.begin(), uses.end(), [l](const auto& x) { return x.first == l; });
      if (u == uses.end())
        uses.emplace_back(l, 1);
      else
        ++u->second;
    }
    double r = std::numeric_limits<double>::infinity();
    for (auto [l, count] : uses)
      r = std::min(r, shared[static_cast<size_t>(l)] ? left[static_cast<size_t>(l)]
                                                    : left[static_cast<size_t>(l)] / count);
    return r;
  }

  void take(const std::vector<size_t>& order, double r) {
    for (int l : links(order))
      if (!shared[static_cast<size_t>(l)])
        left[static_cast<size_t>(l)] = std::max(0.0, left[static_cast<size_t>(l)] - r);
  }

  // The cycles over all members (member 0 first) with the highest rate, and that rate.
  std::pair<double, std::vector<std::vector<size_t>>> best_cycles() const {
    const size_t n = hop.size();
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
      order[i] = i;
    double best = 0;
    std::vector<std::vector<size_t>> cycles;
    do {
      const double r = rate(order);
      if (r > best * (1 + 1e-9)) {
        best = r;
        cycles.clear();
      }
      if (r > 0 && r >= best * (1 - 1e-9))
        cycles.push_back(order);
    } while (std::next_permutation(order.begin() + 1, order.end()));
    return {best, cycles};
  }
};

struct RingSet {
  std::vector<std::pair<std::vector<size_t>, double>> rings; // order, rate
  double total = 0;
};

// Takes the fastest ring until none is left worth having (a millionth of the first).
RingSet greedy(LinkBudget budget, double floor) {
  RingSet set;
  for (;;) {
    auto [r, cycles] = budget.best_cycles();
    if (cycles.empty() || r <= floor)
      return set;
    budget.take(cycles.front(), r);
    set.rings.emplace_back(cycles.front(), r);
    set.total += r;
  }
}

} // namespace

std::vector<Ring> Cluster::rings(const std::vector<int>& gpus) const {
  const size_t n = gpus.size();
  auto single = [&] { return std::vector<Ring>{{ring_order(gpus), 1.0}}; };
  if (n <= 2 || n > 8)
    return single();
  // Searched over the members in index order, so that the rings do not depend on how the
  // caller listed them.
  std::vector<int> members = gpus;
  std::sort(members.begin(), members.end());
  LinkBudget budget;
  budget.hop.assign(n, std::vector<int>(n, -1));
  std::vector<const simgrid::s4u::Link*> seen;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (i == j)
        continue;
      const auto links = route(gpus_[static_cast<size_t>(members[i])], gpus_[static_cast<size_t>(members[j])], nullptr);
      if (links.size() != 1)
        continue;
      const simgrid::s4u::Link* link = links.front();
      auto at = std::find(seen.begin(), seen.end(), link);
      if (at == seen.end()) {
        seen.push_back(link);
        budget.left.push_back(link->get_bandwidth());
        budget.shared.push_back(link->get_sharing_policy() == simgrid::s4u::Link::SharingPolicy::FATPIPE);
        at = seen.end() - 1;
      }
      budget.hop[i][j] = static_cast<int>(at - seen.begin());
    }
  // Greedy, but trying each of the fastest first rings: which one is taken first decides what
  // the later ones can use (of a fully linked 4-GPU group, one choice leaves a second ring,
  // another none).
  auto [first_rate, firsts] = budget.best_cycles();
  if (firsts.empty())
    return single();
  const double floor = 1e-6 * first_rate;
  RingSet best;
  for (const auto& first : firsts) {
    LinkBudget rest = budget;
    rest.take(first, first_rate);
    RingSet set = greedy(rest, floor);
    set.rings.insert(set.rings.begin(), {first, first_rate});
    set.total += first_rate;
    if (set.total > best.total * (1 + 1e-9))
      best = std::move(set);
  }
  std::vector<Ring> found;
  for (const auto& [order, r] : best.rings) {
    Ring ring{{}, r / best.total};
    for (size_t i : order)
      ring.gpus.push_back(members[i]);
    // Each ring starts at the caller's first GPU: a broadcast's root, a reduce's destination.
    std::rotate(ring.gpus.begin(), std::find(ring.gpus.begin(), ring.gpus.end(), gpus.front()), ring.gpus.end());
    found.push_back(std::move(ring));
  }
  return found;
}

} // namespace simgpt
