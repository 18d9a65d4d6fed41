#include "simgpt/workload/workload.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/units.hpp"
#include "core/checked_int.hpp"
#include "core/input_file.hpp"
#include "core/yaml_read.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace simgpt {

const char* to_string(Precision p) {
  switch (p) {
  case Precision::fp32: return "fp32";
  case Precision::fp16: return "fp16";
  case Precision::bf16: return "bf16";
  }
  return "?";
}
const char* to_string(Recompute r) {
  switch (r) {
  case Recompute::none: return "none";
  case Recompute::full: return "full";
  case Recompute::selective: return "selective";
  }
  return "?";
}
const char* to_string(Schedule s) {
  switch (s) {
  case Schedule::gpipe: return "gpipe";
  case Schedule::one_f_one_b: return "1f1b";
  case Schedule::interleaved: return "interleaved";
  }
  return "?";
}

namespace {

// Reads one key of the workload; `where` is "file: section.key".
using KeyReader = std::function<void(const YAML::Node&, Workload&, const std::string& where)>;

// Documented upper limits (README, "Exit status and limits"), generously above real models (GPT-3
// 175B: 96 layers, hidden 12288, seq_len 2048; the 1T model of Narayanan et al. 2021: 128 layers,
// hidden 25600, 3072 GPUs). Beyond them simgpt refuses at once (LimitError, exit status 3) rather
// than run out of memory or time, or overflow the products below.
struct Limit {
  int64_t max;
  const char* why;
};
// The task graph, the replay's actors and the per-GPU memory timelines grow with the GPU count.
constexpr Limit kMaxGpus{65536, "the task graph and the simulated hosts grow with the GPUs of the job"};
// Every stage's kernels and tasks are generated per layer.
constexpr Limit kMaxLayers{1024, "the kernels and tasks simulated grow with the layers"};
// The schedule has tasks and memory events per micro-batch, stage and layer.
constexpr Limit kMaxMicroBatches{65536, "the schedule's tasks grow with the micro-batches per step"};
// Sizes and FLOPs grow with hidden^2 (and micro_batch * seq_len * hidden must fit in 64 bits).
constexpr Limit kMaxHidden{131072, "weights and FLOPs grow with hidden squared"};
// The MLP's width: 4x the hidden limit, as ffn_hidden is 4 * hidden by default.
constexpr Limit kMaxFfnHidden{524288, "the MLP's weights and FLOPs grow with ffn_hidden * hidden"};
// The attention scores grow with seq_len^2 (per micro-batch and head).
constexpr Limit kMaxSeqLen{1048576, "attention scores and their memory grow with seq_len squared"};
// The embedding, the LM head and the logits grow with the vocabulary.
constexpr Limit kMaxVocab{4194304, "the embedding, head and logits grow with the vocabulary"};

[[noreturn]] void refuse_limit(const std::string& where, const std::string& what, const Limit& limit) {
  throw LimitError(where, fmt::format("{} exceeds simgpt's limit of {} ({})", what, limit.max, limit.why));
}

// An integer >= min; above `limit` (when given) a LimitError. A number too large for 64 bits is
// refused as such, not as "not an integer".
int64_t read_int(const YAML::Node& node, const std::string& where, int64_t min, const Limit* limit = nullptr) {
  const std::string text = node.Scalar();
  int64_t value = 0;
  try {
    value = node.as<int64_t>();
  } catch (const YAML::Exception&) {
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    if (digits && limit)
      refuse_limit(where, "'" + echo(text) + "'", *limit);
    if (digits)
      throw InputError(where, fmt::format("'{}' does not fit in a 64-bit integer (expected an integer from {} to {})",
                                          echo(text), min, std::numeric_limits<int64_t>::max()));
    throw InputError(where, fmt::format("'{}' is not an integer (expected an integer >= {})", echo(text), min));
  }
  if (value < min)
    throw InputError(where, fmt::format("{} is out of range (expected an integer >= {})", value, min));
  if (limit && value > limit->max)
    refuse_limit(where, std::to_string(value), *limit);
  return value;
}

bool read_bool(const YAML::Node& node, const std::string& where) {
  try {
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(where, fmt::format("'{}' is not a boolean (expected true or false)", echo(node.Scalar())));
  }
}

template <typename Enum>
Enum read_enum(const YAML::Node& node, const std::string& where, const std::map<std::string, Enum>& names) {
  std::string text = node.IsScalar() ? node.Scalar() : "";
  auto it = names.find(text);
  if (it != names.end())
    return it->second;
  std::string valid;
  for (const auto& [name, value] : names)
    valid += (valid.empty() ? "" : ", ") + name;
  throw InputError(where, fmt::format("'{}' is not valid (expected one of: {})", echo(text), valid));
}

template <typename Parse>
double read_quantity(const YAML::Node& node, const std::string& where, Parse parse) {
  try {
    return parse(node.Scalar());
  } catch (const std::invalid_argument& e) {
    throw InputError(where, e.what());
  }
}

// "uniform", "balanced" or the layers of each stage in order, comma-separated ("13,11").
void read_partition(const YAML::Node& node, Workload& w, const std::string& where) {
  const std::string text = node.Scalar();
  auto& p = w.parallelism;
  p.stage_layers.clear();
  if (text == "uniform" || text == "balanced") {
    p.partition = text == "uniform" ? Partition::uniform : Partition::balanced;
    return;
  }
  p.partition = Partition::listed;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || value < 1)
      throw InputError(where, fmt::format("'{}' is not valid (expected uniform, balanced, or the layers of each "
                                          "stage as positive integers, e.g. \"13,11\")",
                                          echo(text)));
    p.stage_layers.push_back(value);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
}

