#include "system/cluster.hpp"

#include "simgpt/system/platform_generator.hpp"
#include "system/platform_gen/checked_spec.hpp"
#include "system/platform_gen/s4u_platform.hpp"

#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "system/simgrid_abort.hpp"
#include "core/input_file.hpp"
#include "system/platform_xml_check.hpp"
#include "system/route_check.hpp"
#include "workload/workload_limits.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace simgpt {
namespace {

// An exaflop per second: 500 times an H100's fp8 peak.
constexpr double kMaxHostSpeed = 1e18;

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

// The links of the route from one GPU host to another, and its latency. SimGrid 3.32's Full
// routing returns no links for a missing route (a free, instant transfer) and Floyd throws:
// both are refused here, naming the hosts.
std::vector<simgrid::s4u::Link*> route(const GpuHost& from, const GpuHost& to, double* latency,
                                       const std::string& path) {
  std::vector<simgrid::s4u::Link*> links;
  double l = 0;
  try {
    from.host->route_to(to.host, links, &l);
  } catch (const std::exception&) {
    links.clear();
  }
  if (links.empty() && from.host != to.host)
    throw InputError(path, fmt::format("no route from {} to {} (add a <route> with at least one link)",
                                       from.host->get_name(), to.host->get_name()));
  if (latency)
    *latency = l;
  return links;
}

// A route's narrowest link, whether it crosses a NIC (a TCP/IP flow), and whether all of it is
// NVLink (links named nvlink-* or nvswitch-port-*, as platforms/README.md names them).
struct RouteRate {
  double bottleneck = std::numeric_limits<double>::infinity();
  bool through_nic = false;
  bool all_nvlink = false;
};

bool is_nvlink(const simgrid::s4u::Link* l) {
  const std::string& name = l->get_name();
  return name.starts_with("nvlink-") || name.starts_with("nvswitch-port-");
}

RouteRate route_rate(const std::vector<simgrid::s4u::Link*>& links,
                     const std::unordered_set<const simgrid::s4u::Link*>& nics) {
  RouteRate r;
  r.all_nvlink = !links.empty();
  for (const simgrid::s4u::Link* l : links) {
    r.bottleneck = std::min(r.bottleneck, l->get_bandwidth());
    r.through_nic = r.through_nic || nics.contains(l);
    r.all_nvlink = r.all_nvlink && is_nvlink(l);
  }
  return r;
}

// The fraction of a route's rate a transfer's payload gets (set_transfer_rates explains): the
// profile's efficiency through a NIC, or less under the backend's own ceiling `max_rate` (0: none);
// over NVLink, the part of it the collective library's copies reach (`nvlink_share`).
double payload_factor(const RouteRate& r, double efficiency, double max_rate, double nvlink_share) {
  const double cap = max_rate > 0 ? max_rate : std::numeric_limits<double>::infinity();
  if (r.all_nvlink)
    return nvlink_share;
  return r.through_nic ? std::min(efficiency, cap / r.bottleneck) : 1.0;
}

} // namespace

Cluster::Cluster(const Platform& platform, const GpuCatalog& catalog, const NetworkWhatIf& network,
                 const Profile& profile, const std::vector<LinkCondition>& conditions, const std::string& source)
    : path_(platform.path) {
  start_engine(profile, catalog, conditions);
  check_links();
  read_gpus(catalog);
  auto nics = apply_what_if(network);
  apply_link_conditions(conditions, source);
  set_transfer_rates(std::move(nics), profile);
}

