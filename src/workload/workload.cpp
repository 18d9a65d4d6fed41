#include "simgpt/workload/workload.hpp"

#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "core/checked_int.hpp"
#include "core/input_file.hpp"
#include "core/yaml_read.hpp"
#include "workload/key_suggestion.hpp"
#include "workload/megatron_args.hpp"
#include "workload/workload_limits.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

namespace simgpt {

std::string Workload::gpu_product() const {
  const ParallelismSpec& p = parallelism;
  if (p.cp > 1)
    return fmt::format("dp*cp*tp*pp = {}*{}*{}*{}", p.dp, p.cp, p.tp, p.pp);
  return fmt::format("dp*tp*pp = {}*{}*{}", p.dp, p.tp, p.pp);
}

namespace {

// Reads one key of the workload; `where` is "file: section.key".
using KeyReader = std::function<void(const YAML::Node&, Workload&, const std::string& where)>;

// An integer >= min; above `limit` (when given) a LimitError. A number too large for 64 bits is
// refused as such, not as "not an integer".
// Decimal digits only, with an optional minus sign. yaml-cpp reads "010" as octal 8 and "0x18" as
// 24 (YAML 1.1), so a layer count written with a leading zero would silently simulate another
// model: such spellings are refused, not guessed.
int64_t read_int(const YAML::Node& node, const std::string& where, int64_t min, const Limit* limit = nullptr) {
  const std::string text = node.IsScalar() ? node.Scalar() : "";
  const size_t first_digit = text.starts_with('-') ? 1 : 0;
  const std::string digits = text.substr(std::min(first_digit, text.size()));
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(where, fmt::format("'{}' is not an integer (expected an integer >= {})", echo(text), min));
  if (digits.size() > 1 && digits.front() == '0')
    throw InputError(where, fmt::format("'{}' has a leading zero (write the integer in decimal without it)",
                                        echo(text)));
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    if (first_digit == 0 && limit)
      refuse_limit(where, "'" + echo(text) + "'", *limit);
    throw InputError(where, fmt::format("'{}' does not fit in a 64-bit integer (expected an integer from {} to {})",
                                        echo(text), min, std::numeric_limits<int64_t>::max()));
  }
  check_int(value, where, min, limit);
  return value;
}

bool read_bool(const YAML::Node& node, const std::string& where) {
  try {
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(where, fmt::format("'{}' is not a boolean (expected true or false)", echo(node.Scalar())));
  }
}

// One of the enum's names (enum_names); the message lists them in alphabetical order.
template <typename Enum>
Enum read_enum(const YAML::Node& node, const std::string& where) {
  std::string text = node.IsScalar() ? node.Scalar() : "";
  if (const std::optional<Enum> value = parse_enum<Enum>(text))
    return *value;
  throw InputError(where, fmt::format("'{}' is not valid (expected one of: {})", echo(text), sorted_enum_names<Enum>()));
}

// The whole of `text` as a decimal above 0 and at most `max`; nullopt otherwise.
std::optional<double> positive_decimal(std::string_view text, double max) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(value > 0) || !(value <= max))
    return std::nullopt;
  return value;
}

std::string scalar_or_empty(const YAML::Node& node) { return node.IsScalar() ? node.Scalar() : ""; }

// A finite number > 0 (a capacity factor: 1.25), in decimal.
double read_positive_number(const YAML::Node& node, const std::string& where) {
  const std::string text = scalar_or_empty(node);
  if (const std::optional<double> value = positive_decimal(text, 1e6))
    return *value;
  throw InputError(where, fmt::format("'{}' is not valid (expected a number > 0, e.g. 1.25)", echo(text)));
}

// A count of tokens to train on (training.tokens): a number > 0 and at most 1e18, in decimal or
// with a suffix K, M, B or T (thousands to trillions: "15T", as model cards write it).
// A share from 0 to 1 (conditions.random_fraction).
double read_fraction(const YAML::Node& node, const std::string& where) {
  const std::string text = scalar_or_empty(node);
  double v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(v >= 0 && v <= 1))
    throw InputError(where, fmt::format("'{}' is not a share of the GPUs (expected a number from 0 to 1, e.g. 0.01)",
                                        echo(text)));
  return v;
}

