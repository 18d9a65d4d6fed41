// The options of `simgpt platform` and how each sets a PlatformSpec field.
#include "simgpt/system/platform_generator.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <functional>

namespace simgpt {
namespace {

int positive_int(const std::string& text, const std::string& where) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 1)
    throw InputError(where, fmt::format("'{}' is not a positive integer", echo(text)));
  return value;
}

Fabric fabric_named(const std::string& text, const std::string& where) {
  if (const std::optional<Fabric> fabric = parse_enum<Fabric>(text))
    return *fabric;
  throw InputError(where, fmt::format("unknown fabric '{}' (use {})", echo(text), valid_enum_names<Fabric>(" or ")));
}

// "star", "fat-tree:16" or "fat-tree:16:2".
NetworkTopology topology_named(const std::string& text, const std::string& where) {
  if (text == "star")
    return {};
  const std::string prefix = "fat-tree:";
  const std::string usage = "use star or fat-tree:LEAF_NODES[:OVERSUBSCRIPTION], e.g. fat-tree:16 or fat-tree:16:2";
  if (text.rfind(prefix, 0) != 0)
    throw InputError(where, fmt::format("unknown topology '{}' ({})", echo(text), usage));
  NetworkTopology t;
  t.kind = NetworkTopology::Kind::fat_tree;
  const std::string rest = text.substr(prefix.size());
  const size_t colon = rest.find(':');
  t.leaf_nodes = positive_int(rest.substr(0, colon), where + " leaf nodes");
  if (colon != std::string::npos) {
    const std::string ratio = rest.substr(colon + 1);
    auto [ptr, ec] = std::from_chars(ratio.data(), ratio.data() + ratio.size(), t.oversubscription);
    if (ec != std::errc() || ptr != ratio.data() + ratio.size() || !std::isfinite(t.oversubscription) ||
        !(t.oversubscription >= 1))
      throw InputError(where, fmt::format("'{}' is not an oversubscription of at least 1 ({})", echo(ratio), usage));
  }
  return t;
}

using Setter = std::function<void(PlatformSpec&, const std::string&, const std::string&)>;

Setter text_field(std::string PlatformSpec::*field) {
  return [field](PlatformSpec& s, const std::string& v, const std::string& where) {
    if (v.empty())
      throw InputError(where, "is empty");
    s.*field = v;
  };
}

Setter int_field(int PlatformSpec::*field) {
  return [field](PlatformSpec& s, const std::string& v, const std::string& where) { s.*field = positive_int(v, where); };
}

// The field's value as the option takes it (empty: unset).
using Getter = std::function<std::string(const PlatformSpec&)>;

Getter text_of(std::string PlatformSpec::*field) {
  return [field](const PlatformSpec& s) { return s.*field; };
}

Getter int_of(int PlatformSpec::*field) {
  return [field](const PlatformSpec& s) { return std::to_string(s.*field); };
}

std::string topology_text(const NetworkTopology& t) {
  if (t.kind == NetworkTopology::Kind::star)
    return "star";
  return fmt::format("fat-tree:{}:{}", t.leaf_nodes, t.oversubscription);
}

struct OptionEntry {
  PlatformOption option;
  Setter set;
  Getter get;
};

