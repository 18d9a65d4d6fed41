// A job as its framework's own configuration gives it, turned into a workload: a Megatron-LM
// pretrain_gpt.py command line (with or without its torchrun / deepspeed launcher), and a
// DeepSpeed JSON config beside it (Megatron-DeepSpeed). What `simgpt import` writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simgpt {

struct ImportedWorkload {
  std::string yaml;                 // a workload file: a comment saying where it came from, then every key
  std::vector<std::string> ignored; // the arguments and config keys simgpt does not model, as written
};

// `words`: the command line's words, as a shell splits them. `gpus`: the job's GPU count when the
// command line does not say (its launcher's --nnodes x --nproc-per-node, or a DeepSpeed config's
// batch sizes); it wins over the config's and must equal the launcher's. `deepspeed_config`: a
// DeepSpeed JSON file ("" for none); its ZeRO stage and precision must agree with the command
// line's, its batch sizes with each other as DeepSpeed checks them (the command line's micro-batch
// and global batch win over them). Throws InputError naming the argument or config key, as the
// user wrote it, for what cannot be imported; the workload is checked as a file's would be, its
// messages naming the argument that set the key they are about.
ImportedWorkload import_megatron(const std::vector<std::string>& words, std::optional<int64_t> gpus,
                                 const std::string& deepspeed_config = "");

} // namespace simgpt
