#include "simgpt/framework/profile.hpp"

#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "simgpt/framework/parameters.hpp"
#include "simgpt/workload/workload.hpp"
#include "core/yaml_fields.hpp"
#include "core/yaml_read.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace simgpt {

namespace {

// The profiles of every folder, each name once, sorted.
std::string known_profiles(const std::vector<std::string>& dirs) {
  std::set<std::string> names;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".yaml")
        names.insert(entry.path().stem().string());
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<std::string> text_list(const YamlReader& r, const std::string& key) {
  std::vector<std::string> out;
  if (!r.has(key))
    return out;
  const YAML::Node list = r.node()[key];
  // A mapping's items are key-value pairs, which yaml-cpp cannot read as names (an internal
  // error); a single name would be read as no list at all.
  if (!list.IsSequence() && !list.IsNull())
    throw InputError(r.where(key), fmt::format("expected a list of names, e.g. [a, b] (got a {})",
                                               list.IsMap() ? "mapping" : "single value"));
  for (const YAML::Node& item : list) {
    if (!item.IsScalar())
      throw InputError(r.where(key), "expected a list of names");
    out.push_back(item.Scalar());
  }
  return out;
}

} // namespace

bool is_plain_name(std::string_view name) {
  return !name.empty() && name.size() <= kMaxPlainNameChars && name != "." && name != ".." &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                  c == '-';
         });
}

void set_profile_parameter(Profile& p, const std::string& key, double value, const std::string& where) {
  const std::string at = where.empty() ? "--profile-set " + echo(key) : where;
  const ProfileParameter& parameter = find_profile_parameter(key, at);
  check_profile_parameter_value(parameter, value, at);
  parameter.field(p) = value;
}

double get_profile_parameter(const Profile& p, const std::string& key) {
  Profile copy = p;
  return find_profile_parameter(key, p.name + ": calibration.fitted").field(copy);
}

