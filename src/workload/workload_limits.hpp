// The ranges and documented limits of workload keys, shared by the YAML readers (workload.cpp)
// and check_workload (check_workload.cpp), so a file and a Workload filled in C++ meet one rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace simgpt {

// Documented upper limits (README, "Exit status and limits"), generously above real models (GPT-3
// 175B: 96 layers, hidden 12288, seq_len 2048; the 1T model of Narayanan et al. 2021: 128 layers,
// hidden 25600, 3072 GPUs). Beyond them simgpt refuses at once (LimitError, exit status 3) rather
// than run out of memory or time, or overflow the products the plan computes.
struct Limit {
  int64_t max;
  const char* why;
};
// The task graph, the replay's actors and the per-GPU memory timelines grow with the GPU count.
inline constexpr Limit kMaxGpus{131072, "the task graph and the simulated hosts grow with the GPUs of the job"};
// Every stage's kernels and tasks are generated per layer.
inline constexpr Limit kMaxLayers{1024, "the kernels and tasks simulated grow with the layers"};
// The schedule has tasks and memory events per micro-batch, stage and layer.
inline constexpr Limit kMaxMicroBatches{65536, "the schedule's tasks grow with the micro-batches per step"};
// Sizes and FLOPs grow with hidden^2 (and micro_batch * seq_len * hidden must fit in 64 bits).
inline constexpr Limit kMaxHidden{131072, "weights and FLOPs grow with hidden squared"};
// The MLP's width: 4x the hidden limit, as ffn_hidden is 4 * hidden by default.
inline constexpr Limit kMaxFfnHidden{524288, "the MLP's weights and FLOPs grow with ffn_hidden * hidden"};
// The attention scores grow with seq_len^2 (per micro-batch and head).
inline constexpr Limit kMaxSeqLen{1048576, "attention scores and their memory grow with seq_len squared"};
// The embedding, the LM head and the logits grow with the vocabulary.
inline constexpr Limit kMaxVocab{4194304, "the embedding, head and logits grow with the vocabulary"};
// The router's logits and the expert weights grow with the experts (DeepSeek-V3 has 256).
inline constexpr Limit kMaxExperts{65536, "the router's logits and the expert weights grow with the experts"};

// Throws LimitError: `what` exceeds `limit`.
[[noreturn]] void refuse_limit(const std::string& where, const std::string& what, const Limit& limit);
// Throws InputError unless min <= value; above `limit` (when given) LimitError.
void check_int(int64_t value, const std::string& where, int64_t min, const Limit* limit = nullptr);
// network.delay: 0 to 1 hour. network.bandwidth: 1 bps to 1e15 B/s.
void check_delay(double seconds, const std::string& where);
void check_bandwidth(double bytes_per_s, const std::string& where);
// framework_options: at most kMaxFrameworkOptions.
void check_option_count(size_t options, const std::string& where);

} // namespace simgpt