using Section = std::map<std::string, KeyReader>;

const std::map<std::string, Section>& schema() {
  static const std::map<std::string, Section> sections = {
      {"model",
       {{"layers", [](auto& n, Workload& w, auto& at) { w.model.layers = read_int(n, at, 1, &kMaxLayers); }},
        {"hidden", [](auto& n, Workload& w, auto& at) { w.model.hidden = read_int(n, at, 1, &kMaxHidden); }},
        {"heads", [](auto& n, Workload& w, auto& at) { w.model.heads = read_int(n, at, 1); }},
        {"seq_len", [](auto& n, Workload& w, auto& at) { w.model.seq_len = read_int(n, at, 1, &kMaxSeqLen); }},
        {"vocab", [](auto& n, Workload& w, auto& at) { w.model.vocab = read_int(n, at, 1, &kMaxVocab); }},
        {"ffn_hidden", [](auto& n, Workload& w, auto& at) { w.model.ffn_hidden = read_int(n, at, 1, &kMaxFfnHidden); }},
        {"tie_embeddings", [](auto& n, Workload& w, auto& at) { w.model.tie_embeddings = read_bool(n, at); }},
        {"attention",
         [](auto& n, Workload& w, auto& at) {
           w.model.attention =
               read_enum<Attention>(n, at, {{"standard", Attention::standard}, {"flash", Attention::flash}});
         }},
        {"head", [](auto& n, Workload& w, auto& at) {
           w.model.head = read_enum<Head>(n, at, {{"lm", Head::lm}, {"classifier", Head::classifier}});
         }}}},
      {"training",
       {{"global_batch", [](auto& n, Workload& w, auto& at) { w.training.global_batch = read_int(n, at, 1); }},
        {"micro_batch", [](auto& n, Workload& w, auto& at) { w.training.micro_batch = read_int(n, at, 1); }},
        {"precision",
         [](auto& n, Workload& w, auto& at) {
           w.training.precision = read_enum<Precision>(
               n, at, {{"fp32", Precision::fp32}, {"fp16", Precision::fp16}, {"bf16", Precision::bf16}});
         }},
        {"recompute",
         [](auto& n, Workload& w, auto& at) {
           w.training.recompute = read_enum<Recompute>(
               n, at, {{"none", Recompute::none}, {"full", Recompute::full}, {"selective", Recompute::selective}});
         }},
        {"optimizer", [](auto& n, Workload& w, auto& at) {
           w.training.optimizer = read_enum<Optimizer>(n, at, {{"adam", Optimizer::adam}, {"sgd", Optimizer::sgd}, {"sgd_momentum", Optimizer::sgd_momentum}});
         }}}},
      {"parallelism",
       {{"dp", [](auto& n, Workload& w, auto& at) { w.parallelism.dp = read_int(n, at, 1, &kMaxGpus); }},
        {"tp", [](auto& n, Workload& w, auto& at) { w.parallelism.tp = read_int(n, at, 1, &kMaxGpus); }},
        {"pp", [](auto& n, Workload& w, auto& at) { w.parallelism.pp = read_int(n, at, 1, &kMaxGpus); }},
        {"schedule",
         [](auto& n, Workload& w, auto& at) {
           w.parallelism.schedule = read_enum<Schedule>(
               n, at,
               {{"gpipe", Schedule::gpipe}, {"1f1b", Schedule::one_f_one_b}, {"interleaved", Schedule::interleaved}});
         }},
        {"chunks", [](auto& n, Workload& w, auto& at) { w.parallelism.chunks = read_int(n, at, 1); }},
        {"zero",
         [](auto& n, Workload& w, auto& at) {
           w.parallelism.zero = read_int(n, at, 0);
           if (w.parallelism.zero > 3)
             throw InputError(at, fmt::format("{} is out of range (expected 0, 1, 2 or 3)", w.parallelism.zero));
         }},
        {"sequence_parallel",
         [](auto& n, Workload& w, auto& at) { w.parallelism.sequence_parallel = read_bool(n, at); }},
        {"partition", [](auto& n, Workload& w, auto& at) { read_partition(n, w, at); }},
        {"dp_algorithm", [](auto& n, Workload& w, auto& at) {
           w.parallelism.dp_algorithm = read_enum<DpAlgorithm>(n, at,
                                                               {{"allreduce", DpAlgorithm::allreduce},
                                                                {"reduce_scatter", DpAlgorithm::reduce_scatter},
                                                                {"parameter_server", DpAlgorithm::parameter_server}});
         }}}},
      {"placement",
       {{"gpus", [](auto& n, Workload& w, auto& at) { w.placement.gpus = read_int(n, at, 1, &kMaxGpus); }},
        {"order", [](auto& n, Workload& w, auto& at) {
           w.placement.order = read_enum<RankOrder>(n, at,
                                                   {{"tp-dp-pp", RankOrder::tp_dp_pp},
                                                    {"tp-pp-dp", RankOrder::tp_pp_dp},
                                                    {"dp-tp-pp", RankOrder::dp_tp_pp},
                                                    {"pp-tp-dp", RankOrder::pp_tp_dp}});
         }}}},
      {"network",
       // Past an hour per hop or below 1 bps a step takes years: no what-if simgpt can answer,
       // and such values only drive SimGrid's clock to inf or its solver to zero rates.
       {{"delay", [](auto& n, Workload& w, auto& at) {
           const double d = read_quantity(n, at, parse_duration);
           if (!(d <= 3600))
             throw InputError(at, fmt::format("{:.4g} s is too large (expected at most 1h)", d));
           w.network.delay_s = d;
         }},
        {"bandwidth", [](auto& n, Workload& w, auto& at) {
           double bw = read_quantity(n, at, parse_bandwidth);
           if (!(bw * 8 >= 1))
             throw InputError(at, fmt::format("{:.4g} bps is too small (expected at least 1bps, e.g. 1Gbps)", bw * 8));
           w.network.bandwidth_Bps = bw;
         }}}},
  };
  return sections;
}