namespace {
std::vector<int64_t> zero_stages(const YamlReader& s, const std::string& key) {
  const YAML::Node list = s.node()[key];
  if (!list.IsSequence() || list.size() == 0)
    throw InputError(s.where(key), "expected a list of ZeRO stages, e.g. [0, 1]");
  std::vector<int64_t> stages;
  for (const YAML::Node& item : list) {
    const std::string text = item.IsScalar() ? item.Scalar() : "";
    if (text.size() != 1 || text[0] < '0' || text[0] > '3')
      throw InputError(s.where(key), fmt::format("'{}' is not a ZeRO stage (expected 0, 1, 2 or 3)", text));
    const int64_t stage = text[0] - '0';
    if (std::find(stages.begin(), stages.end(), stage) == stages.end())
      stages.push_back(stage);
  }
  std::sort(stages.begin(), stages.end());
  return stages;
}

Schedule schedule_named(const YamlReader& s, const std::string& name) {
  if (const std::optional<Schedule> schedule = parse_enum<Schedule>(name))
    return *schedule;
  throw InputError(s.where("schedules"), fmt::format("'{}' is not a schedule (expected {})", name,
                                                     valid_enum_names<Schedule>(" or ")));
}

void read_schedules(const YamlReader& s, const char* key, FrameworkSupport& f) {
  f.schedules.clear();
  for (const std::string& name : text_list(s, key)) {
    const Schedule schedule = schedule_named(s, name);
    if (!f.allows_schedule(schedule))
      f.schedules.push_back(schedule);
  }
  if (f.schedules.empty())
    throw InputError(s.where(key), "expected a list of schedules, e.g. [gpipe, 1f1b]");
}

// The profile file's sections, each a table of its keys (core/yaml_fields.hpp). A key left out keeps
// Profile's default.

const YamlSection<FrameworkSupport> kSupportsSection = {
    {{"tensor_parallel",
      [](const YamlReader& s, const char* key, FrameworkSupport& f) {
        f.tensor_parallel = s.boolean_or(key, f.tensor_parallel);
        // Sequence parallelism splits what tensor parallelism splits: unless the profile says
        // otherwise, a framework runs it where it runs tensor parallelism.
        f.sequence_parallel = f.tensor_parallel;
      }},
     flag_field("sequence_parallel", &FrameworkSupport::sequence_parallel),
     flag_field("pipeline", &FrameworkSupport::pipeline),
     {"schedules", read_schedules},
     {"zero",
      [](const YamlReader& s, const char* key, FrameworkSupport& f) {
        f.zero = zero_stages(s, key);
        f.zero_with_pipeline = f.zero; // unless the profile says otherwise, every stage runs with pipelines too
        f.zero_with_experts = f.zero;  // and with expert parallelism
      }},
     {"zero_with_pipeline",
      [](const YamlReader& s, const char* key, FrameworkSupport& f) { f.zero_with_pipeline = zero_stages(s, key); }},
     {"zero_with_experts",
      [](const YamlReader& s, const char* key, FrameworkSupport& f) { f.zero_with_experts = zero_stages(s, key); }}},
    {},
    [](const YamlReader& s, FrameworkSupport& f) {
      const auto within_zero = [&](const char* key, const std::vector<int64_t>& stages, const char* with) {
        for (int64_t stage : stages)
          if (!f.allows_zero(stage, false))
            throw InputError(s.where(key), fmt::format("stage {} is not among supports.zero: a stage that runs "
                                                       "with {} runs without it too",
                                                       stage, with));
      };
      within_zero("zero_with_pipeline", f.zero_with_pipeline, "pipeline parallelism");
      within_zero("zero_with_experts", f.zero_with_experts, "expert parallelism");
    }};

const YamlSection<Profile::FusedSoftmax> kFusedSoftmaxSection = {
    {number_field("max_seq", &Profile::FusedSoftmax::max_seq, 0, 1e9),
     number_field("batch_multiple", &Profile::FusedSoftmax::batch_multiple, 1, 1024),
     number_field("fallback_passes", &Profile::FusedSoftmax::fallback_passes, 1, 3),
     flag_field("fallback_fp32", &Profile::FusedSoftmax::fallback_fp32)}};

// compute.cuda_graphs: false, true (every block: a whole iteration), `iteration`, `layers`, or a
// list of Megatron-Core's scopes (CudaGraphs says what each captures).
void read_cuda_graphs(const YamlReader& c, const char* key, Profile& p) {
  static constexpr const char* kValid =
      "false, true, iteration, layers, or a list of attn, mlp, moe_router, moe_preprocess, moe, mamba";
  const YAML::Node node = c.node()[key];
  if (node.IsSequence()) {
    CudaGraphs g;
    for (const YAML::Node& item : node) {
      const std::string scope = item.IsScalar() ? item.Scalar() : std::string();
      if (scope == "attn")
        g.attention = true;
      else if (scope == "mlp")
        g.mlp = true;
      else if (scope == "moe_router" || scope == "moe_preprocess") // either turns on both (core 0.16)
        g.moe_router = true;
      else if (scope == "moe")
        g.moe = g.moe_router = true;
      else if (scope == "mamba")
        g.mamba = true;
      else
        throw InputError(c.where(key), fmt::format("'{}' is not a CUDA graph scope (expected {})", echo(scope), kValid));
    }
    p.cuda_graphs = g;
    return;
  }
  const std::string value = node.IsScalar() ? node.Scalar() : std::string();
  if (value == "iteration" || value == "full_iteration")
    p.cuda_graphs = CudaGraphs::iteration();
  else if (value == "layers")
    p.cuda_graphs = CudaGraphs::layers();
  else if (value == "none")
    p.cuda_graphs = CudaGraphs{};
  else
    try {
      p.cuda_graphs = node.as<bool>() ? CudaGraphs::iteration() : CudaGraphs{};
    } catch (const YAML::Exception&) {
      throw InputError(c.where(key), fmt::format("'{}' is not valid (expected {})", echo(value), kValid));
    }
}

const YamlSection<Profile> kComputeSection = {
    {flag_field("recompute_last_micro_batch", &Profile::recompute_last_micro_batch),
     number_field("softmax_passes", &Profile::softmax_passes, 1, 3),
     {"fused_softmax",
      [](const YamlReader& c, const char* key, Profile& p) {
        // Given, the fused kernel has limits; the kernels it falls back to are by default the
        // profile's usual ones (softmax_passes, read before).
        p.fused_softmax.limited = true;
        p.fused_softmax.fallback_passes = p.softmax_passes;
        read_section(c.map(key), kFusedSoftmaxSection, p.fused_softmax);
      }},
     flag_field("dropout", &Profile::dropout),
     flag_field("fused_elementwise", &Profile::fused_elementwise),
     number_field("head_copies", &Profile::head_copies, 0, 4),
     flag_field("fp8_recast_per_use", &Profile::fp8_recast_per_use),
     flag_field("eager_fp32_chains", &Profile::eager_fp32_chains),
     flag_field("ring_attention_fp32_merge", &Profile::ring_attention_fp32_merge),
     flag_field("te_cross_entropy", &Profile::te_cross_entropy),
     either_field("attention_kernel", &Profile::attention_flash2, "tiled", "flash2"),
     either_field("grouped_gemm", &Profile::grouped_gemm_per_group, "one_kernel", "per_group"),
     either_field("selective_recompute", &Profile::selective_every_second_matmul, "attention_core",
                  "every_second_matmul"),
     quantity_field("op_overhead", &Profile::op_overhead_s, parse_duration),
     {"cuda_graphs", read_cuda_graphs},
     quantity_field("microbatch_overhead", &Profile::microbatch_overhead_s, parse_duration)},
    {"softmax_passes", "dropout", "fused_elementwise", "head_copies", "fp8_recast_per_use", "eager_fp32_chains", "ring_attention_fp32_merge", "te_cross_entropy", "attention_kernel", "grouped_gemm", "selective_recompute", "op_overhead", "cuda_graphs", "microbatch_overhead",
     "recompute_last_micro_batch", "fused_softmax"}};

void read_grad_passes(const YamlReader& c, const char* key, Profile& p) {
  static constexpr const char* kValid = "a list of zero_buffer, dp_scale, nan_check, clip_norm (or [])";
  const YAML::Node node = c.node()[key];
  if (!node.IsSequence())
    throw InputError(c.where(key), fmt::format("is not a list (expected {})", kValid));
  Profile::GradPasses passes;
  for (const YAML::Node& item : node) {
    const std::string pass = item.IsScalar() ? item.Scalar() : std::string();
    if (pass == "zero_buffer")
      passes.zero_buffer = true;
    else if (pass == "dp_scale")
      passes.dp_scale = true;
    else if (pass == "nan_check")
      passes.nan_check = true;
    else if (pass == "clip_norm")
      passes.clip_norm = true;
    else
      throw InputError(c.where(key), fmt::format("'{}' is not a gradient pass (expected {})", echo(pass), kValid));
  }
  p.grad_passes = passes;
}

const YamlSection<Profile> kOptimizerSection = {
    {flag_field("offload", &Profile::optimizer_offload),
     quantity_field("offload_time", &Profile::offload_time_per_parameter_s, parse_duration),
     flag_field("master_casts", &Profile::optimizer_master_casts),
     {"grad_passes", read_grad_passes}},
    {"offload", "offload_time", "master_casts", "grad_passes"}};

const YamlSection<Profile> kPipelineSection = {
    {{"partition", [](const YamlReader& n, const char* key, Profile& p) {
        const std::string partition = n.text(key);
        const std::optional<Partition> named = parse_enum<Partition>(partition);
        if (!named)
          throw InputError(n.where(key), fmt::format("'{}' is not valid (expected {})", partition,
                                                     valid_enum_names<Partition>(" or ")));
        p.partition = *named;
      }},
     flag_field("interleaved_all_warmup", &Profile::interleaved_all_warmup)}};

const YamlSection<Profile> kP2pSection = {
    {quantity_field("max_rate", &Profile::p2p_max_rate_Bps, parse_bandwidth),
     {"backend",
      [](const YamlReader& n, const char* key, Profile& p) {
        p.p2p_backend = n.text(key);
        if (p.p2p_backend != "nccl" && p.p2p_backend != "gloo")
          throw InputError(n.where(key), fmt::format("'{}' is not valid (expected nccl or gloo)", p.p2p_backend));
      }},
     number_field("bandwidth_efficiency", &Profile::bandwidth_efficiency, 0.01, 1.0),
     quantity_field("tcp_window", &Profile::tcp_window_bytes, parse_bytes),
     quantity_field("tcp_initial_window", &Profile::tcp_initial_window_bytes, parse_bytes),
     flag_field("blocking", &Profile::p2p_blocking)},
    {"backend", "bandwidth_efficiency", "tcp_window", "tcp_initial_window", "blocking", "max_rate"}};

const YamlSection<Profile> kCollectivesSection = {
    {quantity_field("step_overhead", &Profile::collective_step_overhead_s, parse_duration),
     {"library", [](const YamlReader& c, const char* key, Profile& p) { p.nccl.library = c.text(key); }},
     flag_field("dp_overlap", &Profile::dp_overlap),
     quantity_field("dp_bucket", &Profile::dp_bucket_bytes, parse_bytes),
     flag_field("dp_per_tensor", &Profile::dp_per_tensor),
     number_field("deepep_sms", &Profile::deepep_sms, 0, 1024),
     number_field("hybridep_sms", &Profile::hybridep_sms, 0, 1024),
     quantity_field("dispatch_sm_bandwidth", &Profile::dispatch_sm_bandwidth, parse_bandwidth),
     number_field("tp_overlap_sms", &Profile::tp_overlap_sms, 0, 1024)}};

const YamlSection<Profile> kZero3Section = {
    {number_field("prefetch_bucket", &Profile::zero3_prefetch_bucket_elements, 0, 1e15),
     {"prefetch_layers",
      [](const YamlReader& z, const char* key, Profile& p) {
        const double layers = z.number(key, 0, 16);
        if (layers != static_cast<double>(static_cast<int>(layers)))
          throw InputError(z.where(key), fmt::format("{} is not a whole number of layers", layers));
        p.zero3_prefetch_layers = static_cast<int>(layers);
      }},
     {"reshard_after_forward",
      [](const YamlReader& z, const char* key, Profile& p) {
        const std::string v = z.text(key);
        if (v == "always" || v == "true")
          p.zero3_reshard_after_forward = Profile::Reshard::always;
        else if (v == "never" || v == "false")
          p.zero3_reshard_after_forward = Profile::Reshard::never;
        else if (v == "unless_pipelined")
          p.zero3_reshard_after_forward = Profile::Reshard::unless_pipelined;
        else
          throw InputError(z.where(key), fmt::format("'{}' is not always, never or unless_pipelined", echo(v)));
      }},
     flag_field("reduce_every_micro_batch", &Profile::zero3_reduce_every_micro_batch),
     flag_field("keep_root_gathered", &Profile::zero3_keep_root_gathered),
     flag_field("copies", &Profile::zero3_copies)},
    {"prefetch_layers", "prefetch_bucket", "reshard_after_forward", "reduce_every_micro_batch", "keep_root_gathered",
     "copies"}};

const YamlSection<MemoryProfile> kMemorySection = {
    {number_field("replicated_kept", &MemoryProfile::replicated_kept, 0, 64),
     number_field("logits_bytes", &MemoryProfile::logits_bytes, 0, 64),
     number_field("loss_parallel_logits_bytes", &MemoryProfile::loss_parallel_logits_bytes, 0, 64),
     {"dummy_wgrads",
      [](const YamlReader& r, const char* key, MemoryProfile& m) {
        const std::string v = r.text(key);
        if (v == "none")
          m.dummy_wgrads = MemoryProfile::DummyWgrads::none;
        else if (v == "dense")
          m.dummy_wgrads = MemoryProfile::DummyWgrads::dense;
        else if (v == "dense_and_grouped")
          m.dummy_wgrads = MemoryProfile::DummyWgrads::dense_and_grouped;
        else
          throw InputError(r.where(key), fmt::format("'{}' is not none, dense or dense_and_grouped", echo(v)));
      }},
     number_field("recompute_kept", &MemoryProfile::recompute_kept, 0, 64),
     quantity_field("context", &MemoryProfile::context_bytes, parse_bytes),
     quantity_field("nccl_buffers", &MemoryProfile::nccl_buffers, parse_bytes),
     number_field("headroom", &MemoryProfile::headroom, 0, 0.5),
     number_field("allocator_overhead", &MemoryProfile::allocator_overhead, 0, 1),
     number_field("update_copy", &MemoryProfile::update_copy, 0, 2),
     flag_field("persistent_gradients", &MemoryProfile::persistent_gradients),
     flag_field("head_saved", &MemoryProfile::head_saved),
     number_field("pool_fraction", &MemoryProfile::pool_fraction, 0.05, 1),
     flag_field("checkpoint_stages", &MemoryProfile::checkpoint_stages),
     flag_field("fp32_grads_with_bf16", &MemoryProfile::fp32_grads_with_bf16),
     flag_field("master_gradients", &MemoryProfile::master_gradients),
     flag_field("ddp_buckets", &MemoryProfile::ddp_buckets)},
    {"context", "nccl_buffers", "headroom", "allocator_overhead", "update_copy", "recompute_kept", "replicated_kept",
     "logits_bytes", "loss_parallel_logits_bytes", "head_saved", "dummy_wgrads", "persistent_gradients", "pool_fraction",
     "checkpoint_stages", "fp32_grads_with_bf16", "master_gradients", "ddp_buckets"}};

const YamlSection<Profile> kCalibrationSection = {
    {{"fitted", [](const YamlReader& c, const char* key, Profile& p) { p.fitted = text_list(c, key); }},
     {"rows", [](const YamlReader& c, const char* key, Profile& p) { p.calibration_rows = text_list(c, key); }}},
    {},
    [](const YamlReader& c, Profile& p) {
      for (const std::string& key : p.fitted)
        find_profile_parameter(key, c.where("fitted"));
    }};

const YamlSection<Profile> kProfileFile = {
    {text_field("description", &Profile::description),
     section_field("supports", &Profile::supports, kSupportsSection),
     section_field("compute", kComputeSection),
     section_field("optimizer", kOptimizerSection),
     section_field("pipeline", kPipelineSection),
     section_field("p2p", kP2pSection),
     section_field("collectives", kCollectivesSection),
     section_field("zero3", kZero3Section),
     section_field("memory", &Profile::memory, kMemorySection),
     section_field("calibration", kCalibrationSection)}};

Profile read_profile(const YamlReader& root, const std::string& name) {
  Profile p;
  p.name = name;
  read_section(root, kProfileFile, p);
  return p;
}

// Writes a run's options into the profile's YAML tree, so each is checked as the file's own key.
void apply_options(const YamlReader& root, const std::map<std::string, std::string>& options,
                   const std::string& where) {
  YAML::Node tree = root.node(); // shares the reader's tree
  for (const auto& [key, value] : options) {
    const auto dot = key.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == key.size())
      throw InputError(where + "." + key, "expected a profile key SECTION.KEY, e.g. compute.fused_elementwise");
    const std::string section = key.substr(0, dot);
    // calibration says which rows the profile's constants were fitted on, for simgpt calibrate: a
    // run's option there would change nothing it simulates, and was taken without a word.
    if (section == "calibration")
      throw InputError(where + "." + key, "calibration is how the profile was fitted, not a run's option (expected "
                                          "a key of supports, compute, optimizer, pipeline, p2p, collectives, zero3 "
                                          "or memory)");
    if (tree[section] && !tree[section].IsMap())
      throw InputError(where + "." + key, fmt::format("the profile's {} is not a section", section));
    YAML::Node parsed;
    try {
      parsed = YAML::Load(value);
    } catch (const YAML::Exception&) {
      parsed = YAML::Node(value);
    }
    tree[section][key.substr(dot + 1)] = parsed;
  }
}

