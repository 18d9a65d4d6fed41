#include "workload/megatron_args.hpp"

#include "simgpt/core/error.hpp"
#include "core/checked_int.hpp"
#include "workload/pipeline_layout.hpp"
#include "workload/workload_limits.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>

namespace simgpt {
namespace {

// An argument whose value is a workload key's value as written (num_layers 24 -> model.layers: 24),
// or a flag that sets a key to one value (--bf16 -> training.precision: bf16).
struct Direct {
  std::string_view name;
  std::string_view section, key;
  std::string_view flag_value; // empty: the argument takes a value, copied
};

constexpr std::array<Direct, 48> kDirect{{
    {"num_layers", "model", "layers", ""},
    {"hidden_size", "model", "hidden", ""},
    {"num_attention_heads", "model", "heads", ""},
    {"seq_length", "model", "seq_len", ""},
    {"ffn_hidden_size", "model", "ffn_hidden", ""},
    {"micro_batch_size", "training", "micro_batch", ""},
    {"global_batch_size", "training", "global_batch", ""},
    {"tensor_model_parallel_size", "parallelism", "tp", ""},
    {"pipeline_model_parallel_size", "parallelism", "pp", ""},
    {"zero_stage", "parallelism", "zero", ""}, // Megatron-DeepSpeed
    {"swiglu", "model", "mlp", "swiglu"},
    {"quick_geglu", "model", "mlp", "quick_geglu"},
    {"disable_bias_linear", "model", "bias", "false"},
    {"untie_embeddings_and_output_weights", "model", "tie_embeddings", "false"},
    {"use_flash_attn", "model", "attention", "flash"},
    {"fp16", "training", "precision", "fp16"},
    {"bf16", "training", "precision", "bf16"},
    {"sequence_parallel", "parallelism", "sequence_parallel", "true"},
    // The distributed optimizer shards the optimizer state and fp32 master weights over the
    // data-parallel ranks (Megatron-LM docs/distrib_optimizer.md): ZeRO's stage 1.
    {"use_distributed_optimizer", "parallelism", "zero", "1"},
    {"overlap_param_gather", "parallelism", "overlap_param_gather", "true"},
    {"align_param_gather", "parallelism", "align_param_gather", "true"},
    {"tp_comm_overlap", "parallelism", "tp_comm_overlap", "true"},
    // megatron/training/arguments.py: --recompute-modules, nargs='*' (the words after it).
    {"recompute_modules", "training", "recompute_modules", ""},
    // Gradient buckets reduced as the backward makes them (megatron/core/distributed/
    // distributed_data_parallel.py, overlap_grad_reduce): the profile's overlapped buckets.
    {"overlap_grad_reduce", "framework_options", "collectives.dp_overlap", "true"},
    {"recompute_activations", "training", "recompute", "selective"},
    {"checkpoint_activations", "training", "recompute", "full"}, // Megatron-LM before 2.5, Megatron-DeepSpeed
    {"deepspeed", "", "framework", "deepspeed"},
    // Mixture of experts (megatron/training/arguments.py, _add_moe_args).
    {"num_experts", "model", "experts", ""},
    {"moe_router_topk", "model", "top_k", ""},
    {"moe_ffn_hidden_size", "model", "moe_ffn_hidden", ""},
    {"moe_shared_expert_intermediate_size", "model", "shared_expert_ffn_hidden", ""},
    {"moe_expert_capacity_factor", "model", "capacity_factor", ""},
    {"expert_model_parallel_size", "parallelism", "ep", ""},
    // megatron/training/arguments.py: --mtp-num-layers, multi-token prediction's modules.
    {"mtp_num_layers", "model", "mtp_layers", ""},
    // --mtp-use-repeated-layer: the modules share one layer (mtp_use_repeated_layer).
    {"mtp_use_repeated_layer", "model", "mtp_shared_layer", "true"},
    {"context_parallel_size", "parallelism", "cp", ""},
    {"cp_comm_type", "parallelism", "cp_comm_type", ""},
    // fp8 training through TransformerEngine (megatron/core/transformer/transformer_config.py:
    // fp8, given as --fp8-format, e4m3 or hybrid; fp8_recipe, default delayed).
    {"fp8_format", "training", "fp8", ""},
    {"fp8_recipe", "training", "fp8_recipe", ""},
    // megatron/training/arguments.py: --fp8-param-gather, fp8 parameters gathered at their byte.
    {"fp8_param_gather", "training", "fp8_param_gather", "true"},
    // Hybrid models (megatron/training/arguments.py, _add_network_size_args and the Mamba
    // arguments): the layer pattern (--hybrid-layer-pattern, formerly --hybrid-override-pattern),
    // the Mamba-2 mixer's widths, a latent MoE's width, and NemotronH's squared-ReLU MLP.
    {"hybrid_override_pattern", "model", "hybrid_pattern", ""},
    {"hybrid_layer_pattern", "model", "hybrid_pattern", ""},
    {"mamba_num_heads", "model", "mamba_heads", ""},
    {"mamba_head_dim", "model", "mamba_head_dim", ""},
    {"mamba_state_dim", "model", "mamba_state", ""},
    {"mamba_num_groups", "model", "mamba_groups", ""},
    {"moe_latent_size", "model", "moe_latent", ""},
    {"squared_relu", "model", "mlp", "squared_relu"},
}};

// Multi-head latent attention's dimensions (megatron/training/arguments.py, _add_mla_args), read
// only with --multi-latent-attention, each the workload key of its own name.
constexpr std::array<std::string_view, 5> kLatentDims{"q_lora_rank", "kv_lora_rank", "qk_head_dim",
                                                      "qk_pos_emb_head_dim", "v_head_dim"};

// Arguments whose value is translated or that other arguments read.
constexpr std::array<std::string_view, 51> kComputed{
    "vocab_file",              "moe_token_dispatcher_type",
    "normalization",           "position_embedding_type",
    "recompute_granularity",   "recompute_method",
    "recompute_num_layers",    "optimizer",
    "sgd_momentum",            "group_query_attention",
    "num_query_groups",        "vocab_size",
    "make_vocab_size_divisible_by", "tokenizer_type",
    "num_layers_per_virtual_pipeline_stage", "num_virtual_stages_per_pipeline_rank",
    "multi_latent_attention",  kLatentDims[0], kLatentDims[1], kLatentDims[2], kLatentDims[3], kLatentDims[4],
    "qk_layernorm",            "window_size",
    "window_attn_skip_freq",   "fp4_format",
    "fp4_recipe",              "moe_flex_dispatcher_backend",
    "overlap_moe_expert_parallel_comm", "delay_wgrad_compute",
    "moe_layer_freq",          "moe_grouped_gemm",
    "moe_permute_fusion",      "moe_router_dtype",
    "expert_tensor_parallel_size", "kv_channels",
    "pipeline_model_parallel_layout", "use_megatron_fsdp",
    "data_parallel_sharding_strategy", "is_hybrid_model",
    "enable_cuda_graph",       "external_cuda_graph",
    "cuda_graph_impl",         "cuda_graph_scope",
    "cuda_graph_modules",      "cpu_offloading",
    "cpu_offloading_num_layers", "no_cpu_offloading_activations",
    "cpu_offloading_weights",  "cross_entropy_loss_fusion",
    "cross_entropy_fusion_impl",
};

// Flags among kComputed.
// --is-hybrid-model: the pattern says which layers are hybrid; the flag itself adds nothing.
constexpr std::array<std::string_view, 15> kComputedFlags{"group_query_attention", "multi_latent_attention",
                                                          "qk_layernorm", "overlap_moe_expert_parallel_comm",
                                                          "delay_wgrad_compute", "moe_grouped_gemm",
                                                          "moe_permute_fusion", "use_megatron_fsdp",
                                                          "is_hybrid_model", "enable_cuda_graph",
                                                          "external_cuda_graph", "cpu_offloading",
                                                          "no_cpu_offloading_activations", "cpu_offloading_weights",
                                                          "cross_entropy_loss_fusion"};

// Megatron's GPT-2 BPE vocabulary (gpt2-vocab.json): 50,257 tokens.
constexpr int64_t kGpt2Vocab = 50257;

const Direct* direct(std::string_view name) {
  const auto it = std::find_if(kDirect.begin(), kDirect.end(), [&](const Direct& d) { return d.name == name; });
  return it == kDirect.end() ? nullptr : &*it;
}

// The tree being written, refusing a key set twice to different values.
class Tree {
public:
  Tree(YAML::Node& root, std::string source, const ArgumentSpellings& spellings)
      : root_(root), source_(std::move(source)), spellings_(spellings) {}

