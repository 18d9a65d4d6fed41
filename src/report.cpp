#include "simgpt/report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace simgpt {
namespace {

// Rounds to 9 significant digits so that JSON output does not depend on the last bits of
// floating-point sums.
double rounded(double x) {
  if (x == 0 || !std::isfinite(x))
    return x;
  return std::stod(fmt::format("{:.9g}", x));
}

} // namespace

nlohmann::ordered_json Report::to_json() const {
  nlohmann::ordered_json j;
  j["platform"] = platform;
  j["workload"] = workload;
  j["framework"] = framework;
  j["schedule"] = schedule;
  j["gpus"] = gpus;
  j["dp"] = dp;
  j["tp"] = tp;
  j["pp"] = pp;
  j["micro_batches"] = micro_batches;
  j["step_time_s"] = rounded(step_time_s);
  j["samples_per_s"] = rounded(samples_per_s);
  j["tokens_per_s"] = rounded(tokens_per_s);
  j["model_flops"] = rounded(model_flops);
  j["tflops_per_gpu"] = rounded(tflops_per_gpu);
  j["p2p_transfers"] = p2p_transfers;
  j["p2p_bytes"] = rounded(p2p_bytes);
  j["critical_path"] = {{"compute_s", rounded(critical_compute_s)}, {"comm_s", rounded(critical_comm_s)}};
  auto& coll = j["collectives"] = nlohmann::ordered_json::object();
  for (const Collectives& c : collectives)
    coll[c.kind] = {{"count", c.count}, {"bytes", rounded(c.bytes)}};
  auto& arr = j["stages"] = nlohmann::ordered_json::array();
  for (const StageReport& s : stages)
    arr.push_back({{"stage", s.stage},
                   {"gpu", s.gpu},
                   {"layers", s.layers},
                   {"compute_s", rounded(s.compute_s)},
                   {"comm_wait_s", rounded(s.comm_wait_s)},
                   {"idle_s", rounded(s.idle_s)}});
  return j;
}

std::string Report::to_text() const {
  std::string out;
  out += fmt::format("simgpt: {} on {}\n", workload, platform);
  out += fmt::format("  plan        dp={} tp={} pp={} ({} GPUs), {} schedule, {} micro-batches, framework {}\n", dp,
                     tp, pp, gpus, schedule, micro_batches, framework);
  out += fmt::format("  step time   {:.3f} s\n", step_time_s);
  out += fmt::format("  throughput  {:.2f} samples/s, {:.0f} tokens/s, {:.2f} TFLOP/s per GPU (model FLOPs)\n",
                     samples_per_s, tokens_per_s, tflops_per_gpu);
  out += fmt::format("  p2p         {} transfers, {:.1f} MB\n", p2p_transfers, p2p_bytes / 1e6);
  for (const Collectives& c : collectives)
    out += fmt::format("  {:<11} {} per step, {:.1f} MB sent\n", c.kind, c.count, c.bytes / 1e6);
  out += fmt::format("  critical    {:.3f} s compute, {:.3f} s communication\n", critical_compute_s, critical_comm_s);
  out += fmt::format("  {:>5} {:>4} {:>6} {:>10} {:>10} {:>10}\n", "stage", "gpu", "layers", "compute s", "comm s",
                     "idle s");
  for (const StageReport& s : stages)
    out += fmt::format("  {:>5} {:>4} {:>6} {:>10.3f} {:>10.3f} {:>10.3f}\n", s.stage, s.gpu, s.layers, s.compute_s,
                       s.comm_wait_s, s.idle_s);
  return out;
}

} // namespace simgpt
