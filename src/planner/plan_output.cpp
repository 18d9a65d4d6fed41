#include "simgpt/planner/plan_output.hpp"
#include "core/csv_field.hpp"
#include "core/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>

namespace simgpt {

std::string plan_name(const PlanCandidate& c) {
  std::string s = fmt::format("dp{} tp{} pp{} mb{} {} {}", c.dp, c.tp, c.pp, c.micro_batch, name_of(c.recompute),
                              name_of(c.schedule));
  if (c.schedule == Schedule::interleaved)
    s += fmt::format("x{}", c.chunks);
  if (c.zero > 0)
    s += fmt::format(" zero{}", c.zero);
  if (c.sequence_parallel)
    s += " sp";
  if (c.ep > 1)
    s += fmt::format(" ep{}", c.ep);
  if (c.cp > 1)
    s += fmt::format(" cp{}", c.cp);
  return s + " " + name_of(c.order);
}

namespace {


std::string number(double v) { return fmt::format("{:.9g}", v); }

// The GPU with the least room left: what the plan has to spare.
double headroom_bytes(const Report& r) {
  double room = std::numeric_limits<double>::infinity();
  for (const StageReport& s : r.stages)
    room = std::min(room, s.memory.usable - s.memory.needed());
  return r.stages.empty() ? 0 : room;
}

double share(double part, double step) { return step > 0 ? part / step : 0; }

// An estimate has no critical path: its communication and bubble shares are unknown.
bool replayed(const Report& r) { return r.fidelity.mode != "estimate"; }

std::string percent_or_dash(const Report& r, double part) {
  return replayed(r) ? fmt::format("{:.1f}%", 100 * share(part, r.step_time_s)) : "-";
}

double tokens_per_s_per_gpu(const Report& r) { return r.tokens_per_s / std::max(1, r.gpus); }

std::string group_value(const PlanCandidate& c, size_t group) {
  const std::vector<std::string> v = plan_values(c);
  switch (group) {
  case 0:
    return fmt::format("{}x{}x{}", c.dp, c.tp, c.pp) + (c.ep > 1 ? fmt::format(" ep{}", c.ep) : "") +
           (c.cp > 1 ? fmt::format(" cp{}", c.cp) : "");
  case 1: return v[3];
  case 2: return v[4];
  case 3: return c.schedule == Schedule::interleaved ? fmt::format("{} x{}", name_of(Schedule::interleaved), c.chunks) : v[5];
  case 4: return v[7];
  case 5: return v[8];
  default: return v[9];
  }
}


} // namespace

std::string plan_text(const PlanResult& result, int top) {
  std::map<PlanStatus, int64_t> counts;
  for (const PlanRow& row : result.rows)
    ++counts[row.status];
  std::string out = fmt::format("plan for {} on {} ({} x {}), objective {}\n", result.workload, result.platform,
                                result.platform_gpus, result.gpu_model, name_of(result.objective));
  const auto estimated = std::count_if(result.rows.begin(), result.rows.end(),
                                       [](const PlanRow& row) { return row.estimate_s > 0; });
  out += fmt::format("{} candidates: {} invalid, {} do not fit (static memory), {} symmetric, {} estimated: {} slower "
                     "by their lower bound, {} by their estimate, {} simulated ({} ok, {} oom, {} failed)\n",
                     result.rows.size(), counts[PlanStatus::invalid], counts[PlanStatus::memory],
                     counts[PlanStatus::symmetric], estimated, counts[PlanStatus::bound], counts[PlanStatus::estimate],
                     counts[PlanStatus::ok] + counts[PlanStatus::oom] + counts[PlanStatus::failed], counts[PlanStatus::ok],
                     counts[PlanStatus::oom], counts[PlanStatus::failed]);
  // A simulation that failed (past --timeout or --memory-limit, say) is left out of the ranking:
  // the one that could have won is named with its reason.
  const PlanRow* failed = nullptr;
  for (const PlanRow& row : result.rows)
    if (row.status == PlanStatus::failed &&
        (failed == nullptr || plan_cost_estimate(row, result.objective) < plan_cost_estimate(*failed, result.objective)))
      failed = &row;
  if (failed != nullptr)
    out += fmt::format("not ranked: {} failed simulations, the best estimated {} (candidate {}{}): {}\n",
                       counts[PlanStatus::failed], plan_name(failed->candidate), failed->index,
                       failed->estimate_s > 0 ? fmt::format(", {:.4g} s", failed->estimate_s) : "", failed->reason);
  if (result.ranked.empty()) {
    out += "no plan fits\n";
    return out;
  }
  const size_t shown = std::min(result.ranked.size(), static_cast<size_t>(std::max(1, top)));
  std::vector<std::string> names;
  size_t width = 16;
  for (size_t k = 0; k < shown; ++k) {
    const PlanRow& row = result.rows[static_cast<size_t>(result.ranked[k])];
    names.push_back(fmt::format("{} ({})", plan_name(row.candidate), row.index));
    width = std::max(width, names.back().size());
  }
  out += fmt::format("\n{:>4}  {:<{}} {:>5} {:>9} {:>11} {:>11} {:>8} {:>9} {:>9} {:>7} {:>7}\n", "rank",
                     "plan (candidate)", width, "GPUs", "step s", "tokens/s", "per GPU", "TFLOP/s", "peak GiB",
                     "room GiB", "comm", "bubble");
  for (size_t k = 0; k < shown; ++k) {
    const PlanRow& row = result.rows[static_cast<size_t>(result.ranked[k])];
    const Report& r = *row.report;
    out += fmt::format("{:>4}  {:<{}} {:>5} {:>9.4f} {:>11.0f} {:>11.1f} {:>8.1f} {:>9.2f} {:>9.2f} {:>7} {:>7}\n",
                       k + 1, names[k], width, r.gpus, r.step_time_s, r.tokens_per_s, tokens_per_s_per_gpu(r),
                       r.tflops_per_gpu, r.peak_memory_bytes / kBytesPerGiB, headroom_bytes(r) / kBytesPerGiB,
                       percent_or_dash(r, r.critical_path.exposed_comm_s), percent_or_dash(r, r.critical_path.bubble_s));
  }
  const PlanRow& winner = result.rows[static_cast<size_t>(result.ranked.front())];
  const double best = plan_cost(winner, result.objective);
  out += "\nthe winner against its neighbours (only that key changed):\n";
  for (size_t group = 0; group < kNeighbourGroups; ++group) {
    const PlanRow* next = nullptr;
    std::map<PlanStatus, int64_t> others;
    for (const PlanRow& row : result.rows) {
      if (!neighbours_in(winner.candidate, row.candidate, group))
        continue;
      ++others[row.status];
      if (row.status == PlanStatus::ok &&
          (next == nullptr || plan_cost(row, result.objective) < plan_cost(*next, result.objective)))
        next = &row;
    }
    std::string line = fmt::format("  {:<30} {:<16}", neighbour_group_name(group), group_value(winner.candidate, group));
    if (next != nullptr) {
      line += fmt::format(" next best {} (candidate {}): +{:.1f}%", group_value(next->candidate, group), next->index,
                          100 * (plan_cost(*next, result.objective) / best - 1));
    } else if (others.empty()) {
      line += " no other value searched";
    } else {
      std::string why;
      for (const auto& [status, n] : others)
        why += fmt::format("{}{} {}", why.empty() ? "" : ", ", n, name_of(status));
      line += " no other value runs: " + why;
    }
    out += line + "\n";
  }
  return out;
}

std::string plan_csv(const PlanResult& result) {
  std::string out = "candidate,gpus";
  for (const std::string& key : plan_keys())
    out += "," + key;
  out += ",status,lower_bound_step_time_s,static_peak_memory_gib,step_time_s,tokens_per_s,tokens_per_s_per_gpu,"
         "peak_memory_gib,headroom_gib,exposed_comm_share,bubble_share,estimate_step_time_s,estimate_contended,reason\n";
  for (const PlanRow& row : result.rows) {
    std::string line = fmt::format("{},{}", row.index, row.gpus());
    for (const std::string& v : plan_values(row.candidate))
      line += "," + csv_field(v);
    line += std::string(",") + name_of(row.status);
    const bool bounded = row.status != PlanStatus::invalid || row.step_lower_bound_s > 0;
    line += bounded ? "," + number(row.step_lower_bound_s) + "," + number(row.static_peak_bytes / kBytesPerGiB) : ",,";
    if (row.report) {
      const Report& r = *row.report;
      line += fmt::format(",{},{},{},{},{},{},{}", number(r.step_time_s), number(r.tokens_per_s),
                          number(tokens_per_s_per_gpu(r)), number(r.peak_memory_bytes / kBytesPerGiB),
                          number(headroom_bytes(r) / kBytesPerGiB),
                          replayed(r) ? number(share(r.critical_path.exposed_comm_s, r.step_time_s)) : "",
                          replayed(r) ? number(share(r.critical_path.bubble_s, r.step_time_s)) : "");
    } else {
      line += ",,,,,,,";
    }
    line += row.estimate_s > 0 ? fmt::format(",{},{}", number(row.estimate_s), row.estimate_contended) : ",,";
    out += line + "," + csv_field(row.reason) + "\n";
  }
  return out;
}

} // namespace simgpt