double read_token_count(const YAML::Node& node, const std::string& where) {
  const std::string text = scalar_or_empty(node);
  std::string_view digits = text;
  double scale = 1;
  constexpr std::pair<char, double> kSuffixes[] = {{'K', 1e3}, {'M', 1e6}, {'B', 1e9}, {'T', 1e12}};
  for (const auto& [suffix, factor] : kSuffixes)
    if (!digits.empty() && digits.back() == suffix) {
      scale = factor;
      digits.remove_suffix(1);
      break; // one suffix: "1MK" is no count
    }
  if (const std::optional<double> value = positive_decimal(digits, 1e18 / scale))
    return *value * scale;
  throw InputError(where, fmt::format("'{}' is not valid (expected a number of tokens > 0 and at most 1e18, "
                                      "e.g. 15e12 or 15T)",
                                      echo(text)));
}

// A price per GPU-hour (training.gpu_hour_price): a number > 0 and at most 1e6, in decimal.
double read_price(const YAML::Node& node, const std::string& where) {
  const std::string text = scalar_or_empty(node);
  if (const std::optional<double> value = positive_decimal(text, 1e6))
    return *value;
  throw InputError(where, fmt::format("'{}' is not valid (expected a price per GPU-hour > 0 and at most 1e6, "
                                      "e.g. 2.5)", echo(text)));
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
// A list of Megatron-core's recompute modules, as a YAML list or "core_attn,mlp".
void read_recompute_modules(const YAML::Node& node, Workload& w, const std::string& where) {
  std::vector<std::string> names;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      if (!item.IsScalar())
        throw InputError(where, "expected a list of module names, e.g. [core_attn, mlp]");
      names.push_back(item.Scalar());
    }
  } else if (node.IsScalar()) {
    std::string text = node.Scalar();
    std::replace(text.begin(), text.end(), ',', ' ');
    size_t start = 0;
    while ((start = text.find_first_not_of(' ', start)) != std::string::npos) {
      const size_t end = text.find(' ', start);
      names.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
      start = end;
    }
  } else {
    throw InputError(where, "expected a list of module names, e.g. [core_attn, mlp]");
  }
  unsigned modules = 0;
  for (const std::string& name : names) {
    if (const std::optional<RecomputeModule> m = parse_enum<RecomputeModule>(name)) {
      modules |= static_cast<unsigned>(*m);
      continue;
    }
    // Megatron-core's other modules (transformer_config.py): what simgpt does not rerun yet.
    if (name == "shared_experts" || name == "mhc")
      throw InputError(where, fmt::format("'{}' is a Megatron-core recompute module simgpt does not model "
                                          "(expected core_attn, mlp, layernorm, moe_act, mla_up_proj or moe)",
                                          echo(name)));
    throw InputError(where, fmt::format("'{}' is not a recompute module (expected core_attn, mlp, layernorm, "
                                        "moe_act, mla_up_proj or moe)",
                                        echo(name)));
  }
  if (modules == 0)
    throw InputError(where, "names no module (expected some of core_attn, mlp, layernorm, moe_act, mla_up_proj, moe)");
  w.training.recompute_modules = modules;
}

// Megatron-Core's hybrid layer pattern (megatron/core/models/hybrid/hybrid_layer_allocation.py,
// Symbols): a layer a symbol.
void read_hybrid_pattern(const YAML::Node& node, Workload& w, const std::string& where) {
  const std::string text = node.Scalar();
  if (text.size() > static_cast<size_t>(kMaxLayers.max))
    refuse_limit(where, fmt::format("{} layers", text.size()), kMaxLayers);
  for (const char c : text) {
    if (c == 'M' || c == '*' || c == '-' || c == 'E')
      continue;
    if (c == '|')
      throw InputError(where, "'|' (Megatron's pipeline-stage boundaries) is not read here: give the stages' layers "
                              "as parallelism.partition (e.g. \"26,26\")");
    if (c == '/')
      throw InputError(where, "'/' (Megatron's multi-token prediction pattern) is not read here: give the modules as "
                              "model.mtp_layers");
    if (c == 'G' || c == 'D' || c == '+')
      throw InputError(where, fmt::format("'{}' (Megatron-Core's {} layer) is a layer simgpt does not model (expected M, "
                                          "*, - or E)",
                                          c, c == 'G' ? "GatedDeltaNet" : c == 'D' ? "DSA attention" : "latent attention"));
    throw InputError(where, fmt::format("'{}' is not a layer symbol (expected a string of M (Mamba-2), * (attention), - "
                                        "(MLP) and E (MoE), e.g. \"M*M-\")",
                                        echo(std::string(1, c))));
  }
  w.model.hybrid_pattern = text;
}