// Each condition on its link, both directions of a split-duplex one: the bandwidth times the
// factor (a NIC that fell back to a lower rate, which NCCL then detects as such), the latency
// added, or out of service.
void Cluster::apply_link_conditions(const std::vector<LinkCondition>& conditions, const std::string& source) {
  for (size_t index = 0; index < conditions.size(); ++index) {
    const LinkCondition& c = conditions[index];
    std::vector<simgrid::s4u::Link*> halves;
    if (simgrid::s4u::Link* up = engine_->link_by_name_or_null(c.link + "_UP")) {
      halves.push_back(up);
      halves.push_back(engine_->link_by_name_or_null(c.link + "_DOWN"));
    } else if (simgrid::s4u::Link* one = engine_->link_by_name_or_null(c.link); one && c.link != "__loopback__") {
      halves.push_back(one);
    }
    if (halves.empty() || halves.back() == nullptr)
      throw InputError(source + ": conditions",
                       fmt::format("'{}' is not a link of {} (links are named as the platform names them: nic-K "
                                   "for node N's NIC i at K = N x NICs per node + i, uplink-L, pcie-G, "
                                   "nvswitch-port-G, nvlink-A-B)",
                                   echo(c.link), path_));
    for (simgrid::s4u::Link* l : halves) {
      conditioned_.emplace(l, index);
      if (c.bandwidth_factor != 1) {
        const double rate = l->get_bandwidth() * c.bandwidth_factor;
        check_bandwidth(rate, source + ": conditions.link_bandwidth");
        l->set_bandwidth(rate);
        detected_bandwidth_.erase(l);
      }
      if (c.latency_added_s != 0)
        l->set_latency(l->get_latency() + c.latency_added_s);
      if (c.down)
        down_.insert(l);
    }
  }
  down_source_ = source;
}

std::vector<size_t> Cluster::conditions_on_route(int a, int b) const {
  std::vector<size_t> out;
  if (conditioned_.empty())
    return out;
  for (const simgrid::s4u::Link* l : route(gpus_[static_cast<size_t>(a)], gpus_[static_cast<size_t>(b)], nullptr, path_))
    if (const auto c = conditioned_.find(l); c != conditioned_.end() && std::find(out.begin(), out.end(), c->second) == out.end())
      out.push_back(c->second);
  return out;
}

void Cluster::check_not_down(const std::vector<std::pair<int, int>>& pairs) const {
  if (down_.empty())
    return;
  for (const auto& [a, b] : pairs)
    for (const simgrid::s4u::Link* l :
         route(gpus_[static_cast<size_t>(a)], gpus_[static_cast<size_t>(b)], nullptr, path_))
      if (down_.contains(l)) {
        std::string name = l->get_name();
        for (const char* half : {"_UP", "_DOWN"})
          if (name.ends_with(half))
            name.resize(name.size() - std::string_view(half).size());
        throw InputError(down_source_ + ": conditions.links_down",
                         fmt::format("{} is down, and the job's traffic from {} to {} has no other route on {} "
                                     "(SimGrid's routes are fixed; a compact platform re-routes a NIC's GPUs to "
                                     "another NIC of their node only): give it a bandwidth factor instead "
                                     "(conditions.link_bandwidth) or place the job off it",
                                     name, gpus_[static_cast<size_t>(a)].host->get_name(),
                                     gpus_[static_cast<size_t>(b)].host->get_name(), path_));
      }
}

