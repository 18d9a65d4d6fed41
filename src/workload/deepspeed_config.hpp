// A DeepSpeed JSON config (Megatron-DeepSpeed's --deepspeed_config) as `simgpt import deepspeed`
// reads it: the keys simgpt models, by deepspeed/runtime/config.py's names, and its batch sizes
// resolved and checked as DeepSpeed resolves and checks them.
#pragma once

#include "workload/megatron_args.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simgpt {

struct DeepSpeedConfig {
  std::string path;
  // The ZeRO stage and precision, as the Megatron-DeepSpeed arguments they must agree with
  // (zero_stage, fp16, bf16), each with the key that gave it ("ds.json: zero_optimization.stage").
  MegatronArguments arguments;
  ArgumentSpellings spellings;
  std::optional<int64_t> train_batch, micro_batch, accumulation; // as given
  std::vector<std::string> ignored;                              // keys simgpt does not model
};

// Throws InputError naming the file (and key) for a file that is not a JSON object, a key given
// twice in one object (JSON parsers keep one of them silently), or a value DeepSpeed refuses.
DeepSpeedConfig read_deepspeed_config(const std::string& path);

// The batch sizes DeepSpeed trains with on `dp` data-parallel ranks: those the config gives, the
// others derived from them as DeepSpeed derives them (deepspeed/runtime/config.py,
// _set_batch_related_parameters: gradient accumulation 1 when only one size is given), then held to
// its _batch_assertion, train_batch_size = micro-batch x gradient accumulation x dp.
// Nothing when the config gives neither train_batch_size nor train_micro_batch_size_per_gpu
// (the command line's then stand). Throws InputError naming the file and keys when the assertion
// fails.
struct DeepSpeedBatch {
  int64_t train_batch = 0, micro_batch = 0, accumulation = 0;
};
std::optional<DeepSpeedBatch> resolve_deepspeed_batch(const DeepSpeedConfig& config, int64_t dp);

// The data-parallel size the config's three batch sizes imply (train_batch_size / (micro-batch x
// gradient accumulation)) when it gives all three; throws InputError naming them when they do not
// divide.
std::optional<int64_t> deepspeed_data_parallel_size(const DeepSpeedConfig& config);

} // namespace simgpt
