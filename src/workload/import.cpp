#include "simgpt/workload/import.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/version.hpp"
#include "simgpt/workload/workload.hpp"
#include "core/input_file.hpp"
#include "workload/megatron_args.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace simgpt {
namespace {

constexpr const char* kCommandLine = "megatron arguments";

// A DeepSpeed config's keys that simgpt reads (deepspeed/runtime/config.py's names), as the
// Megatron-DeepSpeed arguments they must agree with; the others listed as ignored.
struct DeepSpeedConfig {
  MegatronArguments arguments;
  std::optional<int64_t> train_batch, micro_batch, accumulation;
  std::vector<std::string> ignored;
};

// An integer of at least `min`: 0 for the ZeRO stage, 1 for a batch size or step count
// (DeepSpeed's _batch_assertion refuses 0).
int64_t config_int(const nlohmann::json& value, const std::string& where, int64_t min) {
  if (!value.is_number_integer() || value.get<int64_t>() < min)
    throw InputError(where, fmt::format("'{}' is not valid (expected a {} integer; simgpt cannot resolve \"auto\")",
                                        echo(value.dump()), min > 0 ? "positive" : "non-negative"));
  return value.get<int64_t>();
}

bool config_enabled(const nlohmann::json& section, const std::string& where) {
  if (!section.is_object())
    throw InputError(where, "expected an object with \"enabled\"");
  const auto enabled = section.find("enabled");
  if (enabled == section.end())
    return false;
  if (!enabled->is_boolean())
    throw InputError(where + ".enabled", fmt::format("'{}' is not true or false", echo(enabled->dump())));
  return enabled->get<bool>();
}

DeepSpeedConfig read_deepspeed_config(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_input_file(path, "DeepSpeed config"));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(echo(path), fmt::format("is not JSON (byte {})", e.byte));
  } catch (const nlohmann::json::out_of_range&) {
    // The parser's one other refusal (406): a number past a double's range, 1e400.
    throw InputError(echo(path), "holds a number too large for a double (above 1.8e308)");
  }
  if (!j.is_object())
    throw InputError(echo(path), "a DeepSpeed config is a JSON object");
  DeepSpeedConfig c;
  for (const auto& [key, value] : j.items()) {
    const std::string at = echo(path) + ": " + echo(key);
    if (key == "train_batch_size") {
      c.train_batch = config_int(value, at, 1);
      c.arguments.emplace_back("global_batch_size", std::to_string(*c.train_batch));
    } else if (key == "train_micro_batch_size_per_gpu") {
      c.micro_batch = config_int(value, at, 1);
      c.arguments.emplace_back("micro_batch_size", std::to_string(*c.micro_batch));
    } else if (key == "gradient_accumulation_steps") {
      // What the global batch implies (DeepSpeed's _batch_assertion); only the GPU count is read
      // from it, where nothing else says it.
      c.accumulation = config_int(value, at, 1);
    } else if (key == "zero_optimization") {
      if (!value.is_object())
        throw InputError(at, fmt::format("'{}' is not valid (expected an object, e.g. {{\"stage\": 3}})",
                                         echo(value.dump())));
      for (const auto& [zkey, zvalue] : value.items()) {
        if (zkey == "stage")
          c.arguments.emplace_back("zero_stage", std::to_string(config_int(zvalue, at + ".stage", 0)));
        else
          c.ignored.push_back(key + "." + zkey);
      }
    } else if (key == "fp16" || key == "bf16" || key == "bfloat16") {
      if (config_enabled(value, at))
        c.arguments.emplace_back(key == "fp16" ? "fp16" : "bf16", "true");
    } else {
      c.ignored.push_back(key);
    }
  }
  return c;
}

// The GPUs the job runs on: given, the launcher's, or the DeepSpeed config's batch arithmetic
// (train_batch_size = micro-batch x gradient accumulation x data-parallel size, which DeepSpeed
// checks: deepspeed/runtime/config.py _batch_assertion).
int64_t data_parallel_size(const MegatronCommandLine& line, std::optional<int64_t> gpus,
                           const std::optional<DeepSpeedConfig>& ds, int64_t model_parallel) {
  const std::optional<int64_t> world = gpus ? gpus : line.launcher_gpus;
  if (world) {
    if (*world % model_parallel != 0)
      throw InputError(kCommandLine, fmt::format("{} GPUs are not a multiple of tensor x pipeline parallel size {}",
                                                 *world, model_parallel));
    return *world / model_parallel;
  }
  if (ds && ds->train_batch && ds->micro_batch && ds->accumulation && *ds->micro_batch > 0 && *ds->accumulation > 0 &&
      *ds->train_batch % (*ds->micro_batch * *ds->accumulation) == 0)
    return *ds->train_batch / (*ds->micro_batch * *ds->accumulation);
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
  // Megatron-DeepSpeed's data loader and its set_train_batch_size take the micro-batch and the
  // global batch from the command line (megatron/training.py), over the config's; the config fills
  // them in only where the command line is silent. The ZeRO stage and the precision must agree.
  MegatronArguments arguments = line.modelled;
  std::vector<std::string> superseded;
  if (ds)
    for (const auto& argument : ds->arguments) {
      const std::string& name = argument.first;
      const std::string& value = argument.second;
      const auto same = [&name](const auto& a) { return a.first == name; };
      const bool batch = name == "micro_batch_size" || name == "global_batch_size";
      const auto given = std::find_if(line.modelled.begin(), line.modelled.end(), same);
      if (batch && given != line.modelled.end()) {
        if (given->second != value)
          superseded.push_back(fmt::format("{}: {} {} (the command line's {} is used)", deepspeed_config,
                                           name == "micro_batch_size" ? "train_micro_batch_size_per_gpu"
                                                                      : "train_batch_size",
                                           value, given->second));
        continue;
      }
      arguments.emplace_back(name, value);
    }
  std::vector<std::string> ignored = apply_megatron_arguments(arguments, root, kCommandLine);
  // Megatron trains in fp32 unless --fp16 or --bf16 (megatron/training/arguments.py).
  if (!root["training"] || !root["training"]["precision"])
    root["training"]["precision"] = "fp32";
  const auto integer = [&root](const char* section, const char* key) -> int64_t {
    const YAML::Node node = root[section][key];
    return node ? node.as<int64_t>(1) : 1;
  };
  const int64_t dp = data_parallel_size(line, gpus, ds, integer("parallelism", "tp") * integer("parallelism", "pp"));
  root["parallelism"]["dp"] = dp;
  // Megatron's default global batch: one micro-batch per data-parallel rank.
  if (!root["training"]["global_batch"])
    root["training"]["global_batch"] = integer("training", "micro_batch") * dp;
  YAML::Emitter out;
  out << root;
  const Workload w = parse_workload(out.c_str(), kCommandLine);
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