void Cluster::start_engine(const Profile& profile, const GpuCatalog& catalog,
                           const std::vector<LinkCondition>& conditions) {
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
  if (is_compact_platform(path_)) {
    // Checked whole before SimGrid sees any of it, as platform_xml checks a spec it writes.
    // The spec's errors name the options (--nodes): here they are the file's keys.
    const auto in_file = [&](const InputError& e) {
      if (e.where().starts_with(path_))
        return e.where();
      std::string key = e.where(); // "--nic-bandwidth" or "--nic-bandwidth (twice it: ...)"
      if (key.starts_with("--")) {
        key = key.substr(2);
        const size_t end = key.find(' ');
        std::replace(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(std::min(end, key.size())), '-', '_');
        key = "simgpt_platform." + key;
      }
      return path_ + ": " + key;
    };
    const platform_gen::CheckedSpec spec = [&] {
      try {
        return platform_gen::check_spec(read_compact_platform(path_), catalog, platform_gen::PlatformForm::compact);
      } catch (const LimitError& e) {
        throw LimitError(in_file(e), e.message());
      } catch (const InputError& e) {
        throw InputError(in_file(e), e.message());
      }
    }();
    catch_simgrid_abort(path_, [&] {
      std::vector<std::string> down;
      for (const LinkCondition& c : conditions)
        if (c.down)
          down.push_back(c.link);
      platform_gen::build_compact_platform(spec, down);
      engine_->seal_platform();
    });
    return;
  }
  // SimGrid aborts or crashes on some platforms instead of throwing: those are refused first.
  check_platform_xml(path_, read_input_file(path_, "platform"));
  try {
    // Any other SimGrid abort while it reads the file (system/simgrid_abort) is an InputError
    // too, after which its engine cannot even be destroyed: it is left to the process's exit.
    catch_simgrid_abort(path_, [this] {
      engine_->load_platform(path_);
      // Routes are read before the simulation runs, and zones routed by Floyd (between the nodes of
      // a generated platform) compute theirs when sealed, which run() would do only then.
      engine_->seal_platform();
    });
  } catch (const InputError&) {
    (void)engine_.release();
    throw;
  } catch (const std::exception& e) {
    throw InputError(path_, fmt::format("not a valid SimGrid platform: {}", e.what()));
  }
}

// Before anything routes or simulates: SimGrid accepts a zero, negative or NaN rate or delay
// and then divides by it or runs its clock backwards, and a rate of 1e-30 B/s or a delay of
// 1e300 s gives a step of years, no answer at all. Links meet the bounds of the workload's
// network.bandwidth and network.delay what-ifs (workload/workload_limits.hpp); hosts' speeds
// are not used (a GPU's kernels take the time its catalog entry gives) but SimGrid computes with
// them, so they are finite and positive all the same.
void Cluster::check_links() const {
  for (const simgrid::s4u::Link* link : engine_->get_all_links()) {
    const std::string where = path_ + ": link " + link->get_name();
    check_bandwidth(link->get_bandwidth(), where + " bandwidth");
    check_delay(link->get_latency(), where + " latency");
  }
  for (const simgrid::s4u::Host* host : engine_->get_all_hosts()) {
    const double speed = host->get_speed();
    if (!(speed > 0 && speed <= kMaxHostSpeed))
      throw InputError(path_ + ": host " + host->get_name() + " speed",
                       fmt::format("{:.4g} flop/s is out of range (expected more than 0 and at most {:g}f, e.g. 1Gf)",
                                   speed, kMaxHostSpeed));
  }
}

// Every pair of the GPUs a job uses must be routed, every hop with links: checked once, before the
// simulation, so a missing route is one line naming both hosts, not a SimGrid abort mid-run or a
// free hop. Per pair of zones and gateway (system/route_check), so complete at any size.
void Cluster::check_routes(int64_t used) const {
  const auto n = static_cast<size_t>(std::clamp<int64_t>(used, 0, static_cast<int64_t>(gpus_.size())));
  std::vector<simgrid::s4u::Host*> hosts;
  for (size_t i = 0; i < n; ++i)
    hosts.push_back(gpus_[i].host);
  check_all_routes(hosts, path_);
}

void Cluster::check_routes(int64_t first, int64_t used) const {
  std::vector<simgrid::s4u::Host*> hosts;
  for (int64_t i = std::max<int64_t>(first, 0); i < first + used && i < static_cast<int64_t>(gpus_.size()); ++i)
    hosts.push_back(gpus_[static_cast<size_t>(i)].host);
  check_all_routes(hosts, path_);
}

void Cluster::check_route(int from, int to) const {
  simgpt::check_route(gpus_[static_cast<size_t>(from)].host, gpus_[static_cast<size_t>(to)].host, path_);
}