std::string valid_names(const auto& map) {
  std::string names;
  for (const auto& entry : map)
    names += (names.empty() ? "" : ", ") + entry.first;
  return names;
}

// Applies "section.key=value" by writing the value into the YAML tree, so an override
// is checked exactly as the same key in the file would be.
// A section an override writes into must be a mapping (or absent): yaml-cpp cannot index a scalar
// or a list by key, and would throw an error that names no file.
void require_mapping(const YAML::Node& root, const std::string& section, const std::string& source,
                     const std::string& where) {
  const YAML::Node node = root[section];
  if (node.IsDefined() && !node.IsNull() && !node.IsMap())
    throw InputError(source + ": " + section,
                     fmt::format("is not a mapping of keys, so {} cannot set a key in it", where));
}

void apply_override(YAML::Node& root, const std::string& key, const std::string& value, const std::string& source) {
  check_override_key(key);
  const std::string where = "--set " + echo(key);
  if (key == "framework") {
    root["framework"] = value;
    return;
  }
  // framework_options.SECTION.KEY: a profile key, checked when the profile is read.
  if (key.starts_with("framework_options.")) {
    require_mapping(root, "framework_options", source, where);
    root["framework_options"][key.substr(sizeof("framework_options.") - 1)] = value;
    return;
  }
  const auto dot = key.find('.');
  const std::string section = key.substr(0, dot);
  const std::string name = key.substr(dot + 1);
  require_mapping(root, section, source, where);
  YAML::Node parsed;
  try {
    parsed = YAML::Load(value);
  } catch (const YAML::Exception&) {
    parsed = YAML::Node(value);
  }
  if (!parsed.IsScalar())
    parsed = YAML::Node(value);
  root[section][name] = parsed;
}