void read_partition(const YAML::Node& node, Workload& w, const std::string& where) {
  const std::string text = node.Scalar();
  auto& p = w.parallelism;
  p.stage_layers.clear();
  if (const std::optional<Partition> named = parse_enum<Partition>(text)) {
    p.partition = *named;
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
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || value < 0)
      throw InputError(where, fmt::format("'{}' is not valid (expected uniform, balanced, or the layers of each "
                                          "stage as whole numbers, e.g. \"13,11\")",
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
        {"attention", [](auto& n, Workload& w, auto& at) { w.model.attention = read_enum<Attention>(n, at); }},
        {"kv_heads", [](auto& n, Workload& w, auto& at) { w.model.kv_heads = read_int(n, at, 1); }},
        {"head_dim", [](auto& n, Workload& w, auto& at) { w.model.head_width = read_int(n, at, 1, &kMaxHidden); }},
        {"qk_layernorm", [](auto& n, Workload& w, auto& at) { w.model.qk_layernorm = read_bool(n, at); }},
        {"window", [](auto& n, Workload& w, auto& at) { w.model.window = read_int(n, at, 0, &kMaxSeqLen); }},
        {"full_attention_every",
         [](auto& n, Workload& w, auto& at) { w.model.full_attention_every = read_int(n, at, 0, &kMaxLayers); }},
        {"mtp_layers", [](auto& n, Workload& w, auto& at) { w.model.mtp_layers = read_int(n, at, 0, &kMaxLayers); }},
        {"mtp_shared_layer", [](auto& n, Workload& w, auto& at) { w.model.mtp_shared_layer = read_bool(n, at); }},
        {"attention_sinks", [](auto& n, Workload& w, auto& at) { w.model.attention_sinks = read_bool(n, at); }},
        {"hybrid_pattern", [](auto& n, Workload& w, auto& at) { read_hybrid_pattern(n, w, at); }},
        {"mamba_heads", [](auto& n, Workload& w, auto& at) { w.model.mamba_heads = read_int(n, at, 1, &kMaxHidden); }},
        {"mamba_head_dim",
         [](auto& n, Workload& w, auto& at) { w.model.mamba_head_dim = read_int(n, at, 1, &kMaxHidden); }},
        {"mamba_state", [](auto& n, Workload& w, auto& at) { w.model.mamba_state = read_int(n, at, 1, &kMaxHidden); }},
        {"mamba_groups", [](auto& n, Workload& w, auto& at) { w.model.mamba_groups = read_int(n, at, 1, &kMaxHidden); }},
        {"moe_latent", [](auto& n, Workload& w, auto& at) { w.model.moe_latent = read_int(n, at, 0, &kMaxHidden); }},
        {"activation_clamp",
         [](auto& n, Workload& w, auto& at) { w.model.activation_clamp = read_positive_number(n, at); }},
        {"mlp", [](auto& n, Workload& w, auto& at) { w.model.mlp = read_enum<Mlp>(n, at); }},
        {"norm", [](auto& n, Workload& w, auto& at) { w.model.norm = read_enum<Norm>(n, at); }},
        {"position", [](auto& n, Workload& w, auto& at) { w.model.position = read_enum<Position>(n, at); }},
        {"bias", [](auto& n, Workload& w, auto& at) { w.model.bias = read_bool(n, at); }},
        {"causal", [](auto& n, Workload& w, auto& at) { w.model.causal = read_bool(n, at); }},
        {"head", [](auto& n, Workload& w, auto& at) { w.model.head = read_enum<Head>(n, at); }},
        {"experts", [](auto& n, Workload& w, auto& at) { w.model.experts = read_int(n, at, 0, &kMaxExperts); }},
        {"top_k", [](auto& n, Workload& w, auto& at) {
           w.model.top_k = read_int(n, at, 1, &kMaxExperts);
           w.model.top_k_given = true;
         }},
        {"moe_ffn_hidden",
         [](auto& n, Workload& w, auto& at) { w.model.moe_ffn_hidden = read_int(n, at, 1, &kMaxFfnHidden); }},
        {"shared_expert_ffn_hidden",
         [](auto& n, Workload& w, auto& at) { w.model.shared_expert_ffn_hidden = read_int(n, at, 0, &kMaxFfnHidden); }},
        {"dense_layers", [](auto& n, Workload& w, auto& at) { w.model.dense_layers = read_int(n, at, 0, &kMaxLayers); }},
        {"capacity_factor", [](auto& n, Workload& w, auto& at) {
           w.model.capacity_factor = read_positive_number(n, at);
         }},
        {"latent_attention", [](auto& n, Workload& w, auto& at) { w.model.latent_attention = read_bool(n, at); }},
        {"q_lora_rank", [](auto& n, Workload& w, auto& at) { w.model.q_lora_rank = read_int(n, at, 0, &kMaxHidden); }},
        {"kv_lora_rank", [](auto& n, Workload& w, auto& at) { w.model.kv_lora_rank = read_int(n, at, 1, &kMaxHidden); }},
        {"qk_head_dim", [](auto& n, Workload& w, auto& at) { w.model.qk_head_dim = read_int(n, at, 1, &kMaxHidden); }},
        {"qk_pos_emb_head_dim",
         [](auto& n, Workload& w, auto& at) { w.model.qk_pos_emb_head_dim = read_int(n, at, 1, &kMaxHidden); }},
        {"v_head_dim", [](auto& n, Workload& w, auto& at) { w.model.v_head_dim = read_int(n, at, 1, &kMaxHidden); }}}},
      {"training",
       {{"global_batch", [](auto& n, Workload& w, auto& at) { w.training.global_batch = read_int(n, at, 1); }},
        {"micro_batch", [](auto& n, Workload& w, auto& at) { w.training.micro_batch = read_int(n, at, 1); }},
        {"precision", [](auto& n, Workload& w, auto& at) { w.training.precision = read_enum<Precision>(n, at); }},
        {"recompute", [](auto& n, Workload& w, auto& at) { w.training.recompute = read_enum<Recompute>(n, at); }},
        {"recompute_modules", [](auto& n, Workload& w, auto& at) { read_recompute_modules(n, w, at); }},
        {"optimizer", [](auto& n, Workload& w, auto& at) { w.training.optimizer = read_enum<Optimizer>(n, at); }},
        {"fp8", [](auto& n, Workload& w, auto& at) { w.training.fp8 = read_enum<Fp8Format>(n, at); }},
        {"fp8_recipe", [](auto& n, Workload& w, auto& at) { w.training.fp8_recipe = read_enum<Fp8Recipe>(n, at); }},
        {"fp8_param_gather", [](auto& n, Workload& w, auto& at) { w.training.fp8_param_gather = read_bool(n, at); }},
        {"cpu_offload_layers",
         [](auto& n, Workload& w, auto& at) { w.training.cpu_offload_layers = read_int(n, at, 0, &kMaxLayers); }},
        {"tokens", [](auto& n, Workload& w, auto& at) { w.training.tokens = read_token_count(n, at); }},
        {"gpu_hour_price", [](auto& n, Workload& w, auto& at) { w.training.gpu_hour_price = read_price(n, at); }}}},
      {"parallelism",
       {{"dp",
         [](auto& n, Workload& w, auto& at) {
           w.parallelism.dp = read_int(n, at, 1, &kMaxGpus);
           w.parallelism.dp_from_platform = false;
         }},
        {"tp", [](auto& n, Workload& w, auto& at) { w.parallelism.tp = read_int(n, at, 1, &kMaxGpus); }},
        {"pp", [](auto& n, Workload& w, auto& at) { w.parallelism.pp = read_int(n, at, 1, &kMaxGpus); }},
        {"ep", [](auto& n, Workload& w, auto& at) { w.parallelism.ep = read_int(n, at, 1, &kMaxGpus); }},
        {"etp", [](auto& n, Workload& w, auto& at) { w.parallelism.etp = read_int(n, at, 1, &kMaxGpus); }},
        {"cp", [](auto& n, Workload& w, auto& at) { w.parallelism.cp = read_int(n, at, 1, &kMaxGpus); }},
        {"cp_comm_type",
         [](auto& n, Workload& w, auto& at) { w.parallelism.cp_comm_type = read_enum<CpCommType>(n, at); }},
        {"schedule", [](auto& n, Workload& w, auto& at) { w.parallelism.schedule = read_enum<Schedule>(n, at); }},
        {"chunks", [](auto& n, Workload& w, auto& at) { w.parallelism.chunks = read_int(n, at, 1); }},
        {"pipeline_flushes", [](auto& n, Workload& w, auto& at) { w.parallelism.pipeline_flushes = read_int(n, at, 1); }},
        {"zero",
         [](auto& n, Workload& w, auto& at) {
           w.parallelism.zero = read_int(n, at, 0);
           if (w.parallelism.zero > 3)
             throw InputError(at, fmt::format("{} is out of range (expected 0, 1, 2 or 3)", w.parallelism.zero));
         }},
        {"sequence_parallel",
         [](auto& n, Workload& w, auto& at) { w.parallelism.sequence_parallel = read_bool(n, at); }},
        {"align_param_gather",
         [](auto& n, Workload& w, auto& at) { w.parallelism.align_param_gather = read_bool(n, at); }},
        {"overlap_param_gather",
         [](auto& n, Workload& w, auto& at) { w.parallelism.overlap_param_gather = read_bool(n, at); }},
        {"tp_comm_overlap", [](auto& n, Workload& w, auto& at) { w.parallelism.tp_comm_overlap = read_bool(n, at); }},
        {"moe_dispatcher",
         [](auto& n, Workload& w, auto& at) { w.parallelism.moe_dispatcher = read_enum<MoeDispatcher>(n, at); }},
        {"moe_a2a_overlap", [](auto& n, Workload& w, auto& at) { w.parallelism.moe_a2a_overlap = read_bool(n, at); }},
        {"partition", [](auto& n, Workload& w, auto& at) { read_partition(n, w, at); }},
        {"dp_algorithm", [](auto& n, Workload& w, auto& at) { w.parallelism.dp_algorithm = read_enum<DpAlgorithm>(n, at); }}}},
      {"placement",
       {{"gpus", [](auto& n, Workload& w, auto& at) { w.placement.gpus = read_int(n, at, 1, &kMaxGpus); }},
        {"order", [](auto& n, Workload& w, auto& at) { w.placement.order = read_enum<RankOrder>(n, at); }},
        {"first_gpu", [](auto& n, Workload& w, auto& at) { w.placement.first_gpu = read_int(n, at, 0, &kMaxGpus); }}}},
      {"network",
       // Each bounded by check_delay and check_bandwidth (why: check_workload.cpp).
       {{"delay", [](auto& n, Workload& w, auto& at) {
           w.network.delay_s = read_quantity(n, at, parse_duration);
           check_delay(*w.network.delay_s, at);
         }},
        {"bandwidth", [](auto& n, Workload& w, auto& at) {
           w.network.bandwidth_Bps = read_quantity(n, at, parse_bandwidth);
           check_bandwidth(*w.network.bandwidth_Bps, at);
         }}}},
      {"conditions",
       {{"gpu_slowdown",
         [](auto& n, Workload& w, auto& at) { w.conditions.gpus = parse_slowdowns(n.Scalar(), at, "GPU"); }},
        {"node_slowdown",
         [](auto& n, Workload& w, auto& at) { w.conditions.nodes = parse_slowdowns(n.Scalar(), at, "node"); }},
        {"random_fraction",
         [](auto& n, Workload& w, auto& at) {
           w.conditions.random_fraction = read_fraction(n, at);
           w.conditions.random_fraction_given = true;
         }},
        {"random_slowdown", [](auto& n, Workload& w, auto& at) { parse_random_slowdown(n.Scalar(), w.conditions, at); }},
        {"seed",
         [](auto& n, Workload& w, auto& at) {
           w.conditions.seed = static_cast<uint64_t>(read_int(n, at, 0));
           w.conditions.seed_given = true;
         }},
        {"link_bandwidth",
         [](auto& n, Workload& w, auto& at) { parse_link_factors(n.Scalar(), w.conditions.links, at); }},
        {"link_latency",
         [](auto& n, Workload& w, auto& at) { parse_link_latencies(n.Scalar(), w.conditions.links, at); }},
        {"links_down", [](auto& n, Workload& w, auto& at) { parse_links_down(n.Scalar(), w.conditions.links, at); }}}},
  };
  return sections;
}