Profile read_profile_with_options(const YamlReader& root, const std::string& name, const std::string& where,
                                  const std::map<std::string, std::string>& options) {
  // Each option is written into the profile's YAML maps, whose lookups are linear: 200k options
  // would take minutes. parse_workload refuses more than kMaxFrameworkOptions already; this is for
  // options a library user passes in.
  if (options.size() > kMaxFrameworkOptions)
    throw LimitError(where + "_options", fmt::format("{} options exceed the limit of {} (a profile has a few dozen keys)",
                                                     options.size(), kMaxFrameworkOptions));
  apply_options(root, options, where + "_options");
  try {
    return read_profile(root, name);
  } catch (const InputError& e) {
    throw InputError(where + "_options", fmt::format("{} (in the {} profile: {})", e.message(), name, e.where()));
  }
}

} // namespace

Profile load_profile(const std::vector<std::string>& dirs, const std::string& name, const std::string& where,
                     const std::map<std::string, std::string>& options) {
  // The name becomes a file name: a path, or one past the system's length, is no profile.
  if (!is_plain_name(name))
    throw InputError(where, fmt::format("'{}' is not a profile name ({}; known: {})", echo(name), kPlainNameRule,
                                        known_profiles(dirs)));
  const auto dir = std::find_if(dirs.begin(), dirs.end(), [&](const std::string& d) {
    std::error_code ec;
    return std::filesystem::exists(d + "/" + name + ".yaml", ec);
  });
  if (dir == dirs.end())
    throw InputError(where, fmt::format("unknown framework profile '{}' (known: {})", name, known_profiles(dirs)));
  const std::string path = *dir + "/" + name + ".yaml";
  YamlReader root = YamlReader::file(path);
  Profile profile = options.empty() ? read_profile(root, name) : read_profile_with_options(root, name, where, options);
  profile.file = path;
  if (profile.nccl.loaded())
    profile.nccl = load_nccl_tuning(dirs, profile.nccl.library, path + ": collectives.library");
  return profile;
}

} // namespace simgpt