// The products the plan counts or divides with, checked before any is used (each factor is >= 1):
// a wrapped dp*tp*pp or micro_batch*dp can be 0 and crash a later division, a wrapped count print
// a wrong number. Beyond a limit: LimitError; past 64 bits with no limit of its own: InputError.
void check_products(const Workload& w) {
  const std::string& f = w.source;
  const auto& m = w.model;
  const auto& t = w.training;
  const auto& p = w.parallelism;
  std::optional<int64_t> gpus = checked_mul(p.dp, p.tp);
  gpus = gpus ? checked_mul(*gpus, p.pp) : gpus;
  if (!gpus || *gpus > kMaxGpus.max)
    refuse_limit(f + ": parallelism", fmt::format("dp*tp*pp = {}*{}*{} GPUs", p.dp, p.tp, p.pp), kMaxGpus);
  if (!checked_mul(p.pp, p.chunks))
    throw InputError(f + ": parallelism.chunks", fmt::format("pp * chunks = {} * {} does not fit in 64 bits (it "
                                                             "must be at most the model's {} layers)",
                                                             p.pp, p.chunks, m.layers));
  const std::optional<int64_t> replica_batch = checked_mul(t.micro_batch, p.dp);
  if (!replica_batch)
    throw InputError(f + ": training.micro_batch",
                     fmt::format("micro_batch * dp = {} * {} does not fit in 64 bits (it must divide global_batch {})",
                                 t.micro_batch, p.dp, t.global_batch));
  if (t.global_batch / *replica_batch > kMaxMicroBatches.max)
    refuse_limit(f + ": training.global_batch",
                 fmt::format("global_batch / (micro_batch * dp) = {} / ({} * {}) = {} micro-batches per step",
                             t.global_batch, t.micro_batch, p.dp, t.global_batch / *replica_batch),
                 kMaxMicroBatches);
  // The largest tensor of one micro-batch, in elements: the model counts some of these in int64_t.
  const int64_t widest = std::max({m.hidden, m.ffn_hidden, m.vocab});
  std::optional<int64_t> elements = checked_mul(t.micro_batch, m.seq_len);
  elements = elements ? checked_mul(*elements, widest) : elements;
  if (!elements)
    throw InputError(f + ": training.micro_batch",
                     fmt::format("micro_batch * seq_len * {} = {} * {} * {} elements does not fit in 64 bits",
                                 widest == m.hidden ? "hidden" : widest == m.vocab ? "vocab" : "ffn_hidden",
                                 t.micro_batch, m.seq_len, widest));
}

