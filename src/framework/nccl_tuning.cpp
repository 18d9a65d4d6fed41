#include "simgpt/framework/nccl_tuning.hpp"

#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "core/yaml_read.hpp"
#include "simgpt/framework/profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

namespace simgpt {

const char* name_of(NcclAlgorithm a) { return a == NcclAlgorithm::tree ? "tree" : "ring"; }
const char* name_of(NcclProtocol p) {
  return p == NcclProtocol::ll ? "ll" : p == NcclProtocol::ll128 ? "ll128" : "simple";
}

namespace {

// Ranges that hold NCCL's values with room (its latencies are a few to tens of microseconds,
// its factors fractions of the Simple ring's bandwidth): a typo by a factor of a thousand is refused.
constexpr double kMaxLatency = 1e-3, kMaxBandwidth = 10e12;

double latency(const YamlReader& r, const char* key) {
  const double s = r.quantity(key, parse_duration);
  if (s < 0 || s > kMaxLatency)
    throw InputError(r.where(key), fmt::format("{} s is out of range (expected 0 to 1 ms)", s));
  return s;
}

double bandwidth(const YamlReader& r, const char* key) {
  const double bps = r.quantity(key, parse_bandwidth);
  if (bps <= 0 || bps > kMaxBandwidth)
    throw InputError(r.where(key), fmt::format("{} B/s is out of range (expected above 0, at most 10 TB/s)", bps));
  return bps;
}

// One value per protocol: {ll, ll128, simple}.
void per_protocol(const YamlReader& r, double (&out)[kNcclProtocols]) {
  r.only({"ll", "ll128", "simple"});
  out[0] = latency(r, "ll");
  out[1] = latency(r, "ll128");
  out[2] = latency(r, "simple");
}

// One value per CPU vendor (NcclCpu): {default: ..., amd: ...}, read with `read`.
void per_cpu(const YamlReader& r, double (&out)[kNcclCpus], double (*read)(const YamlReader&, const char*)) {
  r.only({"default", "amd"});
  out[static_cast<int>(NcclCpu::other)] = read(r, "default");
  out[static_cast<int>(NcclCpu::amd)] = read(r, "amd");
}

// {tree: {...}, ring: {...}}
void per_algorithm(const YamlReader& r, double (&out)[kNcclAlgorithms][kNcclProtocols]) {
  r.only({"tree", "ring"});
  per_protocol(r.map("tree"), out[0]);
  per_protocol(r.map("ring"), out[1]);
}

void read_bandwidth_factors(const YamlReader& b, NcclTuning& t) {
  b.only({"ring_ll", "ring_ll_other", "ring_ll128", "ring_ll128_one_gpu_per_node", "tree", "tree_ll",
          "tree_ll128_one_node", "tree_ll128"});
  t.ring_ll = b.number("ring_ll", 0.01, 1);
  t.ring_ll_other = b.number("ring_ll_other", 0.01, 1);
  t.ring_ll128 = b.number("ring_ll128", 0.01, 1);
  t.ring_ll128_one_gpu_per_node = b.number("ring_ll128_one_gpu_per_node", 0.01, 1);
  t.tree = b.number("tree", 0.01, 1);
  t.tree_ll = b.number("tree_ll", 0.01, 1);
  t.tree_ll128_one_node = b.number("tree_ll128_one_node", 0.01, 1);
  t.tree_ll128 = b.number("tree_ll128", 0.01, 1);
}

void read_ll_ceilings(const YamlReader& l, NcclTuning& t) {
  l.only({"one_node", "two_nodes", "more_nodes"});
  const YamlReader one = l.map("one_node");
  one.only({"volta", "ampere", "hopper"});
  t.ll_max_one_node_Bps[0] = bandwidth(one, "volta");
  t.ll_max_one_node_Bps[1] = bandwidth(one, "ampere");
  t.ll_max_one_node_Bps[2] = bandwidth(one, "hopper");
  per_cpu(l.map("two_nodes"), t.ll_max_two_nodes_Bps, bandwidth);
  per_cpu(l.map("more_nodes"), t.ll_max_more_nodes_Bps, bandwidth);
}

void read_corrections(const YamlReader& c, NcclTuning& t) {
  c.only({"ll", "ll128", "simple"});
  const char* keys[kNcclProtocols] = {"ll", "ll128", "simple"};
  for (int p = 0; p < kNcclProtocols; ++p) {
    const std::vector<YamlReader> items = c.list(keys[p]);
    if (items.size() != kNcclCorrectionSizes)
      throw InputError(c.where(keys[p]), fmt::format("{} factors, expected {} (64 B to 256 MiB)", items.size(),
                                                     kNcclCorrectionSizes));
    for (size_t i = 0; i < items.size(); ++i) {
      double f = 0;
      try {
        f = items[i].node().as<double>();
      } catch (const YAML::Exception&) {
        throw InputError(c.where(keys[p]), fmt::format("item {} is not a number", i));
      }
      if (!(f >= 0.01 && f <= 1))
        throw InputError(c.where(keys[p]), fmt::format("item {}: {} is out of range [0.01, 1]", i, f));
      t.tree_correction[static_cast<size_t>(p)][i] = f;
    }
  }
}

} // namespace

NcclTuning load_nccl_tuning(const std::vector<std::string>& dirs, const std::string& library,
                            const std::string& where) {
  const auto dir = std::find_if(dirs.begin(), dirs.end(), [&](const std::string& d) {
    std::error_code ec;
    return is_plain_name(library) && std::filesystem::is_regular_file(d + "/collectives/" + library + ".yaml", ec);
  });
  if (dir == dirs.end())
    throw InputError(where, fmt::format("'{}' is not a collective library with a tuning file (collectives/*.yaml "
                                        "in {})",
                                        echo(library), fmt::join(dirs, ", ")));
  const std::string path = *dir + "/collectives/" + library + ".yaml";
  const YamlReader r = YamlReader::file(path);
  r.only({"source", "base_latency", "hop_latency", "net_overhead", "simple_net_posts", "ring_plateau", "bandwidth",
          "ll_max_bandwidth", "tree_correction", "nvlink", "ring_channels"});
  NcclTuning t;
  t.library = library;
  t.file = path;
  per_algorithm(r.map("base_latency"), t.base_latency_s);
  const YamlReader hops = r.map("hop_latency");
  hops.only({"nvlink", "pci", "net"});
  per_algorithm(hops.map("nvlink"), t.hop_latency_s[0]);
  per_algorithm(hops.map("pci"), t.hop_latency_s[1]);
  per_algorithm(hops.map("net"), t.hop_latency_s[2]);
  per_cpu(r.map("net_overhead"), t.net_overhead_s, latency);
  t.simple_net_posts = r.number("simple_net_posts", 1, 16);
  const YamlReader plateau = r.map("ring_plateau");
  plateau.only({"before_ampere", "ampere_on"});
  t.ring_plateau[0] = plateau.number("before_ampere", 1, 4);
  t.ring_plateau[1] = plateau.number("ampere_on", 1, 4);
  read_bandwidth_factors(r.map("bandwidth"), t);
  read_ll_ceilings(r.map("ll_max_bandwidth"), t);
  read_corrections(r.map("tree_correction"), t);
  const YamlReader nvlink = r.map("nvlink");
  nvlink.only({"nccl_rate", "link_rate"});
  const double nccl_rate = bandwidth(nvlink, "nccl_rate"), link_rate = bandwidth(nvlink, "link_rate");
  if (nccl_rate > link_rate)
    throw InputError(nvlink.where("nccl_rate"), "is above the link's own rate (nvlink.link_rate)");
  t.nvlink_share = nccl_rate / link_rate;
  const double channels = r.number("ring_channels", 1, 64);
  if (channels != static_cast<int>(channels))
    throw InputError(r.where("ring_channels"), "expected a whole number of rings from 1 to 64");
  t.ring_channels = static_cast<int>(channels);
  return t;
}

} // namespace simgpt
