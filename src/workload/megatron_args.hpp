// Megatron-LM's argument names (megatron/training/arguments.py) for the quantities a workload
// sets, read as Megatron reads them: `--bf16` sets the precision, `--num-layers-per-virtual-
// pipeline-stage` the interleaved schedule's chunks, `--vocab-size` is padded to a multiple of
// `--make-vocab-size-divisible-by` x tp. A workload file may use them as top-level keys, and
// `simgpt import megatron` reads a pretrain_gpt.py command line with them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace YAML {
class Node;
}

namespace simgpt {

// Arguments by Megatron's name with '_' for '-' and without the leading "--" (num_layers), each
// with its value ("true" for a flag given), in the order given.
using MegatronArguments = std::vector<std::pair<std::string, std::string>>;

// What a message names each argument by (by its name as above): the user's own spelling,
// "megatron arguments: --tensor-model-parallel-size" or "ds.json: zero_optimization.stage", so that
// they find what they wrote. An argument missing from it is named "SOURCE: tensor_model_parallel_size".
using ArgumentSpellings = std::map<std::string, std::string>;

// "num_layers" from "--num-layers", "num-layers" or "num_layers".
std::string megatron_name(const std::string& written);

// Whether simgpt reads this argument (by megatron_name), and whether it takes no value.
bool is_modelled_megatron_argument(const std::string& name);
bool is_megatron_flag(const std::string& name);

// Writes the workload keys `args` set into a workload's YAML tree (sections model, training,
// parallelism, framework), reading what they depend on (pp, tp, layers) from the tree once
// written. Throws InputError naming the argument (as `spellings` has it, else `source` and its
// name) when one has a value Megatron would refuse, or sets a key the tree already holds with
// another value (a key written twice).
struct AppliedArguments {
  // The arguments read whose effect simgpt does not model, each with why.
  std::vector<std::string> not_modelled;
  // The argument that set each workload key ("parallelism.tp" -> "tensor_model_parallel_size"),
  // so that a later check of the key can name what the user wrote.
  std::map<std::string, std::string> setters;
};
AppliedArguments apply_megatron_arguments(const MegatronArguments& args, YAML::Node& root, const std::string& source,
                                          const ArgumentSpellings& spellings = {});

// A launcher's and pretrain_gpt.py's command line split: the GPUs the launcher starts (torchrun's
// --nnodes x --nproc-per-node, deepspeed's --num_nodes x --num_gpus) when it says, the arguments
// simgpt reads, and those it does not (listed, not guessed at). Throws InputError naming `source`
// for an argument simgpt reads given without its value, or a launcher's count that is not one.
struct MegatronCommandLine {
  std::optional<int64_t> launcher_gpus;
  std::string launcher_words; // the words that said it, as written: "--nnodes 2 --nproc-per-node 8"
  MegatronArguments modelled;
  ArgumentSpellings spellings; // each modelled argument as written: "SOURCE: --num-layers"
  std::vector<std::string> ignored;
};
MegatronCommandLine split_megatron_command_line(const std::vector<std::string>& words, const std::string& source);

} // namespace simgpt