void check_consistency(const Workload& w) {
  const std::string& f = w.source;
  const auto& m = w.model;
  const auto& t = w.training;
  const auto& p = w.parallelism;
  const std::pair<const char*, int64_t> required[] = {
      {"layers", m.layers}, {"hidden", m.hidden}, {"heads", m.heads}, {"seq_len", m.seq_len}, {"vocab", m.vocab}};
  for (const auto& [key, value] : required)
    if (value == 0)
      throw InputError(f + ": model." + key, "is required (a positive integer)");
  if (t.global_batch == 0)
    throw InputError(f + ": training.global_batch", "is required (a positive integer)");
  check_products(w);
  if (m.hidden % m.heads != 0)
    throw InputError(f + ": model.heads",
                     fmt::format("{} heads do not divide hidden {} (heads must divide hidden)", m.heads, m.hidden));
  int64_t layer_groups = p.pp * (p.schedule == Schedule::interleaved ? p.chunks : 1);
  if (p.partition == Partition::listed) {
    if (static_cast<int64_t>(p.stage_layers.size()) != layer_groups)
      throw InputError(f + ": parallelism.partition",
                       fmt::format("lists {} stages but the plan has {} (pp{})", p.stage_layers.size(), layer_groups,
                                   p.schedule == Schedule::interleaved ? " * chunks" : ""));
    int64_t sum = 0;
    for (int64_t n : p.stage_layers)
      if (!checked_add(sum, n) || (sum += n) > m.layers) // every entry is >= 1: past layers is wrong already
        throw InputError(f + ": parallelism.partition",
                         fmt::format("the listed stages hold more than the model's {} layers", m.layers));
    if (sum != m.layers)
      throw InputError(f + ": parallelism.partition",
                       fmt::format("the listed stages hold {} layers but the model has {}", sum, m.layers));
  } else if (m.layers < layer_groups) {
    throw InputError(f + ": parallelism.pp", fmt::format("{} layers cannot fill {} pipeline stages{}", m.layers,
                                                        layer_groups,
                                                        p.schedule == Schedule::interleaved ? " x chunks" : ""));
  }
  if (p.partition == Partition::uniform && m.layers % layer_groups != 0)
    throw InputError(f + ": parallelism.pp",
                     fmt::format("{} layers cannot be split evenly into {} pipeline stages{} (layers must be a "
                                 "multiple of pp{}, or set parallelism.partition to balanced or a list)",
                                 m.layers, layer_groups, p.schedule == Schedule::interleaved ? " x chunks" : "",
                                 p.schedule == Schedule::interleaved ? " * chunks" : ""));
  if (t.global_batch % (t.micro_batch * p.dp) != 0)
    throw InputError(f + ": training.global_batch",
                     fmt::format("global_batch {} is not divisible by micro_batch * dp = {} * {}", t.global_batch,
                                 t.micro_batch, p.dp));
  if (p.schedule != Schedule::interleaved && p.chunks != 1)
    throw InputError(f + ": parallelism.chunks", "chunks applies to the interleaved schedule only (use 1)");
  if (p.schedule == Schedule::interleaved && p.chunks < 2)
    throw InputError(f + ": parallelism.chunks", "the interleaved schedule needs chunks >= 2");
  if (p.schedule == Schedule::interleaved && w.micro_batches() % p.pp != 0)
    throw InputError(f + ": training.micro_batch",
                     fmt::format("the interleaved schedule needs the number of micro-batches ({}) to be a multiple "
                                 "of pp ({})",
                                 w.micro_batches(), p.pp));
  if (m.heads % p.tp != 0)
    throw InputError(f + ": parallelism.tp", fmt::format("tp {} does not divide heads {}", p.tp, m.heads));
  if (m.ffn_hidden % p.tp != 0)
    throw InputError(f + ": parallelism.tp", fmt::format("tp {} does not divide ffn_hidden {}", p.tp, m.ffn_hidden));
  // FlashAttention's kernels take fp16 and bf16 only (Dao et al. 2022; Dao 2023).
  if (m.attention == Attention::flash && t.precision == Precision::fp32)
    throw InputError(f + ": model.attention",
                     "flash needs training.precision fp16 or bf16 (FlashAttention has no fp32 kernels); "
                     "use attention: standard for fp32");
  if (p.zero > 0 && p.dp == 1)
    throw InputError(f + ": parallelism.zero", "ZeRO shards state across data-parallel ranks: it needs dp > 1");
  if (p.sequence_parallel && p.tp == 1)
    throw InputError(f + ": parallelism.sequence_parallel", "sequence parallelism needs tp > 1");
  if (w.placement.gpus && *w.placement.gpus != w.gpus())
    throw InputError(f + ": placement.gpus",
                     fmt::format("the plan dp*tp*pp = {}*{}*{} uses {} GPUs, not {}", p.dp, p.tp, p.pp, w.gpus(),
                                 *w.placement.gpus));
}

} // namespace

