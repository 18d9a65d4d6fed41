#include "simgpt/report/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <cmath>

namespace simgpt {
namespace {
// A number with `digits` decimals, as long as that stays short: fixed notation would spell out
// 1e300 in 300 digits, so huge and non-finite values get four significant digits instead.
std::string num(double x, int digits) {
  if (!std::isfinite(x) || std::abs(x) >= 1e9)
    return fmt::format("{:.4g}", x);
  return fmt::format("{:.{}f}", x, digits);
}

// A count of tokens as model cards write it: 15T, 300B, 2.5M.
std::string token_count(double tokens) {
  constexpr std::pair<double, char> kScales[] = {{1e12, 'T'}, {1e9, 'B'}, {1e6, 'M'}, {1e3, 'K'}};
  for (const auto& [scale, suffix] : kScales)
    if (tokens >= scale)
      return fmt::format("{:.4g}{}", tokens / scale, suffix);
  return fmt::format("{:.4g}", tokens);
}

std::string or_dash(int x) { return x < 0 ? "-" : std::to_string(x); }

// step = compute + bubble + exposed communication by kind (+ other, when there is any), then
// the path's longest tasks.
std::string critical_path_text(const CriticalPathReport& c, double step_time_s) {
  std::string out = fmt::format("  critical    {} s = {} compute (pacing stage {}) + {} bubble", num(step_time_s, 3),
                                num(c.compute_s, 3), c.pacing_stage, num(c.bubble_s, 3));
  for (const auto& [kind, seconds] : c.comm_s)
    out += fmt::format(" + {} {}", num(seconds, 3), kind);
  if (c.other_s != 0)
    out += fmt::format(" + {} other", num(c.other_s, 3));
  out += "\n";
  if (c.top_tasks.empty())
    return out;
  out += fmt::format("  {:<11} {:<13} {:>4} {:>6} {:>12} {:>9} {:>11}\n", "", "longest tasks", "gpu", "stage",
                     "micro-batch", "start s", "duration s");
  for (const CriticalPathReport::Task& t : c.top_tasks)
    out += fmt::format("  {:<11} {:<13} {:>4} {:>6} {:>12} {:>9} {:>11}\n", "", t.kind, or_dash(t.gpu),
                       or_dash(t.stage), or_dash(t.micro_batch), num(t.start_s, 3), num(t.duration_s, 3));
  return out;
}
// The communication by dimension, as a table of the dimensions the plan uses.
std::string communication_text(const std::vector<Report::Communication>& dimensions, int view_gpu) {
  std::string rows;
  for (const Report::Communication& c : dimensions)
    if (c.count > 0 || c.in_flight_s > 0 || c.exposed_s > 0)
      rows += fmt::format("  {:<11} {:<9} {:>11} {:>8} {:>10} {:>11} {:>9} {:>10}\n", "", c.dimension, c.count,
                          c.per_gpu, num(c.bytes / 1e9, 3), num(c.in_flight_s, 3), num(c.hidden_s, 3),
                          num(c.exposed_s, 3));
  if (rows.empty())
    return "";
  // Which collectives a kernel table's measured lines priced (KernelTable::CollectiveLine), where any.
  std::string tabled;
  for (const Report::Communication& c : dimensions)
    if (c.from_table > 0)
      tabled += fmt::format("{}{} {} of {}", tabled.empty() ? "" : ", ", c.dimension, c.from_table, c.count);
  if (!tabled.empty())
    rows += fmt::format("  {:<11} measured on the GPU (its kernel table's collectives): {}\n", "", tabled);
  return fmt::format("  comm        by parallel dimension; in flight and hidden under compute on GPU {}, exposed on "
                     "the critical path\n  {:<11} {:<9} {:>11} {:>8} {:>10} {:>11} {:>9} {:>10}\n",
                     view_gpu, "", "dimension", "collectives", "on GPU 0", "GB sent", "in flight s", "hidden s",
                     "exposed s") +
         rows;
}

} // namespace

namespace {

double percent(double part, double whole) { return whole > 0 ? 100 * part / whole : 0; }

// "kernels     83.4% of kernel time measured (gemm 100.0%, ...), from TABLE": which share of the
// step's kernel time a kernel table gave.
std::string kernel_time_text(const std::vector<Report::KernelTime>& kinds, const std::vector<std::string>& tables) {
  if (tables.empty())
    return "  kernels     no kernel table for this GPU: every kernel priced (catalog peak x efficiency, HBM "
           "bandwidth)\n";
  double measured = 0, total = 0;
  std::string each;
  for (const Report::KernelTime& k : kinds) {
    measured += k.measured_s;
    total += k.measured_s + k.fallback_s;
    if (k.measured_s + k.fallback_s > 0)
      each += fmt::format("{}{} {}%", each.empty() ? "" : ", ", k.kind,
                          num(percent(k.measured_s, k.measured_s + k.fallback_s), 1));
  }
  std::string files;
  for (const std::string& t : tables)
    files += (files.empty() ? "" : ", ") + t;
  return fmt::format("  kernels     {}% of kernel time from measured timings ({}), {}\n", num(percent(measured, total), 1),
                     each, files);
}

// "conditions  3 GPUs slowed (...), 1 link": what was wrong with the cluster and what it cost on
// the critical path; the ten GPUs longest on the path listed, then how many more.
std::string conditions_text(const Report::Conditions& c, const std::string& mode) {
  std::string out;
  std::string what;
  if (!c.gpus.empty()) {
    double low = c.gpus.front().factor, high = low;
    for (const auto& g : c.gpus) {
      low = std::min(low, g.factor);
      high = std::max(high, g.factor);
    }
    what = fmt::format("{} GPU{} slowed ({}x{})", c.gpus.size(), c.gpus.size() == 1 ? "" : "s", num(low, 3),
                       high > low ? fmt::format(" to {}x", num(high, 3)) : "");
    if (c.random)
      what += fmt::format(", {}% of the job's drawn with seed {}", num(100 * c.random_fraction, 3), c.seed);
  }
  if (!c.links.empty())
    what += fmt::format("{}{} link{} conditioned", what.empty() ? "" : ", ", c.links.size(),
                        c.links.size() == 1 ? "" : "s");
  out += fmt::format("  conditions  {}\n", what.empty() ? "none in effect (every factor 1, no GPU drawn)" : what);
  if (c.every_replica)
    out += "              every replica simulated: the conditions make the replicas unlike (symmetric fidelity was "
           "asked)\n";
  if (mode == "estimate")
    return out;
  std::vector<Report::Conditions::Gpu> gpus = c.gpus;
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const auto& a, const auto& b) { return a.path_compute_s > b.path_compute_s; });
  constexpr size_t kListed = 10;
  const double cost = c.path_cost_s;
  if (!gpus.empty())
    out += fmt::format("              slowdowns: {} s of the critical path's compute, at most what they cost the step "
                       "(the same path at full speed)\n",
                       num(cost, 3));
  for (size_t i = 0; i < gpus.size() && i < kListed; ++i)
    out += fmt::format("              gpu {} x{}: {} s of its compute on the critical path, {} s of it the slowdown\n",
                       gpus[i].gpu, num(gpus[i].factor, 3), num(gpus[i].path_compute_s, 3),
                       num(gpus[i].path_cost_s, 3));
  if (gpus.size() > kListed)
    out += fmt::format("              and {} more slowed GPUs\n", gpus.size() - kListed);
  for (const auto& l : c.links) {
    std::vector<std::string> what_link;
    if (l.bandwidth_factor != 1)
      what_link.push_back(fmt::format("bandwidth x{}", num(l.bandwidth_factor, 3)));
    if (l.latency_added_s != 0)
      what_link.push_back(fmt::format("latency +{:.4g} us", l.latency_added_s * 1e6));
    if (l.down)
      what_link.push_back("down, its GPUs re-routed");
    out += fmt::format("              link {} ({}): {} s of the critical path's communication crosses it\n", l.link,
                       fmt::join(what_link, ", "), num(l.path_s, 3));
  }
  return out;
}

} // namespace

