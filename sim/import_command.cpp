// `simgpt import megatron -- ARGS...` and `simgpt import deepspeed CONFIG.json [-- ARGS...]`: a
// job's own pretrain_gpt.py command line (and DeepSpeed config) as a workload file.
#include "command.hpp"
#include "number_options.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/output_file.hpp"
#include "simgpt/system/platform_generator.hpp"
#include "simgpt/workload/import.hpp"

#include <iostream>
#include <optional>

namespace simgpt::cli {

namespace {

void declare_common(CLI::App& cmd, Options& o) {
  cmd.add_option("--gpus", o.import_gpus,
                 "the job's GPU count, where the command line has no torchrun/deepspeed launcher saying it")
      ->check(whole_number(1, kMaxCompactPlatformGpus)); // 131072, the most GPUs a job or platform may have
  cmd.add_option("-o,--output", o.output, "the workload file to write (default: standard output)");
  cmd.add_option("words", o.import_words, "after --: pretrain_gpt.py's arguments, with or without its launcher");
}

} // namespace

void declare_import(CLI::App& cmd, Options& o) {
  cmd.require_subcommand(1);
  CLI::App* megatron = cmd.add_subcommand("megatron", "a Megatron-LM command line: simgpt import megatron -- ARGS...");
  declare_common(*megatron, o);
  CLI::App* deepspeed = cmd.add_subcommand(
      "deepspeed", "a DeepSpeed config and a Megatron-DeepSpeed command line: simgpt import deepspeed CONFIG -- ARGS");
  deepspeed->add_option("config", o.deepspeed_config, "the DeepSpeed JSON config")->required();
  declare_common(*deepspeed, o);
}

int run_import(const Options& o, const CLI::App& cmd) {
  const bool deepspeed = cmd.get_subcommand("deepspeed")->parsed();
  const std::optional<int64_t> gpus = o.import_gpus > 0 ? std::optional<int64_t>(o.import_gpus) : std::nullopt;
  if (!deepspeed && o.import_words.empty())
    throw InputError("simgpt import megatron", "names no arguments: give them after --, e.g. simgpt import megatron "
                                               "--gpus 8 -- --num-layers 24 --hidden-size 2048 ...");
  std::optional<OutputFile> out; // checked before the import, so that a bad path fails at once
  if (!o.output.empty())
    out.emplace(o.output, "-o", deepspeed ? std::vector<std::string>{o.deepspeed_config} : std::vector<std::string>{});
  const ImportedWorkload imported = import_megatron(o.import_words, gpus, deepspeed ? o.deepspeed_config : "");
  if (!out) {
    std::cout << imported.yaml;
    return 0;
  }
  out->write(imported.yaml);
  out->commit();
  return 0;
}

} // namespace simgpt::cli
