#include "simgpt/workload/import.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/version.hpp"
#include "simgpt/workload/workload.hpp"
#include "core/checked_int.hpp"
#include "workload/deepspeed_config.hpp"
#include "workload/megatron_args.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

namespace simgpt {
namespace {

constexpr const char* kCommandLine = "megatron arguments";

// The GPUs the job runs on, and what said so (for messages): --gpus, the launcher's, or the
// DeepSpeed config's batch arithmetic (train_batch_size = micro-batch x gradient accumulation x
// data-parallel size, which DeepSpeed checks: deepspeed/runtime/config.py _batch_assertion).
struct World {
  int64_t gpus = 0;
  std::string where;
};

World world_size(const MegatronCommandLine& line, std::optional<int64_t> gpus, const std::optional<DeepSpeedConfig>& ds,
                 int64_t model_parallel) {
  // The launcher starts the processes whatever --gpus says: a different count is a mistake in one
  // of them, and which one is not for simgpt to guess.
  if (gpus && line.launcher_gpus && *gpus != *line.launcher_gpus)
    throw InputError("--gpus", fmt::format("{} contradicts the launcher's {} ({} GPUs): give one of them, or the same "
                                           "count", *gpus, echo(line.launcher_words), *line.launcher_gpus));
  if (gpus)
    return {*gpus, "--gpus"};
  if (line.launcher_gpus)
    return {*line.launcher_gpus, fmt::format("{}: {}", kCommandLine, echo(line.launcher_words))};
  if (ds)
    if (const std::optional<int64_t> dp = deepspeed_data_parallel_size(*ds)) {
      const std::string where = echo(ds->path) + ": train_batch_size";
      const std::optional<int64_t> world = checked_mul(*dp, model_parallel);
      if (!world)
        throw InputError(where, fmt::format("implies {} data-parallel GPUs, too many for a job", *dp));
      return {*world, where};
    }
  throw InputError(kCommandLine, "do not say how many GPUs the job uses: give --gpus N, or the launcher's words "
                                 "(torchrun --nnodes N --nproc-per-node G pretrain_gpt.py ...)");
}

std::string comment_lines(const std::string& title, const std::vector<std::string>& words) {
  std::string text, line = "#  ";
  for (const std::string& w : words) {
    const std::string word = one_line(w, 300); // one line each: a newline would end the comment
    if (line.size() + word.size() > 100) {
      text += line + "\n";
      line = "#  ";
    }
    line += " " + word;
  }
  return words.empty() ? "" : "# " + title + "\n" + text + line + "\n";
}

// "--tensor-model-parallel-size" of "megatron arguments: --tensor-model-parallel-size": an
// argument named inside a message about another.
std::string short_name(const std::string& where) {
  const std::string prefix = std::string(kCommandLine) + ": ";
  return where.starts_with(prefix) ? where.substr(prefix.size()) : where;
}

// A key of the tree being built as an integer: 1 when it is absent or not one (the workload's
// checks refuse the latter, naming it).
int64_t integer(const YAML::Node& root, const char* section, const char* key) {
  const YAML::Node s = root[section]; // a const node's missing key is invalid: not indexed further
  if (!s.IsDefined() || !s.IsMap())
    return 1;
  const YAML::Node node = s[key];
  return node && node.IsScalar() ? node.as<int64_t>(1) : 1;
}

// tp x pp: each at least 1 here (0 or less is refused by the workload's checks, naming it), their
// product refused past 64 bits.
int64_t model_parallel_size(const YAML::Node& root, const std::map<std::string, std::string>& origin) {
  const int64_t tp = std::max<int64_t>(integer(root, "parallelism", "tp"), 1);
  const int64_t pp = std::max<int64_t>(integer(root, "parallelism", "pp"), 1);
  const std::optional<int64_t> product = checked_mul(tp, pp);
  if (!product) // both above 1: both set by an argument
    throw InputError(origin.at("parallelism.pp"),
                     fmt::format("{} x {} {} does not fit in 64 bits", pp, short_name(origin.at("parallelism.tp")), tp));
  return *product;
}

// The data-parallel size: the world over tp x pp, which must divide it (Megatron's
// initialize_model_parallel refuses another).
int64_t data_parallel_size(const World& world, int64_t model_parallel, const std::map<std::string, std::string>& origin) {
  if (world.gpus % model_parallel == 0)
    return world.gpus / model_parallel;
  std::string sizes;
  for (const char* key : {"parallelism.tp", "parallelism.pp"})
    if (origin.contains(key))
      sizes += (sizes.empty() ? "" : " x ") + short_name(origin.at(key));
  throw InputError(world.where, fmt::format("{} GPUs are not a multiple of {} = {}", world.gpus, sizes, model_parallel));
}

// The DeepSpeed config's batch sizes on `dp` ranks (resolved and checked as DeepSpeed does) fill
// in the micro-batch and the global batch where the command line is silent: Megatron-DeepSpeed's
// data loader and its set_train_batch_size take them from the command line
// (megatron/training.py), over the config's. A config value the command line overrides is listed.
void fill_deepspeed_batch(const DeepSpeedConfig& ds, int64_t dp, YAML::Node& root,
                          std::map<std::string, std::string>& origin, std::vector<std::string>& superseded) {
  const std::optional<DeepSpeedBatch> batch = resolve_deepspeed_batch(ds, dp);
  if (!batch)
    return;
  struct Size {
    const char* key;
    const char* config_key;
    const char* derived_from; // the keys it is derived from when the config does not give it
    int64_t value;
    bool given;
  };
  for (const Size& size :
       {Size{"global_batch", "train_batch_size", "train_micro_batch_size_per_gpu x gradient_accumulation_steps",
             batch->train_batch, ds.train_batch.has_value()},
        Size{"micro_batch", "train_micro_batch_size_per_gpu", "train_batch_size", batch->micro_batch,
             ds.micro_batch.has_value()}}) {
    const YAML::Node command_line = root["training"][size.key];
    if (!command_line) {
      root["training"][size.key] = size.value;
      origin[std::string("training.") + size.key] =
          echo(ds.path) + ": " + (size.given ? size.config_key : size.derived_from);
    } else if (size.given && command_line.Scalar() != std::to_string(size.value)) {
      superseded.push_back(fmt::format("{}: {} {} (the command line's {} is used)", ds.path, size.config_key,
                                       size.value, command_line.Scalar()));
    }
  }
}

// The workload the tree makes, checked as a file's would be; a check's message names the
// argument or config key that set the key it is about, as the user wrote it, rather than the
// workload key they never wrote.
Workload parse_imported_workload(const std::string& yaml, const std::map<std::string, std::string>& origin) {
  const std::string prefix = std::string(kCommandLine) + ": ";
  try {
    return parse_workload(yaml, kCommandLine);
  } catch (const LimitError& e) {
    const auto key = e.where().starts_with(prefix) ? origin.find(e.where().substr(prefix.size())) : origin.end();
    if (key == origin.end())
      throw;
    throw LimitError(key->second, e.message());
  } catch (const InputError& e) {
    const auto key = e.where().starts_with(prefix) ? origin.find(e.where().substr(prefix.size())) : origin.end();
    if (key == origin.end())
      throw;
    throw InputError(key->second, e.message());
  }
}

} // namespace

ImportedWorkload import_megatron(const std::vector<std::string>& words, std::optional<int64_t> gpus,
                                 const std::string& deepspeed_config) {
  if (gpus && *gpus < 1)
    throw InputError("--gpus", fmt::format("{} is not a positive GPU count", *gpus));
  MegatronCommandLine line = split_megatron_command_line(words, kCommandLine);
  std::optional<DeepSpeedConfig> ds;
  if (!deepspeed_config.empty())
    ds = read_deepspeed_config(deepspeed_config);

  YAML::Node root(YAML::NodeType::Map);
  root["framework"] = ds ? "deepspeed" : "megatron";
  // The config's ZeRO stage and precision join the command line's; they must agree with it.
  MegatronArguments arguments = line.modelled;
  ArgumentSpellings spellings = line.spellings;
  if (ds)
    for (const auto& [name, value] : ds->arguments) {
      const std::string& key = name; // a lambda captures a variable, not a structured binding (clang < 16)
      const auto given = std::find_if(line.modelled.begin(), line.modelled.end(),
                                      [&key](const auto& a) { return a.first == key; });
      if (given != line.modelled.end() && given->second != value)
        throw InputError(ds->spellings.at(name), fmt::format("gives {} but the command line's {} is {}: they must agree",
                                                             value, short_name(line.spellings.at(name)),
                                                             echo(given->second)));
      arguments.emplace_back(name, value);
      spellings.emplace(name, ds->spellings.at(name));
    }
  AppliedArguments applied = apply_megatron_arguments(arguments, root, kCommandLine, spellings);
  // What each workload key was set by, as the user wrote it, for the checks' messages.
  std::map<std::string, std::string> origin;
  for (const auto& [key, argument] : applied.setters)
    origin[key] = spellings.contains(argument) ? spellings.at(argument) : fmt::format("{}: {}", kCommandLine, argument);
  // Megatron trains in fp32 unless --fp16 or --bf16 (megatron/training/arguments.py).
  if (!root["training"] || !root["training"]["precision"])
    root["training"]["precision"] = "fp32";

  const World world = world_size(line, gpus, ds, model_parallel_size(root, origin));
  const int64_t dp = data_parallel_size(world, model_parallel_size(root, origin), origin);
  root["parallelism"]["dp"] = dp;
  origin["parallelism.dp"] = world.where;
  std::vector<std::string> superseded;
  if (ds)
    fill_deepspeed_batch(*ds, dp, root, origin, superseded);
  // Megatron's default global batch: one micro-batch per data-parallel rank.
  if (!root["training"]["global_batch"])
    root["training"]["global_batch"] = integer(root, "training", "micro_batch") * dp;

  YAML::Emitter out;
  out << root;
  const Workload w = parse_imported_workload(out.c_str(), origin);
  std::vector<std::string> ignored = applied.not_modelled;
  ignored.insert(ignored.end(), line.ignored.begin(), line.ignored.end());
  ignored.insert(ignored.end(), superseded.begin(), superseded.end());
  if (ds)
    for (const std::string& key : ds->ignored)
      ignored.push_back(deepspeed_config + ": " + key);
  ImportedWorkload imported;
  imported.ignored = ignored;
  imported.yaml = fmt::format("# Imported by simgpt {} from a Megatron-LM command line{}.\n", version(),
                              ds ? " and a DeepSpeed config" : "") +
                  comment_lines("Not modelled, left out:", ignored) + workload_yaml(w);
  return imported;
}

} // namespace simgpt
