// The plans a search considers: every split of a job's GPUs into data, tensor and pipeline
// degrees, with each micro-batch size, recompute mode, schedule (and interleaving), ZeRO stage,
// sequence parallelism and rank placement, or the values `--search` restricts each key to.
#pragma once

#include "simgpt/framework/framework_support.hpp"
#include "simgpt/workload/workload.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simgpt {

// One plan: the values of the searched workload keys.
struct PlanCandidate {
  int64_t dp = 1, tp = 1, pp = 1;
  int64_t micro_batch = 1;
  Recompute recompute = Recompute::none;
  Schedule schedule = Schedule::one_f_one_b;
  int64_t chunks = 1;
  int64_t zero = 0;
  bool sequence_parallel = false;
  RankOrder order = RankOrder::tp_dp_pp;
  int64_t ep = 1, cp = 1; // expert and context parallelism

  int64_t gpus() const { return dp * cp * tp * pp; }
  bool operator==(const PlanCandidate&) const = default;
};

// The searched keys by their workload names (what --set and --search take), in the order plans
// are listed: parallelism.dp, parallelism.tp, parallelism.pp, training.micro_batch, ...
const std::vector<std::string>& plan_keys();

// The candidate's value of each of plan_keys(), as the workload file writes it.
std::vector<std::string> plan_values(const PlanCandidate& c);

// The workload overrides (KEY=VALUE, --set's form) that turn a workload into the candidate:
// plan_keys() and placement.gpus. `base` is the workload they apply to: a listed
// parallelism.partition, which names one pipeline depth's stages, becomes its profile's
// `partition` (uniform or balanced), given as `framework_partition`.
std::vector<std::string> plan_overrides(const PlanCandidate& c, const Workload& base,
                                        Partition framework_partition);

// The candidate applied to a copy of `base`, as load_workload with plan_overrides() would read it.
Workload apply_plan(const PlanCandidate& c, const Workload& base, Partition framework_partition);

// The winner's neighbours, for saying what each key is worth: candidates that differ from it in
// one group of keys alone. A group is one key but for the split (dp x tp x pp move together, their
// product fixed unless --gpus lists several sizes) and the schedule with its chunks (interleaving
// needs chunks >= 2, the other schedules 1).
inline constexpr size_t kNeighbourGroups = 7;
const char* neighbour_group_name(size_t group); // "dp x tp x pp", "training.micro_batch", ...
// Whether a and b differ, and only in `group`'s keys.
bool neighbours_in(const PlanCandidate& a, const PlanCandidate& b, size_t group);

// simgpt's limit on the candidate plans of one search (README, "Exit status and limits"). A search
// holds about 540 bytes per candidate (its row and reason, its key in the symmetry index, its
// place in the bound order: gpt3xl's 240,000 candidates took 191 MB, 480,000 took 317 MB), and
// checks each statically (480,000 in 8 s): 2,000,000 take about 1.1 GB and half a minute. A
// default search of a 1,024-layer model (interleaving 2 to layers / pp chunks) or a --search of
// 2,000 micro-batch sizes by 2,000 chunk counts would take several GB; real searches take far
// fewer (GPT-3 XL on a p3.16xlarge's 8 GPUs: 357).
inline constexpr size_t kMaxPlanCandidates = 2'000'000;

class SearchSpace {
public:
  // "KEY=V1,V2,...": only those values of KEY. Throws InputError naming --search for a key that
  // is not searched (listing those that are), a key given twice, an empty list or value, or a
  // value the key does not take.
  void restrict(const std::string& argument);
  // Job sizes to search (each at most the platform's GPUs); default: the platform's count.
  void set_gpus(std::vector<int64_t> gpus) { gpus_ = std::move(gpus); }
  const std::vector<int64_t>& gpus() const { return gpus_; }
  // The restrictions as restrict() took them, one "KEY=V1,V2,..." a key, by key: what rebuilds
  // this space in another process.
  std::vector<std::string> restrictions() const;

  // Every candidate, in a fixed order: by GPUs, dp, tp, pp, micro-batch, recompute, schedule,
  // chunks, ZeRO, sequence parallelism, placement. Without a restriction, a key takes:
  //  - dp x cp x tp x pp: every product equal to the job's GPUs, cp 1, the workload's own, and 2, 4
  //    and 8 where the model can split its sequences (FlashAttention, seq_len a multiple of 2 cp);
  //  - ep: 1 for a dense model; for a mixture of experts every divisor of dp that divides the experts;
  //  - micro_batch: every divisor of the workload's global batch;
  //  - recompute: none, selective, full;
  //  - schedule: gpipe, 1f1b, and interleaved when pp > 1, with 2 to layers / pp chunks;
  //  - zero: 0, and 1 to 3 when dp > 1;
  //  - sequence_parallel: false, and true when tp > 1;
  // each within what `support` (the workload's framework) runs: tensor and pipeline degrees,
  // schedules when pp > 1, ZeRO stages, sequence parallelism.
  //  - placement.order: the workload's (a search of several drops the placements that put
  //    every rank on the same GPU as one before them).
  // Splits the workload does not allow (heads, layers, batch) are candidates too: the workload
  // checker refuses them, with its reason.
  // Throws LimitError naming --search, before it holds more, past kMaxPlanCandidates.
  std::vector<PlanCandidate> candidates(const Workload& base, const FrameworkSupport& support = {}) const;

  // Throws InputError naming --search parallelism.ep for a searched expert-parallel degree above 1
  // that no candidate can take: on a dense model, one that does not divide the experts, or one that
  // divides none of the job sizes (ep divides dp). Each would make every candidate of it invalid,
  // and the search answer "no plan fits" without saying why.
  void check_expert_degrees(const Workload& base) const;

private:
  std::vector<int64_t> gpus_;
  std::map<std::string, std::vector<std::string>> allowed_; // by key, values as the workload writes them
  bool allows(const std::string& key, const std::string& value) const;
};

// "8", "8,16,48": the job sizes of --gpus, each from 1 to `available`. Throws InputError naming
// --gpus otherwise.
std::vector<int64_t> parse_gpus(const std::string& text, int64_t available);

} // namespace simgpt
