#include "simgpt/framework/parameters.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/framework/profile.hpp"

#include <fmt/format.h>

namespace simgpt {
namespace {

// Units as `calibrate --write` has always written them (the loader reads any unit of the kind).
// Ranges: host overheads from none to 50 ms (1 ms per kernel), protocol efficiency from 50% to 100%.
constexpr ProfileParameter parameters[] = {
    {"compute.op_overhead", [](Profile& p) -> double& { return p.op_overhead_s; }, "s", "ms", 1e3, 0, 1e-3, false,
     "host time per kernel launch (Python dispatch); hidden when kernels are longer",
     "a framework's dispatch cost per kernel; none to 1 ms"},
    {"compute.microbatch_overhead", [](Profile& p) -> double& { return p.microbatch_overhead_s; }, "s", "ms", 1e3, 0,
     0.05, false, "host synchronisation per micro-batch and pass, not overlapped",
     "a host overhead per pipeline slot; none to 50 ms"},
    {"p2p.bandwidth_efficiency", [](Profile& p) -> double& { return p.bandwidth_efficiency; }, "", "", 1, 0.5, 1.0,
     false, "payload fraction of link bandwidth (headers, protocol)",
     "protocol efficiency, 50% to 100% of the link"},
    {"p2p.tcp_window", [](Profile& p) -> double& { return p.tcp_window_bytes; }, "B", "MB", 1e-6, 64e3, 64e6, true,
     "per-flow window (0: unlimited); rate <= window / round trip",
     "TCP: one socket's default window to many sockets' worth", true},
    {"p2p.max_rate", [](Profile& p) -> double& { return p.p2p_max_rate_Bps; }, "B/s", "Gbps", 8 / 1e9, 0.1e9 / 8,
     100e9 / 8, true, "the backend's own throughput ceiling per transfer (0: none)",
     "a CPU-bound socket protocol (Gloo); 0.1 to 100 Gbps", true},
    {"collectives.dispatch_sm_bandwidth", [](Profile& p) -> double& { return p.dispatch_sm_bandwidth; }, "B/s",
     "GBps", 1e-9, 1e9, 200e9, true,
     "bytes a second each SM of DeepEP's or Hybrid-EP's kernels moves (0: not bound)",
     "an SM's copies to its NVLink peers; 1 to 200 GB/s", true},
    {"memory.allocator_overhead", [](Profile& p) -> double& { return p.memory.allocator_overhead; }, "", "", 1, 0, 1,
     false, "fraction of allocated bytes the caching allocator holds beyond them",
     "PyTorch's caching allocator holds up to as much again as is allocated"},
    {"memory.logits_bytes", [](Profile& p) -> double& { return p.memory.logits_bytes; }, "", "", 1, 2, 32, false,
     "bytes per logit element the loss holds at its peak",
     "8 for a fused cross-entropy (fp32 logits and their gradient); one fp16 copy to several fp32 ones"},
    {"memory.recompute_kept", [](Profile& p) -> double& { return p.memory.recompute_kept; }, "", "", 1, 1, 4, false,
     "[s, b, h] tensors a fully recomputed layer keeps",
     "1 (its input) when the whole layer is checkpointed, more when only some blocks are"},
    {"memory.replicated_kept", [](Profile& p) -> double& { return p.memory.replicated_kept; }, "", "", 1, 2, 16, false,
     "[s, b, h] tensors a layer keeps for backward that tensor parallelism does not split",
     "4 in Megatron (Korthikanti et al. 2022), more when a compiler keeps others"},
    {"optimizer.offload_time", [](Profile& p) -> double& { return p.offload_time_per_parameter_s; }, "s", "ns", 1e9,
     0.5e-9, 100e-9, false,
     "host time per parameter of an offloaded optimizer step: its gradient copied down, the CPU's passes, its weight copied up",
     "2 bytes each way over PCIe and some 30 bytes of CPU memory traffic a parameter; 0.5 to 100 ns"},
};

} // namespace

std::span<const ProfileParameter> profile_parameters() { return parameters; }

const ProfileParameter& find_profile_parameter(std::string_view key, const std::string& where) {
  std::string keys;
  for (const ProfileParameter& p : parameters) {
    if (p.key == key)
      return p;
    keys += fmt::format("{}{}", keys.empty() ? "" : ", ", p.key);
  }
  throw InputError(where, fmt::format("'{}' cannot be fitted (fittable: {})", key, keys));
}

void check_profile_parameter_value(const ProfileParameter& p, double value, const std::string& where) {
  if (value >= p.min && value <= p.max)
    return;
  if (p.zero_means_none && value == 0)
    return;
  throw InputError(where, fmt::format("{} is out of range (expected {:.4g} to {:.4g}{}{}{})", value, p.min, p.max,
                                      p.si_unit.empty() ? "" : " ", p.si_unit,
                                      p.zero_means_none ? ", or 0 for none" : ""));
}

std::string profile_parameters_markdown() {
  std::string out = "| key | unit | range | meaning |\n| --- | --- | --- | --- |\n";
  for (const ProfileParameter& p : parameters)
    out += fmt::format("| {} | {} | {:.4g} - {:.4g} | {} |\n", p.key, p.unit, p.min * p.per_si, p.max * p.per_si,
                       p.meaning);
  return out;
}

} // namespace simgpt