std::string Report::to_text() const {
  std::string out;
  out += fmt::format("simgpt: {} on {}\n", workload, platform);
  out += fmt::format("  plan        dp={} tp={} pp={} ({} GPUs), {} schedule, {} micro-batches, framework {}\n", dp,
                     tp, pp, gpus, schedule, micro_batches, framework);
  if (dp_derived)
    out += fmt::format("              dp={} derived from the {} GPUs, as Megatron-LM does: parallelism.dp was left out\n",
                       dp, gpus);
  if (first_gpu > 0 || neighbour_jobs > 0)
    out += fmt::format("  placement   GPUs {} to {} of the platform{}\n", first_gpu, first_gpu + gpus - 1,
                       neighbour_jobs > 0 ? fmt::format(", its fabric shared with {} other job{}", neighbour_jobs,
                                                        neighbour_jobs == 1 ? "" : "s")
                                          : "");
  if (!gpu_models.empty())
    out += fmt::format("  gpus        {}: each GPU at its own model's pace against the first's\n", gpu_models);
  out += fmt::format("  step time   {} s\n", num(step_time_s, 3));
  if (fidelity.mode == "symmetric")
    out += fmt::format("  fidelity    symmetric: {} of {} data-parallel replicas, the communication of {} of {} tensor "
                       "ranks simulated\n{}",
                       fidelity.replicas_simulated, dp, fidelity.tensor_ranks_simulated, tp,
                       fidelity.expert_group_folded == 0
                           ? ""
                           : fmt::format("              each expert-parallel group's {} members as one: its all-to-alls "
                                         "replayed whole, the first of each size with its flows, the others as long\n",
                                         fidelity.expert_group_folded));
  else if (fidelity.mode == "estimate")
    out += fmt::format("  fidelity    estimate: closed form from the same costs, no replay (no critical path or "
                       "collective counts; a stage's compute s includes the collectives on its compute stream)\n");
  else
    out += fmt::format("  fidelity    full: every replica and transfer simulated\n");
  if (conditions)
    out += conditions_text(*conditions, fidelity.mode);
  out += fmt::format("  throughput  {} samples/s, {} tokens/s, {} TFLOP/s per GPU (model FLOPs)\n",
                     num(samples_per_s, 2), num(tokens_per_s, 0), num(tflops_per_gpu, 2));
  if (peak_tflops_per_gpu > 0)
    out += fmt::format("  mfu         {}% of the {} dense peak ({} TFLOP/s per GPU){}\n", num(100 * mfu, 1),
                       peak_precision, fmt::format("{:.4g}", peak_tflops_per_gpu),
                       hfu > mfu ? fmt::format(", {}% counting recompute (hardware FLOPs)", num(100 * hfu, 1)) : "");
  if (time_to_train)
    out += fmt::format("  to train    {} tokens: {} days, {} GPU-hours{}\n", token_count(time_to_train->tokens),
                       num(time_to_train->days, 1), num(time_to_train->gpu_hours, 0),
                       time_to_train->cost > 0 ? fmt::format(", cost {}", num(time_to_train->cost, 0)) : "");
  out += kernel_time_text(kernel_time, kernel_tables);
  if (fidelity.mode != "estimate")
    out += fmt::format("  p2p         {} transfers, {} MB\n", p2p_transfers, num(p2p_bytes / 1e6, 1));
  for (const Collectives& c : collectives)
    out += fmt::format("  {:<11} {} per step ({} on GPU 0), {} MB sent\n", c.kind, c.count, c.per_gpu, num(c.bytes / 1e6, 1));
  if (fidelity.mode != "estimate")
    out += critical_path_text(critical_path, step_time_s);
  out += communication_text(communication, communication_gpu);
  constexpr double GiB = 1024.0 * 1024 * 1024;
  out += fmt::format("  memory      peak {} GiB on stage {} ({} GiB of live tensors){}\n",
                     num(peak_memory_bytes / GiB, 2), peak_memory_stage, num(peak_allocated_bytes / GiB, 2),
                     oom ? " -- OUT OF MEMORY" : "");
  out += fmt::format("  {:>5} {:>4} {:>6} {:>10} {:>10} {:>10} {:>9} {:>9} {:>27}\n", "stage", "gpu", "layers",
                     "compute s", "comm s", "idle s", "peak GiB", "usable", "weights+grads+opt/act/other");
  for (const StageReport& s : stages) {
    const MemoryReport& m = s.memory;
    out += fmt::format("  {:>5} {:>4} {:>6} {:>10} {:>10} {:>10} {:>9} {:>9} {:>11}/{:>6}/{:>6}{}\n", s.stage, s.gpu,
                       s.layers, num(s.compute_s, 3), fidelity.mode == "estimate" ? "-" : num(s.comm_wait_s, 3),
                       num(s.idle_s, 3), num(m.peak / GiB, 2),
                       num(m.usable / GiB, 2), num((m.weights + m.gradients + m.optimizer_state) / GiB, 2),
                       num(m.activations / GiB, 2), num((m.transient + m.framework) / GiB, 2),
                       m.out_of_memory() ? "  OOM" : "");
  }
  return out;
}

} // namespace simgpt
