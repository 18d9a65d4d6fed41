#include "workload/deepspeed_config.hpp"

#include "simgpt/core/error.hpp"
#include "core/checked_int.hpp"
#include "core/input_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>

namespace simgpt {
namespace {

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

// Refuses a key given twice in one object while the file is parsed: nlohmann's parser (as
// Python's json, which DeepSpeed reads the file with) keeps the last, so the first is dropped
// without a word, and which of the two the user meant is not ours to guess.
class DuplicateKeyCheck {
public:
  explicit DuplicateKeyCheck(std::string path) : path_(std::move(path)) {}

  bool operator()(int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start || event == Event::array_start) {
      scopes_.push_back({event == Event::object_start, {}, ""});
    } else if (event == Event::object_end || event == Event::array_end) {
      scopes_.pop_back();
    } else if (event == Event::key) {
      Scope& scope = scopes_.back();
      const std::string key = parsed.get<std::string>();
      if (!scope.keys.insert(key).second)
        throw InputError(echo(path_) + ": " + echo(dotted(key)),
                         "is given twice in one object (JSON keeps only the last): give it once");
      scope.key = key;
    }
    return true;
  }

private:
  struct Scope {
    bool object;
    std::set<std::string> keys;
    std::string key; // the latest key of an object: it names the value being parsed
  };

  // "zero_optimization.stage": the keys of the objects the parser is in, then `key`.
  std::string dotted(const std::string& key) const {
    std::string path;
    for (size_t i = 0; i + 1 < scopes_.size(); ++i)
      if (scopes_[i].object)
        path += scopes_[i].key + ".";
    return path + key;
  }

  std::string path_;
  std::vector<Scope> scopes_;
};

nlohmann::json parse_config(const std::string& path) {
  const std::string text = read_input_file(path, "DeepSpeed config");
  try {
    return nlohmann::json::parse(text, DuplicateKeyCheck(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(echo(path), fmt::format("is not JSON (byte {})", e.byte));
  } catch (const nlohmann::json::out_of_range&) {
    // The parser's one other refusal (406): a number past a double's range, 1e400.
    throw InputError(echo(path), "holds a number too large for a double (above 1.8e308)");
  }
}

std::string config_key(const DeepSpeedConfig& c, const std::string& key) { return echo(c.path) + ": " + key; }

// micro-batch x gradient accumulation x dp, or nothing past 64 bits.
std::optional<int64_t> deepspeed_samples(int64_t micro_batch, int64_t accumulation, int64_t dp) {
  const std::optional<int64_t> per_rank = checked_mul(micro_batch, accumulation);
  return per_rank ? checked_mul(*per_rank, dp) : std::nullopt;
}

} // namespace

DeepSpeedConfig read_deepspeed_config(const std::string& path) {
  const nlohmann::json j = parse_config(path);
  if (!j.is_object())
    throw InputError(echo(path), "a DeepSpeed config is a JSON object");
  DeepSpeedConfig c;
  c.path = path;
  const auto read = [&c](const std::string& argument, const std::string& value, const std::string& key) {
    c.arguments.emplace_back(argument, value);
    c.spellings[argument] = config_key(c, key);
  };
  for (const auto& [key, value] : j.items()) {
    const std::string at = config_key(c, echo(key));
    if (key == "train_batch_size") {
      c.train_batch = config_int(value, at, 1);
    } else if (key == "train_micro_batch_size_per_gpu") {
      c.micro_batch = config_int(value, at, 1);
    } else if (key == "gradient_accumulation_steps") {
      c.accumulation = config_int(value, at, 1);
    } else if (key == "zero_optimization") {
      if (!value.is_object())
        throw InputError(at, fmt::format("'{}' is not valid (expected an object, e.g. {{\"stage\": 3}})",
                                         echo(value.dump())));
      for (const auto& [zkey, zvalue] : value.items()) {
        if (zkey == "stage")
          read("zero_stage", std::to_string(config_int(zvalue, at + ".stage", 0)), key + ".stage");
        else
          c.ignored.push_back(key + "." + zkey);
      }
    } else if (key == "fp16" || key == "bf16" || key == "bfloat16") {
      if (config_enabled(value, at))
        read(key == "fp16" ? "fp16" : "bf16", "true", key + ".enabled");
    } else {
      c.ignored.push_back(key);
    }
  }
  return c;
}

std::optional<DeepSpeedBatch> resolve_deepspeed_batch(const DeepSpeedConfig& c, int64_t dp) {
  if (!c.train_batch && !c.micro_batch)
    return std::nullopt;
  DeepSpeedBatch b;
  // The sizes not given, derived with DeepSpeed's floor divisions; the assertion below then
  // refuses a train_batch_size they do not make up exactly.
  if (c.train_batch && c.micro_batch) {
    b = {*c.train_batch, *c.micro_batch, c.accumulation.value_or(*c.train_batch / *c.micro_batch / dp)};
  } else if (c.train_batch) {
    const int64_t accumulation = c.accumulation.value_or(1);
    b = {*c.train_batch, *c.train_batch / dp / accumulation, accumulation};
  } else {
    const int64_t accumulation = c.accumulation.value_or(1);
    const std::optional<int64_t> train = deepspeed_samples(*c.micro_batch, accumulation, dp);
    if (!train)
      throw InputError(config_key(c, "train_micro_batch_size_per_gpu"),
                       "x gradient_accumulation_steps x data-parallel size does not fit in 64 bits");
    b = {*train, *c.micro_batch, accumulation};
  }
  const std::optional<int64_t> product = deepspeed_samples(b.micro_batch, b.accumulation, dp);
  if (b.micro_batch < 1 || b.accumulation < 1 || product != b.train_batch) {
    const auto size = [](const std::optional<int64_t>& given, int64_t derived) {
      return given ? std::to_string(*given) : fmt::format("{} (derived)", derived);
    };
    throw InputError(
        config_key(c, "train_batch_size"),
        fmt::format("{} is not train_micro_batch_size_per_gpu {} x gradient_accumulation_steps {} x {} data-parallel "
                    "GPUs (DeepSpeed refuses it: deepspeed/runtime/config.py _batch_assertion)",
                    size(c.train_batch, b.train_batch), size(c.micro_batch, b.micro_batch),
                    size(c.accumulation, b.accumulation), dp));
  }
  return b;
}

std::optional<int64_t> deepspeed_data_parallel_size(const DeepSpeedConfig& c) {
  if (!c.train_batch || !c.micro_batch || !c.accumulation)
    return std::nullopt;
  const std::optional<int64_t> per_rank = checked_mul(*c.micro_batch, *c.accumulation);
  if (!per_rank || *c.train_batch % *per_rank != 0)
    throw InputError(config_key(c, "train_batch_size"),
                     fmt::format("{} is not a multiple of train_micro_batch_size_per_gpu {} x "
                                 "gradient_accumulation_steps {} (DeepSpeed refuses it: train_batch_size is their "
                                 "product times the data-parallel GPUs)",
                                 *c.train_batch, *c.micro_batch, *c.accumulation));
  return *c.train_batch / *per_rank;
}

} // namespace simgpt