const std::vector<OptionEntry>& entries() {
  static const std::vector<OptionEntry> table{
      {{"nodes", "nodes (servers) in the cluster"}, int_field(&PlatformSpec::nodes), int_of(&PlatformSpec::nodes)},
      {{"gpus-per-node", "GPUs in each node"}, int_field(&PlatformSpec::gpus_per_node), int_of(&PlatformSpec::gpus_per_node)},
      {{"gpu", "GPU model of platforms/gpus.yaml, e.g. A100-SXM4-80GB"}, text_field(&PlatformSpec::gpu), text_of(&PlatformSpec::gpu)},
      {{"cpu", "the nodes' host CPU, whose vendor NCCL's tuning reads: intel, amd, arm or power (unset: NCCL's "
               "figures for Intel)"},
       [](PlatformSpec& s, const std::string& v, const std::string& w) { s.cpu = host_cpu_named(v, w); },
       [](const PlatformSpec& s) { return s.cpu == HostCpu::unspecified ? std::string() : std::string(name_of(s.cpu)); }},
      {{"fabric", "how a node's GPUs connect: nvlink-cube-mesh, nvlink-mesh, nvswitch or pcie"},
       [](PlatformSpec& s, const std::string& v, const std::string& w) { s.fabric = fabric_named(v, w); },
       [](const PlatformSpec& s) { return std::string(name_of(s.fabric)); }},
      {{"fabric-bandwidth", "per direction: of one NVLink (cube-mesh), of each pair's link (mesh), of each GPU's "
                            "NVSwitch port, or of each GPU's PCIe link (pcie)"},
       text_field(&PlatformSpec::fabric_bandwidth), text_of(&PlatformSpec::fabric_bandwidth)},
      {{"fabric-latency", "latency of each fabric link, e.g. 1us"}, text_field(&PlatformSpec::fabric_latency), text_of(&PlatformSpec::fabric_latency)},
      {{"pcie-bandwidth", "each GPU's PCIe link on its way to its NIC (not with --fabric pcie)"},
       text_field(&PlatformSpec::pcie_bandwidth), text_of(&PlatformSpec::pcie_bandwidth)},
      {{"pcie-latency", "latency of each GPU's PCIe link"}, text_field(&PlatformSpec::pcie_latency), text_of(&PlatformSpec::pcie_latency)},
      {{"cpu-link-bandwidth", "nvlink-cube-mesh: the CPU socket interconnect that pairs without NVLink cross"},
       text_field(&PlatformSpec::cpu_link_bandwidth), text_of(&PlatformSpec::cpu_link_bandwidth)},
      {{"cpu-link-latency", "nvlink-cube-mesh: latency of the CPU socket interconnect"},
       text_field(&PlatformSpec::cpu_link_latency), text_of(&PlatformSpec::cpu_link_latency)},
      {{"nics-per-node", "NICs per node (at most one per GPU); GPU i uses NIC i * nics / gpus"},
       int_field(&PlatformSpec::nics_per_node), int_of(&PlatformSpec::nics_per_node)},
      {{"nic-bandwidth", "each NIC's rate per direction, e.g. 200Gbps"}, text_field(&PlatformSpec::nic_bandwidth), text_of(&PlatformSpec::nic_bandwidth)},
      {{"nic-latency", "each NIC's latency, both ways (a message between nodes crosses two NICs and pays it twice; a workload's network.delay is added once, on the sender's side)"},
       text_field(&PlatformSpec::nic_latency), text_of(&PlatformSpec::nic_latency)},
      {{"flow-cap", "the most one flow gets between nodes, e.g. 10Gbps (AWS TCP); none: a NIC's rate"},
       [](PlatformSpec& s, const std::string& v, const std::string& w) {
         if (v.empty())
           throw InputError(w, "is empty (none: no cap beyond a NIC's rate)");
         s.flow_cap = v == "none" ? "" : v;
       },
       [](const PlatformSpec& s) { return s.flow_cap.empty() ? std::string("none") : s.flow_cap; }},
      {{"topology", "network between nodes: star (one switch) or fat-tree:LEAF_NODES[:OVERSUBSCRIPTION]"},
       [](PlatformSpec& s, const std::string& v, const std::string& w) { s.topology = topology_named(v, w); },
       [](const PlatformSpec& s) { return topology_text(s.topology); }},
  };
  return table;
}

} // namespace

const std::vector<PlatformOption>& platform_options() {
  static const std::vector<PlatformOption> options = [] {
    std::vector<PlatformOption> out;
    for (const OptionEntry& e : entries())
      out.push_back(e.option);
    return out;
  }();
  return options;
}

void set_platform_option(PlatformSpec& spec, const std::string& name, const std::string& value,
                         const std::string& where) {
  for (const OptionEntry& e : entries())
    if (name == e.option.name)
      return e.set(spec, value, where);
  std::string known;
  for (const OptionEntry& e : entries())
    known += (known.empty() ? "" : ", ") + std::string(e.option.name);
  throw InputError(where, fmt::format("unknown platform option '{}' (known: {})", echo(name), known));
}

std::vector<std::pair<std::string, std::string>> platform_option_values(const PlatformSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const OptionEntry& e : entries())
    if (std::string value = e.get(spec); !value.empty())
      out.emplace_back(e.option.name, std::move(value));
  return out;
}

PlatformSpec platform_spec(const std::vector<std::string>& presets_files, const std::string& preset,
                           const std::vector<std::pair<std::string, std::string>>& options) {
  PlatformSpec spec = preset.empty() ? PlatformSpec{} : load_platform_preset(presets_files, preset);
  for (const auto& [name, value] : options)
    set_platform_option(spec, name, value, "--" + name);
  return spec;
}

} // namespace simgpt