  void set(std::string_view section, std::string_view key, const std::string& value, const std::string& argument) {
    const std::string dotted = section.empty() ? std::string(key) : fmt::format("{}.{}", section, key);
    const YAML::Node existing = section.empty() ? root_[std::string(key)] : lookup(section, key);
    if (existing.IsDefined() && !existing.IsNull() && !existing.IsScalar())
      throw InputError(where(argument), fmt::format("sets {}, which the file gives as a list or mapping", dotted));
    if (existing.IsDefined() && existing.IsScalar() && existing.Scalar() != value) {
      const auto other = setters_.find(dotted);
      if (other != setters_.end() && other->second != argument)
        throw InputError(where(argument), fmt::format("sets {} to {} but {} sets it to {}: give one of them", dotted,
                                                      echo(value), short_name(other->second), echo(existing.Scalar())));
      throw InputError(where(argument), fmt::format("sets {} to {} but {} is {} already: give it once", dotted,
                                                    echo(value), dotted, echo(existing.Scalar())));
    }
    setters_.emplace(dotted, argument);
    if (section.empty()) {
      root_[std::string(key)] = value;
      return;
    }
    require_mapping(section, argument);
    root_[std::string(section)][std::string(key)] = value;
  }

  // Sets a key another argument set, where Megatron lets this argument decide it.
  void replace(std::string_view section, std::string_view key, const std::string& value, const std::string& argument) {
    setters_.erase(fmt::format("{}.{}", section, key));
    root_[std::string(section)].remove(std::string(key));
    set(section, key, value, argument);
  }

  const std::map<std::string, std::string>& setters() const { return setters_; }

  // A key's value as the tree holds it, when it is an integer.
  std::optional<int64_t> integer(std::string_view section, std::string_view key) const {
    const YAML::Node node = lookup(section, key);
    if (!node.IsDefined() || !node.IsScalar())
      return std::nullopt;
    return parse_integer(node.Scalar());
  }

