#include "simgpt/planner/search_space.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace simgpt {
namespace {

// The search takes recomputation from none to the most, not in the enum's order.
constexpr Recompute kRecomputes[] = {Recompute::none, Recompute::selective, Recompute::full};

// A key's values when they are names, in the order the search takes them; empty for integers.
std::vector<std::string> named_values(const std::string& key) {
  if (key == "training.recompute") {
    std::vector<std::string> names;
    for (Recompute recompute : kRecomputes)
      names.emplace_back(name_of(recompute));
    return names;
  }
  if (key == "parallelism.schedule")
    return enum_name_list<Schedule>();
  if (key == "parallelism.sequence_parallel")
    return {"false", "true"};
  if (key == "placement.order")
    return enum_name_list<RankOrder>();
  return {};
}

// A positive integer (zero: 0 to 3) as written, or nothing.
std::optional<int64_t> parse_count(const std::string& text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

[[noreturn]] void refuse_candidates() {
  throw LimitError("--search", fmt::format("the search holds more than {} candidate plans, simgpt's limit (each takes "
                                           "about 540 bytes and a static check while searched); restrict it with "
                                           "--search KEY=V1,V2,... or fewer --gpus",
                                           kMaxPlanCandidates));
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      out.push_back(d);
      if (d != n / d)
        out.push_back(n / d);
    }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

const std::vector<std::string>& plan_keys() {
  static const std::vector<std::string> keys = {
      "parallelism.dp",     "parallelism.tp",     "parallelism.pp",   "training.micro_batch",
      "training.recompute", "parallelism.schedule", "parallelism.chunks", "parallelism.zero",
      "parallelism.sequence_parallel", "placement.order", "parallelism.ep", "parallelism.cp"};
  return keys;
}

std::vector<std::string> plan_values(const PlanCandidate& c) {
  return {std::to_string(c.dp),       std::to_string(c.tp),     std::to_string(c.pp),
          std::to_string(c.micro_batch), name_of(c.recompute), name_of(c.schedule),
          std::to_string(c.chunks),   std::to_string(c.zero),   c.sequence_parallel ? "true" : "false",
          name_of(c.order),           std::to_string(c.ep),     std::to_string(c.cp)};
}

std::vector<std::string> plan_overrides(const PlanCandidate& c, const Workload& base, Partition framework_partition) {
  std::vector<std::string> sets;
  const std::vector<std::string> values = plan_values(c);
  for (size_t k = 0; k < values.size(); ++k)
    sets.push_back(plan_keys()[k] + "=" + values[k]);
  // Always: a candidate of fewer GPUs than the platform has runs on the first of them, as asked
  // (the workload's own placement.gpus, or --gpus), never refused as leaving the others idle.
  sets.push_back(fmt::format("placement.gpus={}", c.gpus()));
  if (base.parallelism.partition == Partition::listed)
    sets.push_back(std::string("parallelism.partition=") +
                   name_of(framework_partition == Partition::balanced ? Partition::balanced : Partition::uniform));
  return sets;
}

Workload apply_plan(const PlanCandidate& c, const Workload& base, Partition framework_partition) {
  Workload w = base;
  auto& p = w.parallelism;
  p.dp = c.dp;
  p.dp_from_platform = false;
  p.tp = c.tp;
  p.pp = c.pp;
  w.training.micro_batch = c.micro_batch;
  w.training.recompute = c.recompute;
  p.schedule = c.schedule;
  p.chunks = c.chunks;
  p.zero = c.zero;
  p.sequence_parallel = c.sequence_parallel;
  p.ep = c.ep;
  p.cp = c.cp;
  w.placement.order = c.order;
  w.placement.gpus = c.gpus();
  if (p.partition == Partition::listed) {
    p.partition = framework_partition == Partition::balanced ? Partition::balanced : Partition::uniform;
    p.stage_layers.clear();
  }
  return w;
}

const char* neighbour_group_name(size_t group) {
  constexpr const char* names[kNeighbourGroups] = {"dp x tp x pp",       "training.micro_batch",
                                                   "training.recompute", "parallelism.schedule",
                                                   "parallelism.zero",   "parallelism.sequence_parallel",
                                                   "placement.order"};
  return group < kNeighbourGroups ? names[group] : "?";
}

bool neighbours_in(const PlanCandidate& a, const PlanCandidate& b, size_t group) {
  PlanCandidate x = a, y = b;
  switch (group) {
  case 0: x.dp = y.dp, x.tp = y.tp, x.pp = y.pp, x.ep = y.ep, x.cp = y.cp; break;
  case 1: x.micro_batch = y.micro_batch; break;
  case 2: x.recompute = y.recompute; break;
  case 3: x.schedule = y.schedule, x.chunks = y.chunks; break;
  case 4: x.zero = y.zero; break;
  case 5: x.sequence_parallel = y.sequence_parallel; break;
  case 6: x.order = y.order; break;
  }
  return x == y && !(a == b);
}

std::vector<std::string> SearchSpace::restrictions() const {
  std::vector<std::string> out;
  for (const auto& [key, values] : allowed_)
    out.push_back(key + "=" + fmt::format("{}", fmt::join(values, ",")));
  return out;
}

void SearchSpace::restrict(const std::string& argument) {
  const auto eq = argument.find('=');
  const std::string key = argument.substr(0, eq);
  const std::string where = "--search " + echo(key);
  if (eq == std::string::npos || eq == 0)
    throw InputError("--search " + echo(argument),
                     "expected KEY=V1,V2,... e.g. --search parallelism.tp=1,2,4 --search training.recompute=none");
  const auto& keys = plan_keys();
  if (std::find(keys.begin(), keys.end(), key) == keys.end())
    throw InputError(where, fmt::format("is not a key the planner searches (expected one of: {})", fmt::join(keys, ", ")));
  if (allowed_.contains(key))
    throw InputError(where, "is given twice (list all its values in one --search)");
  const std::string list = argument.substr(eq + 1);
  if (list.empty())
    throw InputError(where, "lists no value (expected KEY=V1,V2,...)");
  std::vector<std::string> values;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string value = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::vector<std::string> names = named_values(key);
    if (value.empty())
      throw InputError(where, fmt::format("'{}' has an empty value (expected V1,V2,... without empty items)", echo(list)));
    if (!names.empty()) {
      if (std::find(names.begin(), names.end(), value) == names.end())
        throw InputError(where, fmt::format("'{}' is not valid (expected one of: {})", echo(value), fmt::join(names, ", ")));
    } else {
      const std::optional<int64_t> n = parse_count(value);
      const bool zero = key == "parallelism.zero";
      if (!n || (zero ? *n < 0 || *n > 3 : *n < 1))
        throw InputError(where, fmt::format("'{}' is not valid (expected {})", echo(value),
                                            zero ? "0, 1, 2 or 3" : "a positive integer"));
      if (!zero && *n > (int64_t{1} << 40))
        throw InputError(where, fmt::format("'{}' is too large", echo(value)));
    }
    if (std::find(values.begin(), values.end(), value) == values.end())
      values.push_back(value);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  allowed_[key] = values;
}

bool SearchSpace::allows(const std::string& key, const std::string& value) const {
  const auto it = allowed_.find(key);
  return it == allowed_.end() || std::find(it->second.begin(), it->second.end(), value) != it->second.end();
}

std::vector<PlanCandidate> SearchSpace::candidates(const Workload& base, const FrameworkSupport& support) const {
  std::vector<PlanCandidate> out;
  const auto restricted_counts = [&](const std::string& key, const std::vector<int64_t>& defaults) {
    const auto it = allowed_.find(key);
    if (it == allowed_.end())
      return defaults;
    std::vector<int64_t> counts;
    for (const std::string& v : it->second)
      counts.push_back(*parse_count(v));
    std::sort(counts.begin(), counts.end());
    return counts;
  };
  const std::vector<int64_t> micro_batches =
      restricted_counts("training.micro_batch", divisors(base.training.global_batch));
  // Context parallelism, unless searched: none, the workload's own degree, and where the model can
  // split its sequences (FlashAttention, seq_len a multiple of 2 cp: check_context) 2, 4 and 8.
  std::vector<int64_t> cps = restricted_counts("parallelism.cp", {1});
  if (!allowed_.contains("parallelism.cp")) {
    for (const int64_t cp : {int64_t{2}, int64_t{4}, int64_t{8}})
      if (base.model.attention == Attention::flash && base.model.seq_len % (2 * cp) == 0)
        cps.push_back(cp);
    if (base.parallelism.cp > 1 && std::find(cps.begin(), cps.end(), base.parallelism.cp) == cps.end())
      cps.push_back(base.parallelism.cp);
  }
  for (int64_t gpus : gpus_)
    for (int64_t cp : cps)
    for (int64_t dp : gpus % cp == 0 ? divisors(gpus / cp) : std::vector<int64_t>{})
      for (int64_t tp : divisors(gpus / cp / dp)) {
        const int64_t pp = gpus / cp / dp / tp;
        if (!allows("parallelism.dp", std::to_string(dp)) || !allows("parallelism.tp", std::to_string(tp)) ||
            !allows("parallelism.pp", std::to_string(pp)))
          continue;
        // Expert parallelism: a mixture of experts' every degree dividing dp and the experts.
        std::vector<int64_t> eps{1};
        if (base.model.moe()) {
          eps.clear();
          for (int64_t ep : divisors(dp))
            if (base.model.experts % ep == 0)
              eps.push_back(ep);
        }
        eps = restricted_counts("parallelism.ep", eps);
        for (int64_t ep : eps) {
        // Unsearched, a key takes only what the framework runs; a searched value it does not run
        // is a candidate the check refuses, with its reason.
        if ((tp > 1 && !support.tensor_parallel && !allowed_.contains("parallelism.tp")) ||
            (pp > 1 && !support.pipeline && !allowed_.contains("parallelism.pp")))
          continue;
        for (int64_t mb : micro_batches)
          for (Recompute recompute : kRecomputes) {
            if (!allows("training.recompute", name_of(recompute)))
              continue;
            for (const EnumName<Schedule>& named_schedule : kScheduleNames) {
              const Schedule schedule = named_schedule.value;
              if (allowed_.contains("parallelism.schedule") ? !allows("parallelism.schedule", named_schedule.name)
                                                            : pp > 1 && !support.allows_schedule(schedule))
                continue;
              // Interleaving needs stages to interleave; a restriction may still ask for it.
              std::vector<int64_t> chunk_counts{1};
              if (schedule == Schedule::interleaved) {
                chunk_counts.clear();
                for (int64_t c = 2; pp > 1 && c * pp <= base.model.layers; ++c)
                  chunk_counts.push_back(c);
                chunk_counts = restricted_counts("parallelism.chunks", chunk_counts);
              } else if (!allows("parallelism.chunks", "1")) {
                continue;
              }
              for (int64_t chunks : chunk_counts)
                for (int64_t zero = 0; zero <= 3; ++zero) {
                  const bool searched = allowed_.contains("parallelism.zero");
                  if (searched ? !allows("parallelism.zero", std::to_string(zero))
                               : (zero > 0 && dp == 1) || !support.allows_zero(zero, pp > 1))
                    continue;
                  for (bool sp : {false, true}) {
                    const bool sp_searched = allowed_.contains("parallelism.sequence_parallel");
                    if (sp_searched ? !allows("parallelism.sequence_parallel", sp ? "true" : "false")
                                    : sp && (tp == 1 || !support.sequence_parallel))
                      continue;
                    for (const EnumName<RankOrder>& named_order : kRankOrderNames) {
                      const RankOrder order = named_order.value;
                      // Unsearched, the placement is the workload's own.
                      if (allowed_.contains("placement.order") ? !allows("placement.order", named_order.name)
                                                               : order != base.placement.order)
                        continue;
                      if (out.size() == kMaxPlanCandidates)
                        refuse_candidates();
                      out.push_back({dp, tp, pp, mb, recompute, schedule, chunks, zero, sp, order, ep, cp});
                    }
                  }
                }
            }
          }
        }
      }
  return out;
}

void SearchSpace::check_expert_degrees(const Workload& base) const {
  const auto searched = allowed_.find("parallelism.ep");
  if (searched == allowed_.end())
    return;
  for (const std::string& value : searched->second) {
    const int64_t ep = *parse_count(value); // restrict() took only counts
    if (ep == 1)
      continue;
    const std::string where = "--search parallelism.ep";
    if (!base.model.moe())
      throw InputError(where, fmt::format("{} needs a mixture-of-experts model, and {} is dense (no model.experts): "
                                          "its only ep is 1",
                                          ep, base.source));
    if (base.model.experts % ep != 0)
      throw InputError(where, fmt::format("{} does not divide the model's {} experts (each expert-parallel rank holds "
                                          "experts / ep of them)",
                                          ep, base.model.experts));
    if (std::none_of(gpus_.begin(), gpus_.end(), [ep](int64_t gpus) { return gpus % ep == 0; }))
      throw InputError(where, fmt::format("{} divides no data-parallel size of a job of {} GPUs (ep divides dp)", ep,
                                          fmt::join(gpus_, " or ")));
  }
}

std::vector<int64_t> parse_gpus(const std::string& text, int64_t available) {
  std::vector<int64_t> gpus;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::optional<int64_t> n = parse_count(item);
    if (!n || *n < 1 || *n > available)
      throw InputError("--gpus " + echo(text),
                       fmt::format("'{}' is not a job size the platform holds (expected a number of GPUs from 1 to "
                                   "{}, or a list such as 8,16)",
                                   echo(item), available));
    if (std::find(gpus.begin(), gpus.end(), *n) == gpus.end())
      gpus.push_back(*n);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  std::sort(gpus.begin(), gpus.end());
  return gpus;
}

} // namespace simgpt