// GPU hosts are named gpu-0, gpu-1, ... and carry a 'gpu' property (a catalog model), an
// optional integer 'node' (the server they sit in; each GPU its own server when absent) and an
// optional 'cpu' (the server's host CPU, HostCpu's names).
void Cluster::read_gpus(const GpuCatalog& catalog) {
  for (simgrid::s4u::Host* host : engine_->get_all_hosts()) {
    int index = gpu_index(host->get_name());
    if (index < 0)
      continue;
    const std::string where = path_ + ": host " + host->get_name();
    const char* model = host->get_property("gpu");
    if (model == nullptr)
      throw InputError(where, "has no 'gpu' property (add <prop id=\"gpu\" value=\"V100-SXM2-16GB\"/>)");
    int node = index;
    if (const char* text = host->get_property("node")) {
      const std::string_view v(text);
      auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), node);
      if (ec != std::errc() || ptr != v.data() + v.size() || node < 0)
        throw InputError(where + " property node", "expected a non-negative integer (the server's number)");
    }
    const char* cpu = host->get_property("cpu");
    gpus_.push_back(GpuHost{host, &catalog.at(model, where + " property gpu"), node,
                             cpu ? host_cpu_named(cpu, where + " property cpu") : HostCpu::unspecified});
  }
  std::sort(gpus_.begin(), gpus_.end(),
            [](const GpuHost& a, const GpuHost& b) { return gpu_index(a.host->get_name()) < gpu_index(b.host->get_name()); });
  if (gpus_.empty())
    throw InputError(path_, "no GPU hosts (hosts are named gpu-0, gpu-1, ... with a 'gpu' property)");
  for (size_t i = 0; i < gpus_.size(); ++i)
    if (gpu_index(gpus_[i].host->get_name()) != static_cast<int>(i))
      throw InputError(path_, fmt::format("GPU hosts must be numbered gpu-0 to gpu-{} without gaps", gpus_.size() - 1));
}

// NICs are the split-duplex links with property role=nic; SimGrid keeps the property on the
// split-duplex link, not on its _UP and _DOWN halves. Returns the NIC halves.
std::shared_ptr<const std::unordered_set<const simgrid::s4u::Link*>> Cluster::apply_what_if(const NetworkWhatIf& network) {
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
      throw InputError(path_ + ": link " + duplex->get_name() + " property flow_limit",
                       "is not read: cap each flow with a FATPIPE link on the routes between servers "
                       "(simgpt platform --flow-cap)");
    nics->insert(duplex->get_link_up());
    nics->insert(duplex->get_link_down());
    // tc netem delay D rate R on the node's outgoing interface: the UP direction.
    if (network.delay_s)
      link->set_latency(link->get_latency() + *network.delay_s);
    if (network.bandwidth_Bps && *network.bandwidth_Bps < link->get_bandwidth()) {
      detected_bandwidth_.emplace(link, link->get_bandwidth());
      link->set_bandwidth(*network.bandwidth_Bps);
    }
  }
  return nics;
}