std::string valid_names(const auto& map) {
  std::string names;
  for (const auto& entry : map)
    names += (names.empty() ? "" : ", ") + entry.first;
  return names;
}

// " (did you mean X?)" when an unknown "section.key" resembles a valid one, else "".
std::string did_you_mean(const std::string& dotted) {
  static const std::vector<std::string> valid = [] {
    std::vector<std::string> keys;
    for (const auto& [section, readers] : schema())
      for (const auto& entry : readers)
        keys.push_back(section + "." + entry.first);
    return keys;
  }();
  const std::optional<std::string> key = suggest_key(dotted, valid);
  return key ? fmt::format(" (did you mean {}?)", *key) : "";
}

// Every unknown section and key of the document at once, each with the key it most likely means:
// one run names them all. One alone keeps the list of what its section takes.
void check_known_keys(const YAML::Node& root, const std::string& source) {
  std::vector<std::string> unknown;
  std::string single_at, single_message;
  for (const auto& entry : root) {
    const std::string section = entry.first.as<std::string>();
    if (section == "framework" || section == "framework_options")
      continue;
    auto sec = schema().find(section);
    if (sec == schema().end()) {
      unknown.push_back(echo(section) + did_you_mean(section));
      single_at = source + ": " + echo(section);
      single_message = fmt::format("unknown section{} (expected one of: framework, framework_options, {})",
                                   did_you_mean(section), valid_names(schema()));
      continue;
    }
    if (!entry.second.IsMap())
      continue; // the reader says what is wrong with it
    for (const auto& item : entry.second) {
      const std::string name = item.first.as<std::string>();
      if (sec->second.contains(name))
        continue;
      const std::string dotted = section + "." + name;
      unknown.push_back(echo(dotted) + did_you_mean(dotted));
      single_at = source + ": " + echo(dotted);
      single_message = fmt::format("unknown key{} (valid keys of {}: {})", did_you_mean(dotted), section,
                                   valid_names(sec->second));
    }
  }
  if (unknown.size() == 1)
    throw InputError(single_at, single_message);
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown)
      list += (list.empty() ? "" : ", ") + u;
    throw InputError(source, fmt::format("{} unknown keys: {}", unknown.size(), list));
  }
}

