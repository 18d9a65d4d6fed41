#include "workload/resolved_workload.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <string>

namespace simgpt {
namespace {

std::string partition_text(const ParallelismSpec& p) {
  if (p.partition != Partition::listed)
    return std::string(name_of(p.partition));
  std::string list;
  for (int64_t layers : p.stage_layers)
    list += (list.empty() ? "" : ",") + std::to_string(layers);
  return list;
}

// fmt's shortest form reads back as the same double; the unit makes it a quantity
// (units.cpp refuses a bare number).
std::string quantity(double value, const char* unit) { return fmt::format("{}{}", value, unit); }

} // namespace

nlohmann::ordered_json resolved_workload_json(const Workload& w) {
  nlohmann::ordered_json j;
  const ModelSpec& m = w.model;
  auto& model = j["model"];
  model["layers"] = m.layers;
  model["hidden"] = m.hidden;
  model["heads"] = m.heads;
  if (m.kv_heads > 0)
    model["kv_heads"] = m.kv_heads;
  if (m.head_width > 0) // written only when given: hidden / heads otherwise
    model["head_dim"] = m.head_width;
  if (m.qk_layernorm)
    model["qk_layernorm"] = true;
  if (m.window > 0) // the sliding-window keys, written only when given
    model["window"] = m.window;
  if (m.full_attention_every > 0)
    model["full_attention_every"] = m.full_attention_every;
  if (m.mtp_layers > 0)
    model["mtp_layers"] = m.mtp_layers;
  if (m.mtp_shared_layer)
    model["mtp_shared_layer"] = true;
  if (m.attention_sinks)
    model["attention_sinks"] = true;
  if (m.activation_clamp > 0)
    model["activation_clamp"] = m.activation_clamp;
  model["seq_len"] = m.seq_len;
  model["vocab"] = m.vocab;
  model["ffn_hidden"] = m.ffn_hidden;
  model["mlp"] = name_of(m.mlp);
  model["norm"] = name_of(m.norm);
  model["position"] = name_of(m.position);
  model["bias"] = m.bias;
  model["tie_embeddings"] = m.tie_embeddings;
  model["attention"] = name_of(m.attention);
  model["causal"] = m.causal;
  model["head"] = name_of(m.head);
  if (m.moe()) { // a dense model's resolved workload is written as before
    model["experts"] = m.experts;
    model["top_k"] = m.top_k;
    model["moe_ffn_hidden"] = m.expert_ffn();
    model["shared_expert_ffn_hidden"] = m.shared_expert_ffn_hidden;
    model["dense_layers"] = m.dense_layers;
    if (m.capacity_factor)
      model["capacity_factor"] = *m.capacity_factor;
  }
  if (m.moe_latent > 0)
    model["moe_latent"] = m.moe_latent;
  if (m.hybrid()) { // written only for a hybrid model, its Mamba widths as filled in
    model["hybrid_pattern"] = m.hybrid_pattern;
    model["mamba_heads"] = m.mamba_heads;
    model["mamba_head_dim"] = m.mamba_head_dim;
    model["mamba_state"] = m.mamba_state;
    model["mamba_groups"] = m.mamba_groups;
  }
  if (m.latent_attention) { // written only for MLA, as the expert keys for MoE
    model["latent_attention"] = true;
    model["q_lora_rank"] = m.q_lora_rank;
    model["kv_lora_rank"] = m.kv_lora_rank;
    model["qk_head_dim"] = m.qk_head_dim;
    model["qk_pos_emb_head_dim"] = m.qk_pos_emb_head_dim;
    model["v_head_dim"] = m.v_head_dim;
  }
  const TrainingSpec& t = w.training;
  j["training"] = {{"global_batch", t.global_batch},
                   {"micro_batch", t.micro_batch},
                   {"precision", name_of(t.precision)},
                   {"recompute", name_of(t.recompute)},
                   {"optimizer", name_of(t.optimizer)}};
  if (t.recompute_modules != 0) { // written only when given: a workload without it resolves as before
    std::string names; // "core_attn,mlp", as --set writes the list
    for (const auto& module : kRecomputeModuleNames)
      if (t.recompute_modules & static_cast<unsigned>(module.value))
        names += (names.empty() ? "" : ",") + std::string(module.name);
    j["training"]["recompute_modules"] = names;
  }
  if (t.cpu_offload_layers > 0)
    j["training"]["cpu_offload_layers"] = t.cpu_offload_layers;
  if (t.tokens > 0) // written only when given, as fp8 below
    j["training"]["tokens"] = t.tokens;
  if (t.gpu_hour_price > 0)
    j["training"]["gpu_hour_price"] = t.gpu_hour_price;
  if (t.fp8 != Fp8Format::none) { // a run without fp8 has its resolved workload written as before
    j["training"]["fp8"] = name_of(t.fp8);
    j["training"]["fp8_recipe"] = name_of(t.fp8_recipe);
    if (t.fp8_param_gather)
      j["training"]["fp8_param_gather"] = true;
  }
  const ParallelismSpec& p = w.parallelism;
  auto& par = j["parallelism"];
  if (!p.dp_from_platform) // else derived from the platform it runs on, as the file had it
    par["dp"] = p.dp;
  par["tp"] = p.tp;
  par["pp"] = p.pp;
  if (m.moe())
    par["ep"] = p.ep;
  if (p.etp > 0) // written only when given: tp otherwise
    par["etp"] = p.etp;
  if (p.moe_dispatcher != MoeDispatcher::alltoall) // written only when set
    par["moe_dispatcher"] = name_of(p.moe_dispatcher);
  if (p.moe_a2a_overlap)
    par["moe_a2a_overlap"] = true;
  if (p.cp > 1) {
    par["cp"] = p.cp;
    par["cp_comm_type"] = name_of(p.cp_comm_type);
  }
  par["schedule"] = name_of(p.schedule);
  par["chunks"] = p.chunks;
  par["pipeline_flushes"] = p.pipeline_flushes;
  par["zero"] = p.zero;
  if (p.overlap_param_gather) // written only when set: a plan without it resolves as before
    par["overlap_param_gather"] = true;
  if (p.align_param_gather) // written only when set
    par["align_param_gather"] = true;
  par["sequence_parallel"] = p.sequence_parallel;
  if (p.tp_comm_overlap) // written only when set
    par["tp_comm_overlap"] = true;
  par["dp_algorithm"] = name_of(p.dp_algorithm);
  if (p.partition != Partition::framework)
    par["partition"] = partition_text(p);
  auto& placement = j["placement"];
  if (w.placement.gpus)
    placement["gpus"] = *w.placement.gpus;
  placement["order"] = name_of(w.placement.order);
  if (w.placement.first_gpu > 0) // written only when set
    placement["first_gpu"] = w.placement.first_gpu;
  if (w.network.delay_s || w.network.bandwidth_Bps) {
    auto& network = j["network"];
    if (w.network.delay_s)
      network["delay"] = quantity(*w.network.delay_s, "s");
    if (w.network.bandwidth_Bps)
      network["bandwidth"] = quantity(*w.network.bandwidth_Bps, "Bps");
  }
  if (const Conditions& c = w.conditions; c.any() || c.random_fraction_given) {
    auto& conditions = j["conditions"];
    const auto write = [&conditions](const char* key, const std::string& text) {
      if (!text.empty())
        conditions[key] = text;
    };
    write("gpu_slowdown", slowdowns_text(c.gpus));
    write("node_slowdown", slowdowns_text(c.nodes));
    if (c.random_fraction_given) {
      conditions["random_fraction"] = c.random_fraction;
      conditions["random_slowdown"] = random_slowdown_text(c);
      conditions["seed"] = c.seed;
    }
    write("link_bandwidth", link_factors_text(c.links));
    write("link_latency", link_latencies_text(c.links));
    write("links_down", links_down_text(c.links));
  }
  j["framework"] = w.framework;
  if (!w.framework_options.empty()) {
    auto& options = j["framework_options"];
    for (const auto& [key, value] : w.framework_options)
      options[key] = value;
  }
  return j;
}

std::string workload_yaml(const Workload& w) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  const nlohmann::ordered_json resolved = resolved_workload_json(w);
  for (const auto& [section, value] : resolved.items()) {
    out << YAML::Key << section;
    if (value.is_string()) {
      out << YAML::Value << value.get<std::string>();
      continue;
    }
    out << YAML::Value << YAML::BeginMap;
    for (const auto& [key, v] : value.items()) {
      out << YAML::Key << key << YAML::Value;
      if (v.is_boolean())
        out << (v.get<bool>() ? "true" : "false");
      else if (v.is_number_integer())
        out << v.get<int64_t>();
      else if (v.is_number()) // fmt's shortest form reads back as the same double
        out << fmt::format("{}", v.get<double>());
      else // a string: quoted where plain text would read as another type (a framework option "false")
        out << YAML::DoubleQuoted << v.get<std::string>();
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

} // namespace simgpt