std::pair<std::string, std::string> parse_override(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError("--set " + echo(text), "expected KEY=VALUE, e.g. --set parallelism.pp=4 or --set network.delay=10ms");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Workload parse_workload(const std::string& yaml_text, const std::string& source, const Overrides& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}", source, e.mark.line + 1), parse_error_message(e));
  }
  if (root.IsNull())
    root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap())
    throw InputError(source, "a workload is a YAML mapping with sections model, training, parallelism, framework");
  check_keys(root, source); // before overrides, which replace a key rather than repeat it
  for (const auto& [key, value] : overrides)
    apply_override(root, key, value, source);

  Workload w;
  w.source = source;
  for (const auto& entry : root) {
    const std::string section = entry.first.as<std::string>();
    const std::string at = source + ": " + echo(section);
    if (section == "framework") {
      if (!entry.second.IsScalar() || entry.second.Scalar().empty())
        throw InputError(at, "expected a profile name, e.g. megatron");
      w.framework = entry.second.Scalar();
      continue;
    }
    if (section == "framework_options") {
      if (entry.second.IsNull())
        continue;
      if (!entry.second.IsMap())
        throw InputError(at, "expected a mapping of profile keys to values, e.g. compute.fused_elementwise: false");
      for (const auto& item : entry.second) {
        if (!item.second.IsScalar())
          throw InputError(at + "." + item.first.as<std::string>(), "expected a single value");
        w.framework_options[item.first.as<std::string>()] = item.second.Scalar();
      }
      continue;
    }
    auto sec = schema().find(section);
    if (sec == schema().end())
      throw InputError(at, fmt::format("unknown section (expected one of: framework, framework_options, {})", valid_names(schema())));
    if (entry.second.IsNull())
      continue;
    if (!entry.second.IsMap())
      throw InputError(at, "expected a mapping of keys");
    for (const auto& item : entry.second) {
      const std::string name = item.first.as<std::string>();
      const std::string key_at = at + "." + echo(name);
      auto reader = sec->second.find(name);
      if (reader == sec->second.end())
        throw InputError(key_at, fmt::format("unknown key (valid keys of {}: {})", section, valid_names(sec->second)));
      if (!item.second.IsScalar())
        throw InputError(key_at, "expected a single value");
      reader->second(item.second, w, key_at);
    }
  }
  if (w.model.ffn_hidden == 0) // hidden <= kMaxHidden, so 4 * hidden fits; checked all the same
    w.model.ffn_hidden = checked_mul(4, w.model.hidden).value_or(std::numeric_limits<int64_t>::max());
  check_consistency(w);
  return w;
}

void check_override_key(const std::string& key) {
  const std::string where = "--set " + echo(key);
  if (key == "framework" || (key.starts_with("framework_options.") && key.size() > sizeof("framework_options.") - 1))
    return;
  const auto dot = key.find('.');
  if (dot == std::string::npos)
    throw InputError(where, fmt::format("expected SECTION.KEY=VALUE with SECTION one of: framework, framework_options, {}",
                                        valid_names(schema())));
  const std::string section = key.substr(0, dot);
  const std::string name = key.substr(dot + 1);
  auto sec = schema().find(section);
  if (sec == schema().end())
    throw InputError(where, fmt::format("unknown section '{}' (expected one of: framework, framework_options, {})",
                                        echo(section), valid_names(schema())));
  if (!sec->second.contains(name))
    throw InputError(where, fmt::format("unknown key '{}' (valid keys of {}: {})", echo(name), section,
                                        valid_names(sec->second)));
}

Workload load_workload(const std::string& path, const Overrides& overrides) {
  return parse_workload(read_input_file(path, "workload"), path, overrides);
}

} // namespace simgpt