// Megatron-LM's argument names written as top-level keys (num_layers: 24, bf16: true) become the
// workload keys they stand for, as Megatron reads them (megatron_args.hpp). What simgpt cannot
// model of them is refused rather than dropped. Returns where a message about each workload key
// they set names it: the Megatron key as the file writes it ("w.yaml: tensor_model_parallel_size"
// for parallelism.tp).
std::map<std::string, std::string> translate_megatron_keys(YAML::Node& root, const std::string& source) {
  MegatronArguments args;
  ArgumentSpellings spellings;
  std::vector<std::string> names;
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (schema().contains(key) || key == "framework" || key == "framework_options" ||
        !is_modelled_megatron_argument(megatron_name(key)))
      continue;
    if (!entry.second.IsScalar())
      throw InputError(source + ": " + echo(key), "expected a single value (a Megatron-LM argument's)");
    args.emplace_back(megatron_name(key), entry.second.Scalar());
    spellings.emplace(megatron_name(key), source + ": " + echo(key));
    names.push_back(key);
  }
  if (args.empty())
    return {};
  for (const std::string& key : names)
    root.remove(key);
  const AppliedArguments applied = apply_megatron_arguments(args, root, source, spellings);
  if (!applied.not_modelled.empty())
    throw InputError(source, applied.not_modelled.front());
  std::map<std::string, std::string> origin;
  for (const auto& [key, argument] : applied.setters)
    if (spellings.contains(argument))
      origin.emplace(source + ": " + key, spellings.at(argument));
  return origin;
}