// Transfers through a NIC carry TCP/IP headers: the payload gets a fraction of the link rate.
// A backend with its own throughput ceiling (a CPU-bound protocol) caps each such transfer
// below its route's bottleneck. SimGrid applies the factor to the payload, not to the links'
// use, so a capped transfer uses its links at its uncapped rate: right for one transfer at a
// time (the backend's measured case), pessimistic when many share a NIC.
void Cluster::set_transfer_rates(std::shared_ptr<const std::unordered_set<const simgrid::s4u::Link*>> nics,
                                 const Profile& profile) {
  const double efficiency = profile.bandwidth_efficiency;
  const double max_rate = profile.p2p_max_rate_Bps;
  // NCCL moves data over NVLink with SMs, at a part of the link's rate (nccl_tuning.hpp).
  const double nvlink_share = profile.nccl.loaded() && profile.p2p_backend == "nccl" ? profile.nccl.nvlink_share : 1.0;
  nics_ = nics;
  nvlink_share_ = nvlink_share;
  efficiency_ = efficiency;
  max_rate_ = max_rate;
  tcp_window_ = profile.tcp_window_bytes;
  tcp_initial_window_ = profile.tcp_initial_window_bytes;
  engine_->get_netzone_root()->get_network_model()->set_bw_factor_cb(
      [efficiency, max_rate, nvlink_share, nics](double, const simgrid::s4u::Host*, const simgrid::s4u::Host*,
                                   const std::vector<simgrid::s4u::Link*>& links,
                                   const std::unordered_set<simgrid::s4u::NetZone*>&) {
        return payload_factor(route_rate(links, *nics), efficiency, max_rate, nvlink_share);
      });
  // SimGrid 3.32's CM02 multiplies a flow's latency by this factor when the flow starts, after it
  // has taken the route's unfactored latency for the TCP-gamma bound and the sharing weight
  // (NetworkCm02Model::comm_action_set_bounds): see set_flow_latency.
  engine_->get_netzone_root()->get_network_model()->set_lat_factor_cb(
      [factor = latency_factor_](double, const simgrid::s4u::Host*, const simgrid::s4u::Host*,
                                 const std::vector<simgrid::s4u::Link*>&,
                                 const std::unordered_set<simgrid::s4u::NetZone*>&) { return *factor; });
}

// A flow through a NIC is TCP. Its payload rate alone on the route is what SimGrid gives it: the
// bottleneck link, or the TCP-gamma bound window / (2 x latency), times the bandwidth factor of
// set_transfer_rates. Its round trip is the route's latency there and back (the ACKs cross the
// receiver's uplink, which network.delay slows too). Its initial window is the profile's
// p2p.tcp_initial_window (the profiles give its sources); without one it is not ramped.
TcpPath Cluster::tcp_path(int from, int to) const {
  TcpPath p;
  double latency = 0;
  const auto links = route(gpus_[static_cast<size_t>(from)], gpus_[static_cast<size_t>(to)], &latency, path_);
  const RouteRate rate = route_rate(links, *nics_);
  if (!rate.through_nic || tcp_initial_window_ <= 0)
    return p;
  p.tcp = true;
  const double factor = payload_factor(rate, efficiency_, max_rate_, 1.0);
  double bound = rate.bottleneck;
  if (tcp_window_ > 0 && latency > 0)
    bound = std::min(bound, tcp_window_ / (2 * latency));
  p.rate_Bps = factor * bound;
  p.rtt_s = latency + route_latency(to, from);
  p.initial_window_bytes = tcp_initial_window_;
  return p;
}

FlowRoute Cluster::flow_route(int from, int to) const {
  FlowRoute f;
  const auto links = route(gpus_[static_cast<size_t>(from)], gpus_[static_cast<size_t>(to)], &f.latency_s, path_);
  for (const simgrid::s4u::Link* l : links)
    if (l->get_sharing_policy() != simgrid::s4u::Link::SharingPolicy::FATPIPE)
      f.shared_links.emplace_back(l, l->get_bandwidth());
  const RouteRate rate = route_rate(links, *nics_);
  f.payload_factor = payload_factor(rate, efficiency_, max_rate_, nvlink_share_);
  double bound = rate.bottleneck;
  if (tcp_window_ > 0 && f.latency_s > 0)
    bound = std::min(bound, tcp_window_ / (2 * f.latency_s));
  f.rate_Bps = f.payload_factor * bound;
  return f;
}

Cluster::~Cluster() = default;

