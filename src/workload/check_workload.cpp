// check_workload: the rules every workload meets before it is simulated, whether parse_workload
// read it from YAML or a library user filled it in C++.
#include "simgpt/workload/workload.hpp"

#include "simgpt/core/error.hpp"
#include "core/checked_int.hpp"
#include "workload/workload_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

namespace simgpt {

[[noreturn]] void refuse_limit(const std::string& where, const std::string& what, const Limit& limit) {
  throw LimitError(where, fmt::format("{} exceeds simgpt's limit of {} ({})", what, limit.max, limit.why));
}

// Throws unless min <= value; above `limit` (when given) a LimitError.
void check_int(int64_t value, const std::string& where, int64_t min, const Limit* limit) {
  if (value < min)
    throw InputError(where, fmt::format("{} is out of range (expected an integer >= {})", value, min));
  if (limit && value > limit->max)
    refuse_limit(where, std::to_string(value), *limit);
}

// Past an hour per hop or below 1 bps a step takes years: no what-if simgpt can answer, and such
// values only drive SimGrid's clock to inf or its solver to zero rates. parse_duration and
// parse_bandwidth refuse negative, non-finite and past-1e15 values; these repeat that for a
// Workload filled in C++.
void check_delay(double d, const std::string& where) {
  if (!(d >= 0))
    throw InputError(where, fmt::format("{:.4g} s is not a delay (expected 0 to 1h, e.g. 10ms)", d));
  if (!(d <= 3600))
    throw InputError(where, fmt::format("{:.4g} s is too large (expected at most 1h)", d));
}
void check_bandwidth(double bw, const std::string& where) {
  if (!(bw * 8 >= 1))
    throw InputError(where, fmt::format("{:.4g} bps is too small (expected at least 1bps, e.g. 1Gbps)", bw * 8));
  if (!(bw <= 1e15))
    throw InputError(where, fmt::format("{:.4g} B/s is too large (a bandwidth may be at most 1e15 B/s)", bw));
}

// Refused as soon as the workload's mapping is seen, before its options are copied or applied.
void check_option_count(size_t options, const std::string& where) {
  if (options > kMaxFrameworkOptions)
    throw LimitError(where, fmt::format("{} options exceed the limit of {} (a profile has a few dozen keys)", options,
                                        kMaxFrameworkOptions));
}

namespace {

// The products the plan counts or divides with, checked before any is used (each factor is >= 1):
// a wrapped dp*tp*pp or micro_batch*dp can be 0 and crash a later division, a wrapped count print
// a wrong number. Beyond a limit: LimitError; past 64 bits with no limit of its own: InputError.
void check_products(const Workload& w, const std::string& f) {
  const auto& m = w.model;
  const auto& t = w.training;
  const auto& p = w.parallelism;
  std::optional<int64_t> gpus = checked_mul(p.dp, p.tp);
  gpus = gpus ? checked_mul(*gpus, p.pp) : gpus;
  gpus = gpus ? checked_mul(*gpus, p.cp) : gpus;
  if (!gpus || *gpus > kMaxGpus.max)
    refuse_limit(f + ": parallelism", fmt::format("{} GPUs", w.gpu_product()), kMaxGpus);
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
  int64_t widest = std::max({m.hidden, m.ffn_hidden, m.vocab, m.experts, m.moe_ffn_hidden,
                             m.shared_expert_ffn_hidden});
  if (m.head_width > 0) { // the queries, heads x head_dim wide
    const std::optional<int64_t> width = checked_mul(m.heads, m.head_width);
    if (!width)
      throw InputError(f + ": model.head_dim", fmt::format("heads * head_dim = {} * {} does not fit in 64 bits",
                                                           m.heads, m.head_width));
    widest = std::max(widest, *width);
  }
  if (m.latent_attention) {
    // MLA's queries and keys, heads x (qk_head_dim + qk_pos_emb_head_dim), and its up-projected keys
    // and values, heads x (qk_head_dim + v_head_dim); each dimension is at most kMaxHidden.
    for (const int64_t head_width : {m.qk_head_dim + m.qk_pos_emb_head_dim, m.qk_head_dim + m.v_head_dim}) {
      const std::optional<int64_t> width = checked_mul(m.heads, head_width);
      if (!width)
        throw InputError(f + ": model.heads", fmt::format("heads * {} = {} * {} does not fit in 64 bits", head_width,
                                                          m.heads, head_width));
      widest = std::max(widest, *width);
    }
  }
  std::optional<int64_t> elements = checked_mul(t.micro_batch, m.seq_len);
  elements = elements ? checked_mul(*elements, widest) : elements;
  if (!elements)
    throw InputError(f + ": training.micro_batch",
                     fmt::format("micro_batch * seq_len * {} = {} * {} * {} elements does not fit in 64 bits",
                                 widest == m.hidden ? "hidden" : widest == m.vocab ? "vocab" : "ffn_hidden",
                                 t.micro_batch, m.seq_len, widest));
  // The routed copies of one micro-batch's tokens: micro_batch * seq_len * top_k * hidden.
  if (m.moe()) {
    std::optional<int64_t> routed = checked_mul(t.micro_batch, m.seq_len);
    routed = routed ? checked_mul(*routed, m.top_k) : routed;
    routed = routed ? checked_mul(*routed, std::max(m.hidden, m.expert_ffn())) : routed;
    if (!routed)
      throw InputError(f + ": model.top_k", fmt::format("micro_batch * seq_len * top_k * width = {} * {} * {} * {} "
                                                        "elements does not fit in 64 bits",
                                                        t.micro_batch, m.seq_len, m.top_k,
                                                        std::max(m.hidden, m.expert_ffn())));
  }
}

// The keys without a default. ffn_hidden's default (4 * hidden) is filled in by parse_workload,
// so only a Workload filled in C++ can leave it 0.
void check_required(const Workload& w, const std::string& f) {
  const auto& m = w.model;
  const std::pair<const char*, int64_t> required[] = {{"model.layers", m.layers},   {"model.hidden", m.hidden},
                                                      {"model.heads", m.heads},     {"model.seq_len", m.seq_len},
                                                      {"model.vocab", m.vocab},     {"model.ffn_hidden", m.ffn_hidden},
                                                      {"training.global_batch", w.training.global_batch}};
  for (const auto& [key, value] : required)
    if (value == 0)
      throw InputError(f + ": " + key, "is required (a positive integer)");
}

// An enum value as C++ can cast any integer to it; the readers only ever set declared ones.
template <typename Enum>
void check_enum(Enum value, Enum last, const std::string& where) {
  const auto v = static_cast<std::underlying_type_t<Enum>>(value);
  if (v < 0 || v > static_cast<std::underlying_type_t<Enum>>(last))
    throw InputError(where, fmt::format("{} is not one of the key's values", v));
}

// What each key's reader checks (schema() above), for a Workload that was not read from YAML.
void check_ranges(const Workload& w, const std::string& f) {
  const auto at = [&f](const char* key) { return f + ": " + key; };
  const auto& m = w.model;
  const auto& t = w.training;
  const auto& p = w.parallelism;
  check_int(m.layers, at("model.layers"), 1, &kMaxLayers);
  check_int(m.hidden, at("model.hidden"), 1, &kMaxHidden);
  check_int(m.heads, at("model.heads"), 1);
  check_int(m.seq_len, at("model.seq_len"), 1, &kMaxSeqLen);
  check_int(m.vocab, at("model.vocab"), 1, &kMaxVocab);
  check_int(m.ffn_hidden, at("model.ffn_hidden"), 1, &kMaxFfnHidden);
  check_enum(m.head, Head::classifier, at("model.head"));
  check_enum(m.attention, Attention::flash, at("model.attention"));
  check_int(m.kv_heads, at("model.kv_heads"), 0);
  check_int(m.head_width, at("model.head_dim"), 0, &kMaxHidden);
  check_int(m.window, at("model.window"), 0, &kMaxSeqLen);
  check_int(m.mtp_layers, at("model.mtp_layers"), 0, &kMaxLayers);
  check_int(m.full_attention_every, at("model.full_attention_every"), 0, &kMaxLayers);
  check_enum(m.mlp, Mlp::squared_relu, at("model.mlp"));
  check_enum(m.norm, Norm::rmsnorm, at("model.norm"));
  check_enum(m.position, Position::none, at("model.position"));
  check_int(m.moe_latent, at("model.moe_latent"), 0, &kMaxHidden);
  check_int(t.global_batch, at("training.global_batch"), 1);
  check_int(t.micro_batch, at("training.micro_batch"), 1);
  check_enum(t.precision, Precision::bf16, at("training.precision"));
  check_enum(t.recompute, Recompute::selective, at("training.recompute"));
  check_enum(t.optimizer, Optimizer::sgd_momentum, at("training.optimizer"));
  check_enum(t.fp8, Fp8Format::hybrid, at("training.fp8"));
  check_enum(t.fp8_recipe, Fp8Recipe::nvfp4, at("training.fp8_recipe"));
  check_int(p.dp, at("parallelism.dp"), 1, &kMaxGpus);
  check_int(p.tp, at("parallelism.tp"), 1, &kMaxGpus);
  check_int(p.pp, at("parallelism.pp"), 1, &kMaxGpus);
  check_int(p.ep, at("parallelism.ep"), 1, &kMaxGpus);
  check_int(p.etp, at("parallelism.etp"), 0, &kMaxGpus);
  check_int(p.cp, at("parallelism.cp"), 1, &kMaxGpus);
  check_enum(p.cp_comm_type, CpCommType::a2a_p2p, at("parallelism.cp_comm_type"));
  check_enum(p.moe_dispatcher, MoeDispatcher::hybridep, at("parallelism.moe_dispatcher"));
  check_int(m.experts, at("model.experts"), 0, &kMaxExperts);
  check_int(m.top_k, at("model.top_k"), 1, &kMaxExperts);
  check_int(m.moe_ffn_hidden, at("model.moe_ffn_hidden"), 0, &kMaxFfnHidden);
  check_int(m.shared_expert_ffn_hidden, at("model.shared_expert_ffn_hidden"), 0, &kMaxFfnHidden);
  check_int(m.dense_layers, at("model.dense_layers"), 0, &kMaxLayers);
  check_int(m.q_lora_rank, at("model.q_lora_rank"), 0, &kMaxHidden);
  check_int(m.kv_lora_rank, at("model.kv_lora_rank"), 0, &kMaxHidden);
  check_int(m.qk_head_dim, at("model.qk_head_dim"), 0, &kMaxHidden);
  check_int(m.qk_pos_emb_head_dim, at("model.qk_pos_emb_head_dim"), 0, &kMaxHidden);
  check_int(m.v_head_dim, at("model.v_head_dim"), 0, &kMaxHidden);
  if (!(m.activation_clamp >= 0 && m.activation_clamp <= 1e6))
    throw InputError(at("model.activation_clamp"),
                     fmt::format("{} is not valid (expected a number > 0, e.g. 7; 0 for none)", m.activation_clamp));
  if (m.capacity_factor && !(*m.capacity_factor > 0 && *m.capacity_factor <= 1e6))
    throw InputError(at("model.capacity_factor"),
                     fmt::format("{} is not valid (expected a number > 0, e.g. 1.25)", *m.capacity_factor));
  check_enum(p.schedule, Schedule::interleaved, at("parallelism.schedule"));
  check_int(p.chunks, at("parallelism.chunks"), 1);
  check_int(p.pipeline_flushes, at("parallelism.pipeline_flushes"), 1);
  check_int(p.zero, at("parallelism.zero"), 0);
  if (p.zero > 3)
    throw InputError(at("parallelism.zero"), fmt::format("{} is out of range (expected 0, 1, 2 or 3)", p.zero));
  check_enum(p.dp_algorithm, DpAlgorithm::central_ps, at("parallelism.dp_algorithm"));
  if (p.dp_algorithm == DpAlgorithm::central_ps && p.zero > 0)
    throw InputError(at("parallelism.zero"),
                     fmt::format("ZeRO {} with central_ps: a central parameter server sends every replica the whole "
                                 "gradient sum and each updates all its weights (zero 0)",
                                 p.zero));
  check_enum(p.partition, Partition::listed, at("parallelism.partition"));
  // Megatron-Core's pipeline layouts (pipeline_model_parallel_layout, or account_for_embedding_in_
  // pipeline_split and account_for_loss_in_pipeline_split with one layer per stage) may leave the
  // first stage only the embedding and the last only the output layer and loss
  // (megatron/core/transformer/pipeline_parallel_layer_layout.py); every other stage holds a layer.
  if (p.partition == Partition::listed)
    for (size_t i = 0; i < p.stage_layers.size(); ++i) {
      const bool end_stage = i == 0 || i + 1 == p.stage_layers.size();
      if (p.stage_layers[i] < (end_stage ? 0 : 1))
        throw InputError(at("parallelism.partition"),
                         fmt::format("stage {} holds {} layers: only the first stage (the embedding's) and the last "
                                     "(the loss's) may hold none",
                                     i, p.stage_layers[i]));
    }
  if (w.placement.gpus)
    check_int(*w.placement.gpus, at("placement.gpus"), 1, &kMaxGpus);
  check_enum(w.placement.order, RankOrder::pp_tp_dp, at("placement.order"));
  check_int(w.placement.first_gpu, at("placement.first_gpu"), 0, &kMaxGpus);
  if (w.network.delay_s)
    check_delay(*w.network.delay_s, at("network.delay"));
  if (w.network.bandwidth_Bps)
    check_bandwidth(*w.network.bandwidth_Bps, at("network.bandwidth"));
  const Conditions& c = w.conditions;
  if (!(c.random_fraction >= 0 && c.random_fraction <= 1))
    throw InputError(at("conditions.random_fraction"),
                     fmt::format("{} is not a share of the GPUs (expected a number from 0 to 1)", c.random_fraction));
  if (!c.random_fraction_given && c.random_slowdown_given)
    throw InputError(at("conditions.random_slowdown"),
                     "is the factor of randomly drawn GPUs, and none are drawn (set conditions.random_fraction)");
  if (!c.random_fraction_given && c.seed_given)
    throw InputError(at("conditions.seed"), "seeds the random draw of slow GPUs, and none are drawn (set "
                                            "conditions.random_fraction)");
  if (!(c.random_min >= 1 && c.random_max >= c.random_min && c.random_max <= kMaxSlowdown))
    throw InputError(at("conditions.random_slowdown"),
                     fmt::format("{}-{} is not a range of factors (expected 1 <= MIN <= MAX <= {:g})", c.random_min,
                                 c.random_max, kMaxSlowdown));
  for (const auto& [ranges, key] : {std::pair{&c.gpus, "conditions.gpu_slowdown"}, std::pair{&c.nodes, "conditions.node_slowdown"}})
    for (const SlowdownRange& r : *ranges)
      if (!(r.first >= 0 && r.last >= r.first && r.factor >= 1 && r.factor <= kMaxSlowdown))
        throw InputError(at(key), fmt::format("{}-{}:{} is not a range and a factor (expected 0 <= first <= last, "
                                              "a factor from 1 to {:g})", r.first, r.last, r.factor, kMaxSlowdown));
  for (const LinkCondition& l : c.links) {
    if (l.link.empty())
      throw InputError(at("conditions"), "a link condition names no link");
    if (!(l.bandwidth_factor > 0 && l.bandwidth_factor <= kMaxSlowdown))
      throw InputError(at("conditions.link_bandwidth"),
                       fmt::format("{}: {} is not a factor (expected above 0 and at most {:g})", echo(l.link),
                                   l.bandwidth_factor, kMaxSlowdown));
    check_delay(l.latency_added_s, at("conditions.link_latency"));
  }
  if (w.framework.empty())
    throw InputError(at("framework"), "expected a profile name, e.g. megatron");
  check_option_count(w.framework_options.size(), at("framework_options"));
}

// Mixture of experts and expert parallelism, refused where Megatron-LM refuses them.
void check_experts(const Workload& w, const std::string& f) {
  const auto& m = w.model;
  const auto& p = w.parallelism;
  if (!m.moe()) {
    const std::pair<const char*, bool> moe_only[] = {{"model.top_k", m.top_k_given},
                                                     {"model.moe_ffn_hidden", m.moe_ffn_hidden > 0},
                                                     {"model.shared_expert_ffn_hidden", m.shared_expert_ffn_hidden > 0},
                                                     {"model.dense_layers", m.dense_layers > 0},
                                                     {"model.moe_latent", m.moe_latent > 0},
                                                     {"parallelism.etp", w.parallelism.etp > 0},
                                                     {"model.capacity_factor", m.capacity_factor.has_value()}};
    for (const auto& [key, set] : moe_only)
      if (set)
        throw InputError(f + ": " + key, "applies to a mixture-of-experts model only (set model.experts)");
    // megatron/training/arguments.py: "num_experts must be non None to use expert model parallelism".
    if (p.ep > 1)
      throw InputError(f + ": parallelism.ep", "expert parallelism needs a mixture-of-experts model (set model.experts)");
    return;
  }
  if (m.top_k > m.experts)
    throw InputError(f + ": model.top_k",
                     fmt::format("routes each token to {} experts but the model has {}", m.top_k, m.experts));
  if (m.dense_layers >= m.layers)
    throw InputError(f + ": model.dense_layers",
                     fmt::format("{} dense layers leave none of the {} layers with experts (expected at most {})",
                                 m.dense_layers, m.layers, m.layers - 1));
  // megatron/training/arguments.py: "Number of experts should be a multiple of expert model parallel_size."
  if (m.experts % p.ep != 0)
    throw InputError(f + ": parallelism.ep",
                     fmt::format("ep {} does not divide the {} experts (each rank holds experts / ep)", p.ep, m.experts));
  // Expert tensor parallelism: tp (Megatron's default) or 1, whose expert-parallel groups are
  // whole replicas' tensor ranks (ParallelismSpec::etp).
  if (p.etp > 0 && p.etp != p.tp && p.etp != 1)
    throw InputError(f + ": parallelism.etp", fmt::format("{} is not modelled (expected 1, or tp {})", p.etp, p.tp));
  if (p.expert_tp() == 1 && p.tp > 1) {
    if (p.ep % p.tp != 0)
      throw InputError(f + ": parallelism.ep",
                       fmt::format("ep {} is not a multiple of tp {}: with etp 1 simgpt models expert-parallel groups "
                                   "of whole replicas' tensor ranks",
                                   p.ep, p.tp));
    if (!p.dp_from_platform && p.dp % (p.ep / p.tp) != 0)
      throw InputError(f + ": parallelism.ep",
                       fmt::format("ep {} does not divide dp * tp = {} * {} (with etp 1 the expert-parallel ranks are "
                                   "data- and tensor-parallel ranks)",
                                   p.ep, p.dp, p.tp));
    if (p.cp > 1)
      throw InputError(f + ": parallelism.etp", "1 with tp > 1 under context parallelism is not modelled");
  } else if (!p.dp_from_platform && p.dp % p.ep != 0) { // else checked once on_platform has derived dp
    // megatron/core/parallel_state.py (initialize_model_parallel): the expert grid is etp x ep x edp
    // x pp over the same GPUs as tp x dp x pp, and world_size must be divisible by etp * ep * pp.
    // With etp = tp, ep must divide dp.
    throw InputError(f + ": parallelism.ep",
                     fmt::format("ep {} does not divide dp {} (expert-parallel ranks are data-parallel ranks: "
                                 "dp*tp*pp must be divisible by ep*tp*pp)",
                                 p.ep, p.dp));
  }
  // megatron/core/transformer/moe/moe_layer.py: training with MoE and tp > 1 needs sequence parallelism.
  if (p.tp > 1 && !p.sequence_parallel)
    throw InputError(f + ": parallelism.sequence_parallel",
                     "a mixture-of-experts model with tp > 1 needs sequence_parallel: true (Megatron-LM refuses it "
                     "without)");
  if (m.expert_ffn() % p.expert_tp() != 0)
    throw InputError(f + ": parallelism.tp",
                     fmt::format("tp {} does not divide the experts' ffn width {} (experts are split over tp as "
                                 "Megatron's default expert tensor parallelism does)",
                                 p.tp, m.expert_ffn()));
  // The expert-data-parallel groups reduce the experts' gradients by NCCL collectives (Megatron's
  // DistributedDataParallel, expert-parallel buffers; under ZeRO-3, Megatron-FSDP's and FSDP2's
  // expert shards, gathered and reduce-scattered over the same groups): no parameter server.
  if (p.ep > 1 && (p.dp_algorithm == DpAlgorithm::parameter_server || p.dp_algorithm == DpAlgorithm::central_ps))
    throw InputError(f + ": parallelism.dp_algorithm",
                     fmt::format("{} with ep {}: expert parallelism synchronises gradients by "
                                 "all-reduce or reduce-scatter",
                                 name_of(p.dp_algorithm), p.ep));
  if (m.shared_expert_ffn_hidden % p.tp != 0)
    throw InputError(f + ": parallelism.tp", fmt::format("tp {} does not divide shared_expert_ffn_hidden {}", p.tp,
                                                         m.shared_expert_ffn_hidden));
}

// Context parallelism, refused where Megatron-LM and TransformerEngine refuse it, and where simgpt
// does not simulate its exchange.
void check_context(const Workload& w, const std::string& f) {
  const auto& m = w.model;
  const auto& p = w.parallelism;
  if (p.cp == 1)
    return;
  // Megatron-LM runs context parallelism in TransformerEngine's fused attention only
  // (megatron/core/transformer/dot_product_attention.py asserts context_parallel_size == 1).
  if (m.attention != Attention::flash)
    throw InputError(f + ": model.attention", fmt::format("cp {} needs attention: flash (Megatron-LM runs context "
                                                          "parallelism in TransformerEngine's fused attention only)",
                                                          p.cp));
  // megatron/core/utils.py get_batch_on_this_cp_rank: the sequence is cut into 2 cp chunks, rank i
  // taking chunks i and 2 cp - 1 - i, so that causal attention's work is even.
  if (m.seq_len % (2 * p.cp) != 0)
    throw InputError(f + ": model.seq_len", fmt::format("seq_len {} is not divisible by 2 * cp = {} (each context-"
                                                        "parallel rank takes two of 2 cp equal chunks)",
                                                        m.seq_len, 2 * p.cp));
  if (p.cp_comm_type != CpCommType::a2a && p.cp_comm_type != CpCommType::p2p)
    throw InputError(f + ": parallelism.cp_comm_type",
                     fmt::format("{}: only p2p (ring attention) and a2a (the all-to-all around the attention core) "
                                 "are simulated yet",
                                 name_of(p.cp_comm_type)));
  // transformer_engine/pytorch/attention (flash_attn_a2a_communicate): the a2a form splits each
  // rank's heads, queries' and keys' alike, over the cp ranks.
  if (p.cp_comm_type == CpCommType::a2a && (m.heads % (p.tp * p.cp) != 0 || m.query_groups() % (p.tp * p.cp) != 0))
    throw InputError(f + ": parallelism.cp",
                     fmt::format("tp * cp = {} must divide the {} heads and {} key/value heads (cp_comm_type a2a "
                                 "splits each tensor rank's heads over the context-parallel ranks)",
                                 p.tp * p.cp, m.heads, m.query_groups()));
}

// Multi-head latent attention's dimensions: given with it only, each set (parse_workload fills in
// Megatron-LM's defaults), and refused where Megatron-LM refuses them.
void check_latent_attention(const ModelSpec& m, const std::string& f) {
  const std::pair<const char*, int64_t> dims[] = {{"model.q_lora_rank", m.q_lora_rank},
                                                  {"model.kv_lora_rank", m.kv_lora_rank},
                                                  {"model.qk_head_dim", m.qk_head_dim},
                                                  {"model.qk_pos_emb_head_dim", m.qk_pos_emb_head_dim},
                                                  {"model.v_head_dim", m.v_head_dim}};
  if (m.latent_attention && m.head_width > 0)
    throw InputError(f + ": model.head_dim", "does not apply to multi-head latent attention (its widths are "
                                             "qk_head_dim, qk_pos_emb_head_dim and v_head_dim)");
  if (m.latent_attention && m.qk_layernorm)
    throw InputError(f + ": model.qk_layernorm", "does not apply to multi-head latent attention (it normalises its "
                                                 "latents: q_lora_rank and kv_lora_rank)");
  if (!m.latent_attention) {
    for (const auto& [key, value] : dims)
      if (value > 0)
        throw InputError(f + ": " + key, "applies to multi-head latent attention only (set model.latent_attention: true)");
    return;
  }
  for (const auto& [key, value] : std::span(dims).subspan(1)) // q_lora_rank 0: no query latent
    if (value == 0)
      throw InputError(f + ": " + key, "is required with model.latent_attention (a positive integer)");
  // megatron/training/arguments.py: "Group query attention is mutually exclusive with multi latent
  // attention": every head has its own keys and values, up-projected from the shared latent.
  if (m.kv_heads > 0 && m.kv_heads != m.heads)
    throw InputError(f + ": model.kv_heads",
                     "does not apply to multi-head latent attention (every head's keys and values come from the "
                     "shared kv_lora_rank latent; remove kv_heads or give as many as heads)");
  // Rotary embeddings turn pairs of dimensions (megatron/core/models/common/embeddings/
  // rotary_pos_embedding.py: inverse frequencies over arange(0, dim, 2)).
  if (m.qk_pos_emb_head_dim % 2 != 0)
    throw InputError(f + ": model.qk_pos_emb_head_dim",
                     fmt::format("{} is odd (rotary embeddings turn pairs of dimensions: expected an even number)",
                                 m.qk_pos_emb_head_dim));
}

// A hybrid model (model.hybrid_pattern) and its Mamba-2 mixers, refused where Megatron-Core
// refuses them (megatron/core/ssm/mamba_mixer.py asserts) or where simgpt does not model them.
void check_hybrid(const Workload& w, const std::string& f) {
  const auto& m = w.model;
  const auto& p = w.parallelism;
  const std::pair<const char*, int64_t> mamba_keys[] = {{"model.mamba_heads", m.mamba_heads},
                                                        {"model.mamba_head_dim", m.mamba_head_dim},
                                                        {"model.mamba_state", m.mamba_state},
                                                        {"model.mamba_groups", m.mamba_groups}};
  if (!m.hybrid()) {
    for (const auto& [key, value] : mamba_keys)
      if (value > 0)
        throw InputError(f + ": " + key, "applies to a hybrid model's Mamba layers (set model.hybrid_pattern)");
    return;
  }
  const std::string& pattern = m.hybrid_pattern;
  if (static_cast<int64_t>(pattern.size()) != m.layers)
    throw InputError(f + ": model.hybrid_pattern",
                     fmt::format("names {} layers but model.layers is {} (a symbol a layer)", pattern.size(), m.layers));
  const bool has_experts = pattern.find('E') != std::string::npos;
  if (has_experts && !m.moe())
    throw InputError(f + ": model.hybrid_pattern", "has MoE layers (E) but the model has no experts (set model.experts)");
  if (!has_experts && m.moe())
    throw InputError(f + ": model.experts", "a hybrid model's experts are in its E layers, and its pattern has none");
  if (m.dense_layers > 0)
    throw InputError(f + ": model.dense_layers", "does not apply to a hybrid model (its pattern places the MoE layers)");
  if (m.latent_attention)
    throw InputError(f + ": model.latent_attention", "is not modelled in a hybrid model (its attention layers, *, are "
                                                     "standard self-attention)");
  if (m.window > 0)
    throw InputError(f + ": model.window", "sliding-window attention is not modelled in a hybrid model");
  if (pattern.find('M') == std::string::npos)
    return;
  for (const auto& [key, value] : mamba_keys)
    check_int(value, f + ": " + key, 1, &kMaxHidden);
  if (!checked_mul(m.mamba_heads, m.mamba_head_dim) || m.mamba_heads * m.mamba_head_dim > kMaxHidden.max)
    refuse_limit(f + ": model.mamba_heads",
                 fmt::format("d_inner = mamba_heads * mamba_head_dim = {} * {}", m.mamba_heads, m.mamba_head_dim),
                 kMaxHidden);
  if (m.mamba_heads % m.mamba_groups != 0)
    throw InputError(f + ": model.mamba_groups", fmt::format("{} groups do not divide the {} Mamba heads (each group's "
                                                             "B and C serve heads / groups heads)",
                                                             m.mamba_groups, m.mamba_heads));
  // MambaMixer: "nheads % tp == 0" and "ngroups % tp == 0".
  if (m.mamba_groups % p.tp != 0)
    throw InputError(f + ": parallelism.tp", fmt::format("tp {} does not divide the {} Mamba groups (Megatron-Core "
                                                         "splits heads and groups over tensor ranks)",
                                                         p.tp, m.mamba_groups));
  if (p.cp > 1)
    throw InputError(f + ": parallelism.cp", "context parallelism of Mamba layers (Megatron-Core's all-to-all "
                                             "MambaContextParallel) is not modelled (use parallelism.cp 1)");
}

void check_consistency(const Workload& w, const std::string& f) {
  const auto& m = w.model;
  const auto& t = w.training;
  const auto& p = w.parallelism;
  check_products(w, f);
  if (m.hidden % m.heads != 0 && m.head_width == 0)
    throw InputError(f + ": model.heads",
                     fmt::format("{} heads do not divide hidden {} (heads must divide hidden, or give each head's "
                                 "width as model.head_dim)",
                                 m.heads, m.hidden));
  if (m.mtp_shared_layer && m.mtp_layers == 0)
    throw InputError(f + ": model.mtp_shared_layer", "applies with multi-token prediction (set model.mtp_layers)");
  if (m.mtp_layers > 0 && m.head != Head::lm)
    throw InputError(f + ": model.mtp_layers", "predicts tokens with the LM head: model.head lm only");
  if (m.full_attention_every > 0 && m.window == 0)
    throw InputError(f + ": model.full_attention_every",
                     "applies to sliding-window attention only (give model.window, the keys each query attends to)");
  if (m.window > 0 && !m.causal)
    throw InputError(f + ": model.window",
                     "applies to causal attention only (a window of the keys before each query: model.causal true)");
  // TransformerEngine's context-parallel attention passes whole key blocks round its ring; simgpt
  // prices no window across it.
  if (m.window > 0 && w.parallelism.cp > 1)
    throw InputError(f + ": model.window",
                     "sliding-window attention with context parallelism is not modelled (use parallelism.cp 1)");
  if (m.activation_clamp > 0 && !m.gated_mlp())
    throw InputError(f + ": model.activation_clamp",
                     "applies to a gated MLP only (model.mlp swiglu or quick_geglu)");
  int64_t layer_groups = p.pp * (p.schedule == Schedule::interleaved ? p.chunks : 1);
  if (p.partition == Partition::listed) {
    if (static_cast<int64_t>(p.stage_layers.size()) != layer_groups)
      throw InputError(f + ": parallelism.partition",
                       fmt::format("lists {} stages but the plan has {} (pp{})", p.stage_layers.size(), layer_groups,
                                   p.schedule == Schedule::interleaved ? " * chunks" : ""));
    int64_t sum = 0;
    for (int64_t n : p.stage_layers)
      if (!checked_add(sum, n) || (sum += n) > m.layers) // entries are >= 0: past layers is wrong already
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
  // Checks that depend on dp wait for on_platform to derive it where the file left it out.
  const bool dp_known = !p.dp_from_platform;
  if (dp_known && t.global_batch % (t.micro_batch * p.dp) != 0)
    throw InputError(f + ": training.global_batch",
                     fmt::format("global_batch {} is not divisible by micro_batch * dp = {} * {}", t.global_batch,
                                 t.micro_batch, p.dp));
  if (dp_known && w.micro_batches() % p.pipeline_flushes != 0)
    throw InputError(f + ": parallelism.pipeline_flushes",
                     fmt::format("{} flushes do not divide the step's {} micro-batches (each flush runs as many)",
                                 p.pipeline_flushes, w.micro_batches()));
  if (p.pipeline_flushes > 1 && p.schedule == Schedule::interleaved)
    throw InputError(f + ": parallelism.pipeline_flushes",
                     "more than one flush a step is simulated for the gpipe and 1f1b schedules, not interleaved");
  if (p.schedule != Schedule::interleaved && p.chunks != 1)
    throw InputError(f + ": parallelism.chunks", "chunks applies to the interleaved schedule only (use 1)");
  if (p.schedule == Schedule::interleaved && p.chunks < 2)
    throw InputError(f + ": parallelism.chunks", "the interleaved schedule needs chunks >= 2");
  if (dp_known && p.schedule == Schedule::interleaved && w.micro_batches() % p.pp != 0)
    throw InputError(f + ": training.micro_batch",
                     fmt::format("the interleaved schedule needs the number of micro-batches ({}) to be a multiple "
                                 "of pp ({})",
                                 w.micro_batches(), p.pp));
  if (m.heads % p.tp != 0)
    throw InputError(f + ": parallelism.tp", fmt::format("tp {} does not divide heads {}", p.tp, m.heads));
  check_latent_attention(m, f);
  check_hybrid(w, f);
  if (m.heads % m.query_groups() != 0)
    throw InputError(f + ": model.kv_heads", fmt::format("{} key-value heads do not divide the {} heads (each serves "
                                                         "heads / kv_heads query heads)", m.query_groups(), m.heads));
  // megatron/core/transformer/attention.py: num_query_groups_per_partition = divide(num_query_groups, tp).
  if (m.query_groups() % p.tp != 0)
    throw InputError(f + ": parallelism.tp", fmt::format("tp {} does not divide kv_heads {} (each tensor-parallel "
                                                         "rank holds whole key-value heads)", p.tp, m.query_groups()));
  if (m.ffn_hidden % p.tp != 0)
    throw InputError(f + ": parallelism.tp", fmt::format("tp {} does not divide ffn_hidden {}", p.tp, m.ffn_hidden));
  // FlashAttention's kernels take fp16 and bf16 only (Dao et al. 2022; Dao 2023).
  if (m.attention == Attention::flash && t.precision == Precision::fp32)
    throw InputError(f + ": model.attention",
                     "flash needs training.precision fp16 or bf16 (FlashAttention has no fp32 kernels); "
                     "use attention: standard for fp32");
  if (t.recompute_modules != 0 && t.recompute != Recompute::selective)
    throw InputError(f + ": training.recompute_modules",
                     "applies only with training.recompute selective (Megatron's --recompute-granularity selective)");
  // megatron/core/transformer/transformer_config.py: "mla_up_proj" needs multi_latent_attention.
  if (t.recomputes(RecomputeModule::mla_up_proj) && !m.latent_attention)
    throw InputError(f + ": training.recompute_modules",
                     "mla_up_proj needs multi-head latent attention (model.latent_attention)");
  if (t.recomputes(RecomputeModule::moe_act) && !m.moe())
    throw InputError(f + ": training.recompute_modules", "moe_act needs a mixture-of-experts model (model.experts)");
  if (t.recomputes(RecomputeModule::moe) && !m.moe())
    throw InputError(f + ": training.recompute_modules", "moe needs a mixture-of-experts model (model.experts)");
  // The combined 1F1B schedule runs a layer's parts on two streams as its own callables; a
  // checkpointed MoE layer's rerun beside them is not modelled.
  if (t.recomputes(RecomputeModule::moe) && p.moe_a2a_overlap)
    throw InputError(f + ": training.recompute_modules",
                     "moe with parallelism.moe_a2a_overlap is not modelled (use moe_act, or no overlap)");
  // megatron/core/transformer/transformer_config.py refuses offloading as many layers as the model
  // has, with pipeline parallelism and with recomputation; the chunks of an interleaved schedule are
  // pipeline stages too.
  if (t.cpu_offload_layers > 0) {
    const std::string key = f + ": training.cpu_offload_layers";
    if (t.cpu_offload_layers >= m.layers)
      throw InputError(key, fmt::format("{} is not fewer than the model's {} layers", t.cpu_offload_layers, m.layers));
    if (p.pp > 1 || p.chunks > 1)
      throw InputError(key, "needs parallelism.pp 1 and chunks 1 (Megatron-Core has no offloading with pipeline "
                            "parallelism)");
    if (t.recompute != Recompute::none)
      throw InputError(key, "needs training.recompute none (Megatron-Core offloads no recomputed layer)");
  }
  if (t.fp8 == Fp8Format::none && t.fp8_recipe != Fp8Recipe::delayed)
    throw InputError(f + ": training.fp8_recipe", "applies only with fp8 training (set training.fp8 to e4m3 or hybrid)");
  if (t.fp8_param_gather && t.fp8 == Fp8Format::none)
    throw InputError(f + ": training.fp8_param_gather", "applies only with fp8 training (set training.fp8 to e4m3 or hybrid)");
  // Megatron keeps NVFP4 parameters under its own flag (--fp4-param-gather), which simgpt does not model.
  if (t.fp8_param_gather && t.fp8_recipe == Fp8Recipe::nvfp4)
    throw InputError(f + ": training.fp8_param_gather",
                     "applies to the fp8 recipes (delayed, tensorwise, mxfp8), not nvfp4 (use false)");
  // fp8 with ZeRO-3: the framework decides (framework_support.cpp, unsupported_by).
  // Megatron's distributed optimizer shards over the data- and context-parallel ranks together.
  if (!p.dp_from_platform && p.zero > 0 && p.dp * p.cp == 1)
    throw InputError(f + ": parallelism.zero", "ZeRO shards state across data-parallel ranks: it needs dp > 1");
  if (p.sequence_parallel && p.tp == 1)
    throw InputError(f + ": parallelism.sequence_parallel", "sequence parallelism needs tp > 1");
  // megatron/training/arguments.py: "Tensor parallel communication/GEMM overlap can happen only
  // when sequence parallelism is enabled".
  // megatron/core/transformer/transformer_config.py (__post_init__): the expert-parallel overlap
  // needs expert parallelism, no full recompute, at most one multi-token prediction layer, and with
  // pipelining the interleaved schedule (combined_1f1b.py has no plain-1F1B form).
  if (p.moe_a2a_overlap) {
    if (!m.moe() || p.ep < 2)
      throw InputError(f + ": parallelism.moe_a2a_overlap", "overlaps expert-parallel all-to-alls: needs a MoE model "
                                                            "and parallelism.ep of at least 2");
    if (w.training.recompute == Recompute::full)
      throw InputError(f + ": parallelism.moe_a2a_overlap",
                       "not with training.recompute full (Megatron-Core refuses it; use selective or none)");
    if (p.pp > 1 && p.schedule != Schedule::interleaved)
      throw InputError(f + ": parallelism.moe_a2a_overlap",
                       "with pipelining needs the interleaved schedule (Megatron-Core's combined 1F1B)");
    if (m.mtp_layers > 1)
      throw InputError(f + ": parallelism.moe_a2a_overlap", "with at most one model.mtp_layers (Megatron-Core's limit)");
  }
  if (p.moe_dispatcher != MoeDispatcher::alltoall && !m.moe())
    throw InputError(f + ": parallelism.moe_dispatcher", "dispatches a MoE layer's tokens: the model has no experts");
  if (p.tp_comm_overlap && !p.sequence_parallel)
    throw InputError(f + ": parallelism.tp_comm_overlap",
                     "overlaps sequence parallelism's collectives with the GEMMs: it needs tp > 1 and "
                     "parallelism.sequence_parallel true");
  // Megatron-LM: "--overlap-param-gather only supported with distributed optimizer"
  // (megatron/training/arguments.py).
  if (p.overlap_param_gather && (p.zero < 1 || p.zero > 2))
    throw InputError(f + ": parallelism.overlap_param_gather",
                     "overlaps the sharded optimizer's weight all-gather: it needs parallelism.zero 1 or 2");
  // Megatron-LM's schedules use --align-param-gather's param_sync_func only with
  // --overlap-param-gather (megatron/training/training.py).
  if (p.align_param_gather && !p.overlap_param_gather)
    throw InputError(f + ": parallelism.align_param_gather",
                     "aligns overlap_param_gather's all-gathers across pipeline ranks: it needs "
                     "parallelism.overlap_param_gather true");
  check_experts(w, f);
  check_context(w, f);
  if (!p.dp_from_platform && w.placement.gpus && *w.placement.gpus != w.gpus())
    throw InputError(f + ": placement.gpus",
                     fmt::format("the plan {} uses {} GPUs, not {}", w.gpu_product(), w.gpus(), *w.placement.gpus));
}

} // namespace

void check_workload(const Workload& w) {
  const std::string f = w.source.empty() ? "workload" : w.source;
  check_required(w, f);
  check_ranges(w, f);
  check_consistency(w, f);
}

Workload on_platform(const Workload& workload, int64_t platform_gpus) {
  check_workload(workload); // its ranges first: the products below take them as given
  if (!workload.parallelism.dp_from_platform)
    return workload; // nothing to derive: checked whole already
  Workload w = workload;
  const std::string f = w.source.empty() ? "workload" : w.source;
  ParallelismSpec& p = w.parallelism;
  const int64_t available = w.placement.gpus.value_or(platform_gpus);
  const int64_t replica = p.tp * p.cp * p.pp; // each at most kMaxGpus, checked by check_ranges
  if (available % replica != 0 || available < replica)
    throw InputError(f + ": parallelism.dp",
                     fmt::format("is left out, so it is derived from the GPUs as Megatron-LM does, but {} are not a "
                                 "multiple of {} = {}; set parallelism.dp, or placement.gpus to a multiple",
                                 w.placement.gpus ? fmt::format("placement.gpus {}", available)
                                                  : fmt::format("the platform's {} GPUs", available),
                                 p.cp > 1 ? fmt::format("tp*cp*pp = {}*{}*{}", p.tp, p.cp, p.pp)
                                          : fmt::format("tp*pp = {}*{}", p.tp, p.pp),
                                 replica));
  p.dp = available / replica;
  p.dp_from_platform = false;
  p.dp_derived = true;
  check_workload(w); // now with the checks that depend on dp
  return w;
}

void check_gpus_used(const Workload& w, int64_t platform_gpus) {
  const std::string f = w.source.empty() ? "workload" : w.source;
  const ParallelismSpec& p = w.parallelism;
  const int64_t replica = p.tp * p.cp * p.pp;
  if (!w.placement.gpus && w.gpus() < platform_gpus)
    throw InputError(f + ": parallelism.dp",
                     fmt::format("the plan {} uses {} of the platform's {} GPUs; leave parallelism.dp out to derive it "
                                 "from them{}, or set placement.gpus: {} to run on the first {}",
                                 w.gpu_product(), w.gpus(), platform_gpus,
                                 platform_gpus % replica == 0 ? fmt::format(" (dp {})", platform_gpus / replica) : "",
                                 w.gpus(), w.gpus()));
}

} // namespace simgpt