// Reads the workload with `read`; a message about a key a Megatron argument set names the
// argument as the file writes it instead (`origin`: where -> where), a key the user never wrote.
template <class Read>
Workload naming_megatron_keys(const std::map<std::string, std::string>& origin, Read read) {
  try {
    return read();
  } catch (const LimitError& e) {
    const auto written = origin.find(e.where());
    if (written == origin.end())
      throw;
    throw LimitError(written->second, e.message());
  } catch (const InputError& e) {
    const auto written = origin.find(e.where());
    if (written == origin.end())
      throw;
    throw InputError(written->second, e.message());
  }
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

// The workload of a tree whose Megatron keys are translated and overrides applied, checked.
Workload read_workload_tree(const YAML::Node& root, const std::string& source, const Overrides& overrides);

} // namespace

Overrides parse_overrides(const std::vector<std::string>& texts) {
  Overrides overrides;
  for (const std::string& text : texts)
    overrides.push_back(parse_override(text));
  return overrides;
}

std::pair<std::string, std::string> parse_override(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError("--set " + echo(text), "expected KEY=VALUE, e.g. --set parallelism.pp=4 or --set network.delay=10ms");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Workload parse_workload(const std::string& yaml_text, const std::string& source, const Overrides& overrides) {
  if (yaml_text.size() > kMaxYamlFileBytes)
    throw LimitError(source, fmt::format("is {} bytes; a workload may be at most {} ({} bytes)", yaml_text.size(),
                                         size_limit_text(kMaxYamlFileBytes), kMaxYamlFileBytes));
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
  std::map<std::string, std::string> origin = translate_megatron_keys(root, source);
  for (const auto& [key, value] : overrides) {
    apply_override(root, key, value, source);
    origin.erase(source + ": " + key); // --set's value, not the Megatron key's
  }
  return naming_megatron_keys(origin, [&] { return read_workload_tree(root, source, overrides); });
}

namespace {

Workload read_workload_tree(const YAML::Node& root, const std::string& source, const Overrides& overrides) {
  check_known_keys(root, source);
  Workload w;
  w.source = source;
  w.overrides = overrides;
  w.parallelism.dp_from_platform = true; // until parallelism.dp is read
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
      check_option_count(entry.second.size(), at);
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
  if (w.model.latent_attention) // Megatron-LM's defaults (megatron/training/arguments.py, _add_mla_args)
    for (auto [dim, megatron_default] : {std::pair{&w.model.kv_lora_rank, 32}, std::pair{&w.model.qk_head_dim, 128},
                                         std::pair{&w.model.qk_pos_emb_head_dim, 64}, std::pair{&w.model.v_head_dim, 128}})
      if (*dim == 0)
        *dim = megatron_default;
  if (w.model.hybrid()) {
    // Megatron-Core's defaults (megatron/core/transformer/transformer_config.py: mamba_head_dim 64,
    // mamba_state_dim 128, mamba_num_groups 8; MambaMixer's d_inner = expand 2 x hidden when
    // mamba_num_heads is not given, megatron/core/ssm/mamba_mixer.py).
    for (auto [dim, megatron_default] : {std::pair{&w.model.mamba_head_dim, int64_t{64}},
                                         std::pair{&w.model.mamba_state, int64_t{128}},
                                         std::pair{&w.model.mamba_groups, int64_t{8}}})
      if (*dim == 0)
        *dim = megatron_default;
    if (w.model.mamba_heads == 0)
      w.model.mamba_heads = std::max<int64_t>(1, 2 * w.model.hidden / w.model.mamba_head_dim);
    if (w.model.layers == 0)
      w.model.layers = static_cast<int64_t>(w.model.hybrid_pattern.size());
  }
  check_workload(w);
  return w;
}

} // namespace

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
    throw InputError(where, fmt::format("unknown key '{}'{} (valid keys of {}: {})", echo(name), did_you_mean(key),
                                        section, valid_names(sec->second)));
}

Workload load_workload(const std::string& path, const Overrides& overrides) {
  return parse_workload(read_input_file(path, "workload", kMaxYamlFileBytes), path, overrides);
}

} // namespace simgpt