Cluster::RouteFacts Cluster::route_facts(int a, int b) const {
  RouteFacts facts;
  RouteFigures& f = facts.figures;
  f.bandwidth = f.detected_bandwidth = std::numeric_limits<double>::infinity();
  const auto links = route(gpus_[static_cast<size_t>(a)], gpus_[static_cast<size_t>(b)], &f.latency, path_);
  f.payload_factor = payload_factor(route_rate(links, *nics_), efficiency_, max_rate_, nvlink_share_);
  for (const simgrid::s4u::Link* l : links) {
    f.bandwidth = std::min(f.bandwidth, l->get_bandwidth());
    const auto slowed = detected_bandwidth_.find(l);
    f.detected_bandwidth = std::min(f.detected_bandwidth, slowed != detected_bandwidth_.end() ? slowed->second : l->get_bandwidth());
    f.over_pcie = f.over_pcie || l->get_name().starts_with("pcie");
    const bool fatpipe = l->get_sharing_policy() == simgrid::s4u::Link::SharingPolicy::FATPIPE;
    if (!fatpipe)
      facts.shared_links.push_back(l);
    facts.signature.insert(facts.signature.end(), {l->get_bandwidth(), l->get_latency(), fatpipe ? 1.0 : 0.0});
  }
  return facts;
}

Cluster::RouteFigures Cluster::route_figures(int a, int b) const { return route_facts(a, b).figures; }

std::vector<const simgrid::s4u::Link*> Cluster::shared_links(int a, int b) const {
  return route_facts(a, b).shared_links;
}

std::vector<double> Cluster::route_signature(int a, int b) const { return route_facts(a, b).signature; }

// The NIC (its outgoing half) the route from GPU a to GPU b leaves through, or null.
const simgrid::s4u::Link* Cluster::first_nic(int a, int b) const {
  for (const simgrid::s4u::Link* l : route(gpus_[static_cast<size_t>(a)], gpus_[static_cast<size_t>(b)], nullptr, path_))
    if (nics_->contains(l))
      return l;
  return nullptr;
}

GroupLinks Cluster::links(const std::vector<int>& gpus) const {
  GroupLinks group;
  group.gpus = gpus;
  const size_t n = gpus.size();
  for (int gpu : gpus)
    group.node.push_back(gpus_[static_cast<size_t>(gpu)].node);
  // Each member's NIC: the first on its route to a member of another node.
  const auto elsewhere = [&](size_t i) {
    return std::find_if(gpus.begin(), gpus.end(), [&](int g) { return gpus_[static_cast<size_t>(g)].node != group.node[i]; });
  };
  if (n > 1 && elsewhere(0) != gpus.end()) {
    std::vector<const simgrid::s4u::Link*> nics;
    for (size_t i = 0; i < n; ++i) {
      const simgrid::s4u::Link* nic = first_nic(gpus[i], *elsewhere(i));
      auto at = std::find(nics.begin(), nics.end(), nic);
      if (nic != nullptr && at == nics.end())
        at = nics.insert(nics.end(), nic);
      group.nic.push_back(nic == nullptr ? -1 : static_cast<int>(at - nics.begin()));
    }
  }
  if (!ring_search_covers(n))
    return group;
  std::vector<const simgrid::s4u::Link*> seen;
  group.bandwidth.assign(n, std::vector<double>(n, 0));
  group.direct.assign(n, std::vector<int>(n, -1));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j)
        continue;
      const auto path = route(gpus_[static_cast<size_t>(gpus[i])], gpus_[static_cast<size_t>(gpus[j])], nullptr, path_);
      group.bandwidth[i][j] = std::numeric_limits<double>::infinity();
      for (const simgrid::s4u::Link* l : path)
        group.bandwidth[i][j] = std::min(group.bandwidth[i][j], l->get_bandwidth());
      if (path.size() != 1)
        continue;
      auto at = std::find(seen.begin(), seen.end(), path.front());
      if (at == seen.end()) {
        seen.push_back(path.front());
        group.link_rate.push_back(path.front()->get_bandwidth());
        group.link_shared.push_back(path.front()->get_sharing_policy() ==
                                    simgrid::s4u::Link::SharingPolicy::FATPIPE);
        at = seen.end() - 1;
      }
      group.direct[i][j] = static_cast<int>(at - seen.begin());
    }
  }
  return group;
}

std::vector<Ring> Cluster::rings(const std::vector<int>& gpus) const { return nccl_rings(links(gpus)); }

} // namespace simgpt