  // The argument as a message names it after another's "where": without the source they share.
  std::string short_name(const std::string& argument) const {
    const std::string at = where(argument);
    return at.starts_with(source_ + ": ") ? at.substr(source_.size() + 2) : at;
  }

  std::string where(const std::string& argument) const {
    const auto spelled = spellings_.find(argument);
    return spelled != spellings_.end() ? spelled->second : fmt::format("{}: {}", source_, argument);
  }

  static std::optional<int64_t> parse_integer(const std::string& text) {
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
      return std::nullopt;
    return value;
  }

private:
  YAML::Node lookup(std::string_view section, std::string_view key) const {
    const YAML::Node s = static_cast<const YAML::Node&>(root_)[std::string(section)];
    if (!s.IsDefined() || !s.IsMap())
      return YAML::Node(YAML::NodeType::Undefined);
    return s[std::string(key)];
  }

  void require_mapping(std::string_view section, const std::string& argument) const {
    const YAML::Node s = static_cast<const YAML::Node&>(root_)[std::string(section)];
    if (s.IsDefined() && !s.IsNull() && !s.IsMap())
      throw InputError(where(argument), fmt::format("sets a key of {}, which is not a mapping", section));
  }

  YAML::Node& root_;
  std::string source_;
  const ArgumentSpellings& spellings_;
  std::map<std::string, std::string> setters_; // workload key -> the argument that set it first
};

int64_t positive(const std::string& value, const std::string& where) {
  const std::optional<int64_t> n = Tree::parse_integer(value);
  if (!n || *n < 1)
    throw InputError(where, fmt::format("'{}' is not a positive integer", echo(value)));
  return *n;
}

// One of `choices` (Megatron's spelling -> simgpt's).
std::string choose(const std::string& value, const std::string& where,
                   std::initializer_list<std::pair<std::string_view, std::string_view>> choices) {
  std::string valid;
  for (const auto& [megatron, ours] : choices) {
    if (value == megatron)
      return std::string(ours);
    valid += (valid.empty() ? "" : ", ") + std::string(megatron);
  }
  throw InputError(where, fmt::format("'{}' is not one simgpt models (expected one of: {})", echo(value), valid));
}

bool given(const std::map<std::string, std::string>& args, const std::string& name) {
  const auto it = args.find(name);
  return it != args.end() && it->second != "false";
}

// CUDA graphs (megatron/core/transformer/transformer_config.py): --cuda-graph-impl none, local,
// transformer_engine or (core 0.18) full_iteration, formerly --enable-cuda-graph (local) and
// --external-cuda-graph (transformer_engine); --cuda-graph-scope (--cuda-graph-modules from core
// 0.18) the parts captured, none or `full` for whole layers, `full_iteration` for the whole
// forward-backward: the profile's compute.cuda_graphs.
void set_cuda_graphs(const std::map<std::string, std::string>& args,
                     const std::function<std::string(const std::string&)>& at, Tree& tree) {
  // The argument that chooses the implementation, and what it chooses.
  const std::string impl_name = args.contains("cuda_graph_impl")     ? "cuda_graph_impl"
                                : given(args, "enable_cuda_graph")   ? "enable_cuda_graph"
                                : given(args, "external_cuda_graph") ? "external_cuda_graph"
                                                                     : "";
  const std::string impl =
      impl_name == "cuda_graph_impl"     ? choose(args.at(impl_name), at(impl_name),
                                                  {{"none", "none"}, {"local", "local"},
                                                   {"transformer_engine", "transformer_engine"},
                                                   {"full_iteration", "full_iteration"}})
      : impl_name == "enable_cuda_graph" ? "local"
      : impl_name.empty()                ? "none"
                                         : "transformer_engine";
  if (impl == "none")
    return;
  const char* scope_name = args.contains("cuda_graph_modules") ? "cuda_graph_modules" : "cuda_graph_scope";
  std::vector<std::string> scopes;
  if (args.contains(scope_name)) {
    std::istringstream words(args.at(scope_name));
    for (std::string w; words >> w;)
      scopes.push_back(choose(w, at(scope_name),
                              {{"full", "full"}, {"full_iteration", "full_iteration"}, {"attn", "attn"},
                               {"mlp", "mlp"}, {"moe", "moe"}, {"moe_router", "moe_router"},
                               {"moe_preprocess", "moe_preprocess"}, {"mamba", "mamba"}}));
  }
  const bool whole_layers = scopes.empty() || scopes == std::vector<std::string>{"full"};
  std::string value;
  if (impl == "full_iteration" || std::find(scopes.begin(), scopes.end(), "full_iteration") != scopes.end())
    value = "iteration";
  else if (whole_layers)
    value = "layers";
  else
    value = fmt::format("[{}]", fmt::join(scopes, ", "));
  tree.set("framework_options", "compute.cuda_graphs", value, args.contains(scope_name) ? std::string(scope_name) : impl_name);
}

} // namespace

std::string megatron_name(const std::string& written) {
  std::string name = written;
  name.erase(0, name.find_first_not_of('-'));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

bool is_modelled_megatron_argument(const std::string& name) {
  return direct(name) != nullptr || std::find(kComputed.begin(), kComputed.end(), name) != kComputed.end();
}

bool is_megatron_flag(const std::string& name) {
  if (const Direct* d = direct(name))
    return !d->flag_value.empty();
  return std::find(kComputedFlags.begin(), kComputedFlags.end(), name) != kComputedFlags.end();
}

AppliedArguments apply_megatron_arguments(const MegatronArguments& list, YAML::Node& root, const std::string& source,
                                          const ArgumentSpellings& spellings) {
  Tree tree(root, source, spellings);
  std::map<std::string, std::string> args;
  for (const auto& [name, value] : list) {
    if (!is_modelled_megatron_argument(name))
      throw InputError(tree.where(name), "is not a Megatron-LM argument simgpt reads");
    if (is_megatron_flag(name) && value != "true" && value != "false")
      throw InputError(tree.where(name), fmt::format("'{}' is not valid for a flag (expected true or false)", echo(value)));
    if (const auto [it, inserted] = args.emplace(name, value); !inserted && it->second != value)
      throw InputError(tree.where(name), fmt::format("is given twice ({} and {})", echo(it->second), echo(value)));
  }
  const auto at = [&](const std::string& name) { return tree.where(name); };
  std::vector<std::string> notes;

  for (const auto& [name, value] : args)
    if (const Direct* d = direct(name)) {
      if (d->flag_value.empty())
        tree.set(d->section, d->key, value, name);
      else if (value != "false")
        tree.set(d->section, d->key, std::string(d->flag_value), name);
    }
  if (args.contains("normalization"))
    tree.set("model", "norm",
             choose(args["normalization"], at("normalization"), {{"LayerNorm", "layernorm"}, {"RMSNorm", "rmsnorm"}}),
             "normalization");
  if (args.contains("position_embedding_type"))
    tree.set("model", "position",
             choose(args["position_embedding_type"], at("position_embedding_type"),
                    {{"learned_absolute", "learned"}, {"rope", "rope"}, {"yarn", "yarn"}, {"none", "none"}}),
             "position_embedding_type");
  // megatron/training/arguments.py: --window-size (left, right), query i attending to keys
  // i - left .. i + right (TransformerEngine's window_size); --window-attn-skip-freq N, every Nth
  // layer full (megatron/core/transformer/utils.py, is_layer_window_attention).
  if (args.contains("window_size")) {
    // tuple_type: "127,0" or "(127,0)", the parentheses stripped and split at commas.
    std::string value = args["window_size"];
    const size_t open = value.find_first_not_of("("), close = value.find_last_not_of(")");
    const std::string inner = open == std::string::npos ? "" : value.substr(open, close - open + 1);
    const size_t comma = inner.find(',');
    const auto integer = [](std::string part) { // int() allows spaces around the digits
      part.erase(0, part.find_first_not_of(' '));
      part.erase(part.find_last_not_of(' ') + 1);
      return Tree::parse_integer(part);
    };
    const std::optional<int64_t> left = comma == std::string::npos ? std::nullopt : integer(inner.substr(0, comma));
    const std::optional<int64_t> right = comma == std::string::npos ? std::nullopt : integer(inner.substr(comma + 1));
    if (!left || !right || *left < 0 || *right != 0 || *left >= std::numeric_limits<int32_t>::max())
      throw InputError(at("window_size"), fmt::format("'{}' is not a causal window simgpt models (expected LEFT,0 "
                                                      "with LEFT >= 0, e.g. (127,0))",
                                                      echo(value)));
    tree.set("model", "window", std::to_string(*left + 1), "window_size");
  }
  // megatron/core/transformer/transformer_config.py: fp4 ('e2m1', --fp4-format) with fp4_recipe
  // (default nvfp4): TransformerEngine's NVFP4BlockScaling, simgpt's fp8_recipe nvfp4 (training.fp8
  // turns the low-precision GEMMs on; its format is not used).
  if (args.contains("fp4_format")) {
    choose(args["fp4_format"], at("fp4_format"), {{"e2m1", "e2m1"}});
    if (args.contains("fp4_recipe"))
      choose(args["fp4_recipe"], at("fp4_recipe"), {{"nvfp4", "nvfp4"}});
    if (args.contains("fp8_format"))
      throw InputError(at("fp4_format"), "with --fp8-format: give one of them (Megatron runs fp4 or fp8)");
    tree.set("training", "fp8", "e4m3", "fp4_format");
    tree.set("training", "fp8_recipe", "nvfp4", "fp4_recipe");
  } else if (args.contains("fp4_recipe")) {
    notes.push_back("fp4_recipe: Megatron uses it only with --fp4-format");
  }
  // --moe-layer-freq (megatron/training/arguments.py, moe_freq_type): an integer N (every N-th layer
  // MoE) or a Python list pattern; simgpt's MoE models run dense layers first, then MoE ones
  // (model.dense_layers), so "1" and "([0]*K+[1]*M)" with K + M layers map.
  if (args.contains("moe_layer_freq")) {
    std::string f = args["moe_layer_freq"];
    f.erase(std::remove(f.begin(), f.end(), ' '), f.end());
    if (f.size() > 1 && f.front() == '(' && f.back() == ')')
      f = f.substr(1, f.size() - 2);
    // "[0]*K+[1]*M", whole: K dense layers, then M MoE ones.
    int64_t dense = f == "1" ? 0 : -1, moe = -1;
    constexpr std::string_view zeros = "[0]*", ones = "+[1]*";
    if (const size_t plus = f.find(ones); f.starts_with(zeros) && plus != std::string::npos) {
      const std::optional<int64_t> k = Tree::parse_integer(f.substr(zeros.size(), plus - zeros.size()));
      const std::optional<int64_t> n = Tree::parse_integer(f.substr(plus + ones.size()));
      if (k && n && *k >= 0 && *n >= 0)
        dense = *k, moe = *n;
    }
    const int64_t layers = args.contains("num_layers") ? positive(args["num_layers"], at("num_layers")) : -1;
    if (dense >= 0 && (moe < 0 || dense + moe == layers))
      tree.set("model", "dense_layers", std::to_string(dense), "moe_layer_freq");
    else
      notes.push_back(fmt::format("moe_layer_freq {}: simgpt's MoE models run their dense layers first, then MoE "
                                  "ones (1, or ([0]*K+[1]*M) over all layers)",
                                  echo(args["moe_layer_freq"])));
  }
  // --moe-grouped-gemm and --moe-permute-fusion are how simgpt prices the experts (one grouped GEMM
  // per projection, TEGroupedMLP) and the permutation (one pass each way, TE's fused permute);
  // --moe-router-dtype fp32: the router's softmax and top-k are on fp32 scores in simgpt already.
  if (args.contains("moe_router_dtype") && args["moe_router_dtype"] != "fp32" && args["moe_router_dtype"] != "fp64")
    notes.push_back(fmt::format("moe_router_dtype {}: simgpt's router works on fp32 scores",
                                echo(args["moe_router_dtype"])));
  // Megatron-FSDP (--use-megatron-fsdp; megatron/core/distributed/fsdp): its sharding strategy
  // (--data-parallel-sharding-strategy, default no_shard) says what it shards. optim_grads_params
  // shards the weights too, gathering each module's before use and reduce-scattering its gradients
  // after every backward (megatron_fsdp.py: grad_reduce_every_bprop): ZeRO-3. optim shards the
  // optimizer state: ZeRO-1, as the distributed optimizer.
  if (args.contains("use_megatron_fsdp")) {
    const std::string strategy =
        args.contains("data_parallel_sharding_strategy") ? args["data_parallel_sharding_strategy"] : "no_shard";
    // Megatron-FSDP v1 runs with the distributed optimizer, turning it on where it is not
    // (arguments.py: "Megatron-FSDP v1 is only compatible with --use-distributed-optimizer"): the
    // sharding strategy decides the stage over --use-distributed-optimizer's 1.
    // Under optim_grads_params --overlap-param-gather is Megatron-FSDP's prefetch of the next
    // module's weights (megatron_fsdp.py), which ZeRO-3's gathers run already (the profile's
    // zero3_prefetch_layers): not the distributed optimizer's overlap the key names.
    if (strategy == "optim_grads_params" && args.contains("overlap_param_gather")) {
      tree.replace("parallelism", "overlap_param_gather", "false", "use_megatron_fsdp");
      if (args.contains("align_param_gather"))
        tree.replace("parallelism", "align_param_gather", "false", "use_megatron_fsdp");
    }
    if (strategy == "optim_grads_params" || strategy == "optim")
      tree.replace("parallelism", "zero", strategy == "optim" ? "1" : "3", "use_megatron_fsdp");
    else
      notes.push_back(fmt::format("use_megatron_fsdp with data_parallel_sharding_strategy {}: simgpt models "
                                  "optim_grads_params (ZeRO-3) and optim (ZeRO-1)",
                                  echo(strategy)));
  } else if (args.contains("data_parallel_sharding_strategy")) {
    notes.push_back("data_parallel_sharding_strategy: Megatron uses it only with --use-megatron-fsdp");
  }
  // Activation offloading (training.cpu_offload_layers): megatron/training/arguments.py turns
  // cpu_offloading on for --cpu-offloading-num-layers above 0; TransformerConfig offloads
  // activations (cpu_offloading_activations, default true: --no-cpu-offloading-activations, as
  // argument_utils.py spells a true default's store_false) and not weights (cpu_offloading_weights).
  if (args.contains("cpu_offloading_num_layers") && args["cpu_offloading_num_layers"] != "0") {
    const bool activations =
        !args.contains("no_cpu_offloading_activations") || args["no_cpu_offloading_activations"] == "false";
    if (activations)
      tree.set("training", "cpu_offload_layers", args["cpu_offloading_num_layers"], "cpu_offloading_num_layers");
    else
      notes.push_back("no_cpu_offloading_activations: nothing offloaded that simgpt models");
  }
  if (args.contains("cpu_offloading_weights") && args["cpu_offloading_weights"] == "true")
    notes.push_back("cpu_offloading_weights: simgpt offloads activations only");
  // Expert tensor parallelism (parallelism.etp): tp, or 1; other sizes are not modelled.
  if (args.contains("expert_tensor_parallel_size")) {
    const std::string tp = args.contains("tensor_model_parallel_size") ? args["tensor_model_parallel_size"] : "1";
    const std::string& etp = args["expert_tensor_parallel_size"];
    if (etp == "1" || etp == tp)
      tree.set("parallelism", "etp", etp, "expert_tensor_parallel_size");
    else
      notes.push_back(fmt::format("expert_tensor_parallel_size {}: simgpt models expert tensor parallelism of 1 or "
                                  "tp ({}) only",
                                  echo(etp), echo(tp)));
  }
  if (args.contains("window_attn_skip_freq")) {
    if (!args.contains("window_size"))
      notes.push_back("window_attn_skip_freq: Megatron uses it only with --window-size");
    else
      tree.set("model", "full_attention_every",
               std::to_string(positive(args["window_attn_skip_freq"], at("window_attn_skip_freq"))),
               "window_attn_skip_freq");
  }
  if (args.contains("recompute_granularity"))
    tree.set("training", "recompute",
             choose(args["recompute_granularity"], at("recompute_granularity"),
                    {{"full", "full"}, {"selective", "selective"}}),
             "recompute_granularity");
  // Full recompute checkpoints every layer's input (--recompute-method uniform
  // --recompute-num-layers 1); other groupings recompute the same work from fewer checkpoints.
  if (args.contains("recompute_method") &&
      (args["recompute_method"] != "uniform" || (args.contains("recompute_num_layers") && args["recompute_num_layers"] != "1")))
    notes.push_back("recompute_method/recompute_num_layers: simgpt checkpoints every layer (uniform, 1 layer)");
  // megatron/training/training.py get_megatron_optimizer: --optimizer sgd keeps a momentum buffer
  // unless --sgd-momentum is 0 (its default is 0.9).
  // megatron/core/transformer/moe/token_dispatcher.py: alltoall, or flex with its backend
  // (--moe-flex-dispatcher-backend, transformer_config.py: deepep by default). The allgather
  // dispatcher and the ncclep backend move tokens otherwise: simgpt runs alltoall for them.
  if (args.contains("moe_token_dispatcher_type")) {
    const std::string& type = args["moe_token_dispatcher_type"];
    const std::string backend = args.contains("moe_flex_dispatcher_backend") ? args["moe_flex_dispatcher_backend"] : "deepep";
    if (type == "flex" && (backend == "deepep" || backend == "hybridep"))
      tree.set("parallelism", "moe_dispatcher", backend, "moe_flex_dispatcher_backend");
    else if (type == "flex")
      notes.push_back(fmt::format("moe_flex_dispatcher_backend {}: simgpt runs the alltoall dispatcher", echo(backend)));
    else if (type != "alltoall")
      notes.push_back(fmt::format("moe_token_dispatcher_type {}: simgpt runs the alltoall dispatcher", echo(type)));
  }
  // --overlap-moe-expert-parallel-comm (transformer_config.py): the combined 1F1B schedule, taken
  // with --delay-wgrad-compute, which Megatron-Bridge's moe_a2a_overlap always sets with it.
  if (args.contains("overlap_moe_expert_parallel_comm")) {
    tree.set("parallelism", "moe_a2a_overlap", "true", "overlap_moe_expert_parallel_comm");
    if (!args.contains("delay_wgrad_compute"))
      notes.push_back("overlap_moe_expert_parallel_comm without delay_wgrad_compute: simgpt runs the experts' weight "
                      "gradients beside the dispatch's backward all-to-all as if delayed");
  }
  set_cuda_graphs(args, at, tree);
  // megatron/core/models/common/language_module/language_module.py, compute_language_model_loss:
  // --cross-entropy-loss-fusion with --cross-entropy-fusion-impl te runs TransformerEngine's fused
  // cross-entropy (the profile's compute.te_cross_entropy); native (the default) and the unfused
  // loss are the profile's own.
  if (args.contains("cross_entropy_fusion_impl")) {
    const std::string impl =
        choose(args["cross_entropy_fusion_impl"], at("cross_entropy_fusion_impl"), {{"native", "native"}, {"te", "te"}});
    if (impl == "te" && given(args, "cross_entropy_loss_fusion"))
      tree.set("framework_options", "compute.te_cross_entropy", "true", "cross_entropy_fusion_impl");
  }
  if (args.contains("optimizer")) {
    std::string optimizer = choose(args["optimizer"], at("optimizer"), {{"adam", "adam"}, {"sgd", "sgd_momentum"}});
    if (optimizer == "sgd_momentum" && args.contains("sgd_momentum") &&
        (args["sgd_momentum"] == "0" || args["sgd_momentum"] == "0.0"))
      optimizer = "sgd";
    tree.set("training", "optimizer", optimizer, "optimizer");
  }
  // megatron/core/transformer/transformer_config.py: num_query_groups applies only with
  // --group-query-attention.
  if (given(args, "group_query_attention")) {
    if (!args.contains("num_query_groups"))
      throw InputError(at("group_query_attention"), "needs --num-query-groups");
    tree.set("model", "kv_heads", args["num_query_groups"], "num_query_groups");
  } else if (args.contains("num_query_groups")) {
    notes.push_back("num_query_groups: Megatron uses it only with --group-query-attention");
  }
  // megatron/training/argument_utils.py: --multi-latent-attention builds an MLATransformerConfig,
  // which takes the MLA dimensions; without it they are unused.
  if (given(args, "multi_latent_attention"))
    tree.set("model", "latent_attention", "true", "multi_latent_attention");
  // --qk-layernorm: a norm over each head's queries and keys; under latent attention the norms of
  // its query and key-value latents (megatron/core/transformer/multi_latent_attention.py), which
  // simgpt always counts there.
  if (given(args, "qk_layernorm") && !given(args, "multi_latent_attention"))
    tree.set("model", "qk_layernorm", "true", "qk_layernorm");
  // megatron/training/arguments.py: --kv-channels, each head's width (default hidden / heads).
  // MLATransformerConfig takes its heads' widths from qk_head_dim, qk_pos_emb_head_dim and
  // v_head_dim instead (megatron/core/transformer/multi_latent_attention.py reads no kv_channels),
  // so under latent attention it changes nothing, in Megatron as here.
  if (args.contains("kv_channels") && !given(args, "multi_latent_attention"))
    tree.set("model", "head_dim", args["kv_channels"], "kv_channels");
  for (const std::string_view dim : kLatentDims) {
    const std::string name(dim);
    if (!args.contains(name))
      continue;
    if (given(args, "multi_latent_attention"))
      tree.set("model", name, args[name], name);
    else
      notes.push_back(name + ": Megatron uses it only with --multi-latent-attention");
  }

  // The vocabulary: --vocab-size, or the GPT-2 tokenizer's, padded as Megatron pads it
  // (megatron/training/tokenizer/tokenizer.py, _vocab_size_with_padding): up to a multiple of
  // make_vocab_size_divisible_by (128) x tensor-parallel size.
  std::optional<int64_t> vocab;
  if (args.contains("vocab_size"))
    vocab = positive(args["vocab_size"], at("vocab_size"));
  else if (args.contains("tokenizer_type")) {
    if (args["tokenizer_type"] != "GPT2BPETokenizer")
      throw InputError(at("tokenizer_type"), fmt::format("'{}' has no vocabulary size simgpt knows: give --vocab-size",
                                                         echo(args["tokenizer_type"])));
    vocab = kGpt2Vocab;
  } else if (args.contains("vocab_file") && args["vocab_file"].ends_with("gpt2-vocab.json")) {
    vocab = kGpt2Vocab; // the GPT-2 BPE vocabulary's file, read by Megatron versions without --tokenizer-type
  }
  if (vocab) {
    const int64_t divisible_by = args.contains("make_vocab_size_divisible_by")
                                     ? positive(args["make_vocab_size_divisible_by"], at("make_vocab_size_divisible_by"))
                                     : 128;
    const int64_t tp = tree.integer("parallelism", "tp").value_or(1);
    // Past 64 bits the padded size is refused by model.vocab's limit all the same.
    const int64_t multiple = checked_mul(divisible_by, std::max<int64_t>(tp, 1)).value_or(std::numeric_limits<int64_t>::max());
    const int64_t padded = checked_mul((*vocab - 1) / multiple + 1, multiple).value_or(std::numeric_limits<int64_t>::max());
    tree.set("model", "vocab", std::to_string(padded),
             args.contains("vocab_size") ? "vocab_size" : args.contains("tokenizer_type") ? "tokenizer_type" : "vocab_file");
  } else if (args.contains("make_vocab_size_divisible_by")) {
    notes.push_back("make_vocab_size_divisible_by: no --vocab-size or --tokenizer-type to pad");
  }

  // The interleaved schedule: layers / (pp x layers per virtual stage) model chunks per stage
  // (megatron/training/arguments.py), or the chunks themselves.
  if (args.contains("num_layers_per_virtual_pipeline_stage")) {
    const std::string name = "num_layers_per_virtual_pipeline_stage";
    const int64_t per_stage = positive(args[name], at(name));
    const std::optional<int64_t> layers = tree.integer("model", "layers");
    const int64_t pp = tree.integer("parallelism", "pp").value_or(1);
    const std::optional<int64_t> group = checked_mul(per_stage, pp);
    if (!layers || pp < 2 || !group || *layers % *group != 0)
      throw InputError(at(name), fmt::format("needs --pipeline-model-parallel-size above 1 and --num-layers divisible "
                                             "by it times {}", per_stage));
    tree.set("parallelism", "schedule", "interleaved", name);
    tree.set("parallelism", "chunks", std::to_string(*layers / *group), name);
  }
  if (args.contains("num_virtual_stages_per_pipeline_rank")) {
    tree.set("parallelism", "schedule", "interleaved", "num_virtual_stages_per_pipeline_rank");
    tree.set("parallelism", "chunks", args["num_virtual_stages_per_pipeline_rank"], "num_virtual_stages_per_pipeline_rank");
  }
  // --pipeline-model-parallel-layout (megatron/core/transformer/pipeline_parallel_layer_layout.py):
  // the layers of each virtual stage, pp x VP of them in model order (VP from their count), the
  // embedding first and the loss last: parallelism.partition's decoder layers per stage, the
  // embedding's and the loss's stages included (simgpt's first and last), and the interleaved
  // schedule when VP > 1. simgpt runs MTP layers on the last stage, as such layouts put them.
  if (args.contains("pipeline_model_parallel_layout")) {
    const std::string name = "pipeline_model_parallel_layout";
    const std::string& layout = args[name];
    const std::vector<LayoutStage> stages = parse_pipeline_layout(layout, at(name), kMaxLayers.max);
    const int64_t pp = tree.integer("parallelism", "pp").value_or(1);
    const auto n = static_cast<int64_t>(stages.size());
    if (n % pp != 0)
      throw InputError(at(name), fmt::format("'{}' has {} stages, not a multiple of --pipeline-model-parallel-size {}",
                                             echo(layout), n, pp));
    int64_t decoder = 0, mtp = 0, embedding = 0, loss = 0;
    for (const LayoutStage& stage : stages)
      decoder += stage.decoder, mtp += stage.mtp, embedding += stage.embedding, loss += stage.loss;
    // parse_pipeline_layout has the layout begin with E and end with L: once each puts them there.
    if (embedding != 1 || loss != 1)
      throw InputError(at(name), fmt::format("'{}': the embedding (E) must come once, in the first stage, and the "
                                             "loss (L) once, in the last",
                                             echo(layout)));
    if (const std::optional<int64_t> layers = tree.integer("model", "layers"); layers && *layers != decoder)
      throw InputError(at(name), fmt::format("'{}' holds {} decoder layers (t) but --num-layers is {}", echo(layout),
                                             decoder, *layers));
    const std::optional<int64_t> mtp_layers = tree.integer("model", "mtp_layers");
    if (mtp != mtp_layers.value_or(0))
      throw InputError(at(name), fmt::format("'{}' holds {} MTP layers (m) but --mtp-num-layers is {}", echo(layout),
                                             mtp, mtp_layers.value_or(0)));
    if (mtp > 0 && stages.back().mtp != mtp)
      notes.push_back(name + ": MTP layers off the last stage; simgpt runs them on the last");
    std::string partition;
    for (const LayoutStage& stage : stages)
      partition += (partition.empty() ? "" : ",") + std::to_string(stage.decoder);
    if (n / pp > 1) {
      tree.set("parallelism", "schedule", "interleaved", name);
      tree.set("parallelism", "chunks", std::to_string(n / pp), name);
    }
    tree.set("parallelism", "partition", partition, name);
  }
  return {notes, tree.setters()};
}

MegatronCommandLine split_megatron_command_line(const std::vector<std::string>& words, const std::string& source) {
  MegatronCommandLine line;
  // The launcher's words come before the script (a .py); torchrun and the deepspeed launcher name
  // the GPUs a node and the nodes.
  size_t first = 0;
  std::optional<int64_t> nodes, per_node;
  std::string nodes_words, per_node_words;
  const auto script = std::find_if(words.begin(), words.end(), [](const std::string& w) { return w.ends_with(".py"); });
  if (script != words.end()) {
    for (auto it = words.begin(); it != script; ++it) {
      const bool joined = it->find('=') != std::string::npos; // --nnodes=2
      std::string name = megatron_name(it->substr(0, it->find('=')));
      std::string value = joined ? it->substr(it->find('=') + 1) : std::next(it) != script ? *std::next(it) : "";
      const std::string written = joined ? *it : *it + " " + value;
      if (name == "nnodes" || name == "num_nodes") {
        nodes = positive(value, source + ": " + *it);
        nodes_words = written;
      } else if (name == "nproc_per_node" || name == "num_gpus") {
        per_node = positive(value, source + ": " + *it);
        per_node_words = written;
      }
    }
    first = static_cast<size_t>(script - words.begin()) + 1;
  }
  if (per_node) {
    line.launcher_words = nodes ? nodes_words + " " + per_node_words : per_node_words;
    // A product past the most GPUs a job may have is refused as --gpus is; past 64 bits it wrapped
    // to a count of 0.
    const std::optional<int64_t> gpus = checked_mul(*per_node, nodes.value_or(1));
    if (!gpus || *gpus > kMaxGpus.max)
      throw InputError(source + ": " + line.launcher_words,
                       fmt::format("starts more GPUs than a job may have (expected 1 to {})", kMaxGpus.max));
    line.launcher_gpus = *gpus;
  }
  for (size_t i = first; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (!word.starts_with("--")) {
      line.ignored.push_back(word);
      continue;
    }
    const size_t eq = word.find('=');
    const std::string name = megatron_name(word.substr(0, eq));
    const bool has_next = i + 1 < words.size() && !words[i + 1].starts_with("--");
    if (!is_modelled_megatron_argument(name)) {
      std::string ignored = word; // with its values, however many (--rampup-batch-size 32 32 10000)
      while (eq == std::string::npos && i + 1 < words.size() && !words[i + 1].starts_with("--"))
        ignored += " " + words[++i];
      line.ignored.push_back(ignored);
      continue;
    }
    line.spellings.emplace(name, source + ": " + word.substr(0, eq));
    if (is_megatron_flag(name)) {
      line.modelled.emplace_back(name, eq == std::string::npos ? "true" : word.substr(eq + 1));
      continue;
    }
    if (eq != std::string::npos) {
      line.modelled.emplace_back(name, word.substr(eq + 1));
      continue;
    }
    if (!has_next)
      throw InputError(source + ": " + word, "is given without its value");
    if (name == "recompute_modules" || name == "cuda_graph_scope" || name == "cuda_graph_modules") {
      // a list: every word up to the next argument
      std::string modules = words[++i];
      while (i + 1 < words.size() && !words[i + 1].starts_with("--"))
        modules += " " + words[++i];
      line.modelled.emplace_back(name, modules);
      continue;
    }
    line.modelled.emplace_back(name, words[++i]);
  }
  return line;
}

} // namespace simgpt
