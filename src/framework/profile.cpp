#include "simgpt/framework/profile.hpp"

#include "simgpt/core/error.hpp"
#include "core/units.hpp"
#include "simgpt/framework/parameters.hpp"
#include "simgpt/workload/workload.hpp"
#include "core/yaml_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace simgpt {

namespace {

std::string known_profiles(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml")
      names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  std::string list;
  for (const auto& n : names)
    list += (list.empty() ? "" : ", ") + n;
  return list;
}

std::vector<std::string> text_list(const YamlReader& r, const std::string& key) {
  std::vector<std::string> out;
  if (!r.has(key))
    return out;
  for (const YAML::Node& item : r.node()[key]) {
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

FrameworkSupport read_support(const YamlReader& s) {
  s.only({"tensor_parallel", "sequence_parallel", "pipeline", "schedules", "zero", "zero_with_pipeline"});
  FrameworkSupport f;
  f.tensor_parallel = s.boolean_or("tensor_parallel", true);
  f.sequence_parallel = s.boolean_or("sequence_parallel", f.tensor_parallel);
  f.pipeline = s.boolean_or("pipeline", true);
  if (s.has("schedules")) {
    f.schedules.clear();
    for (const std::string& name : text_list(s, "schedules")) {
      const Schedule schedule = schedule_named(s, name);
      if (!f.allows_schedule(schedule))
        f.schedules.push_back(schedule);
    }
    if (f.schedules.empty())
      throw InputError(s.where("schedules"), "expected a list of schedules, e.g. [gpipe, 1f1b]");
  }
  if (s.has("zero"))
    f.zero = zero_stages(s, "zero");
  f.zero_with_pipeline = s.has("zero_with_pipeline") ? zero_stages(s, "zero_with_pipeline") : f.zero;
  for (int64_t stage : f.zero_with_pipeline)
    if (!f.allows_zero(stage, false))
      throw InputError(s.where("zero_with_pipeline"),
                       fmt::format("stage {} is not among supports.zero: a stage that runs with pipeline "
                                   "parallelism runs without it too", stage));
  return f;
}

Profile read_profile(const YamlReader& root, const std::string& name);

// Writes a run's options into the profile's YAML tree, so each is checked as the file's own key.
void apply_options(const YamlReader& root, const std::map<std::string, std::string>& options,
                   const std::string& where) {
  YAML::Node tree = root.node(); // shares the reader's tree
  for (const auto& [key, value] : options) {
    const auto dot = key.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == key.size())
      throw InputError(where + "." + key, "expected a profile key SECTION.KEY, e.g. compute.fused_elementwise");
    const std::string section = key.substr(0, dot);
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

Profile load_profile(const std::string& dir, const std::string& name, const std::string& where,
                     const std::map<std::string, std::string>& options) {
  // The name becomes a file name: a path, or one past the system's length, is no profile.
  if (!is_plain_name(name))
    throw InputError(where, fmt::format("'{}' is not a profile name ({}; known: {})", echo(name), kPlainNameRule,
                                        known_profiles(dir)));
  const std::string path = dir + "/" + name + ".yaml";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InputError(where, fmt::format("unknown framework profile '{}' (known: {})", name, known_profiles(dir)));
  YamlReader root = YamlReader::file(path);
  Profile profile = options.empty() ? read_profile(root, name) : read_profile_with_options(root, name, where, options);
  profile.file = path;
  return profile;
}

namespace {
Profile read_profile(const YamlReader& root, const std::string& name) {
  root.only({"description", "supports", "compute", "pipeline", "p2p", "collectives", "zero3", "memory",
             "calibration"});
  Profile p;
  p.name = name;
  p.description = root.text_or("description", "");
  if (root.has("supports"))
    p.supports = read_support(root.map("supports"));
  if (root.has("compute")) {
    YamlReader c = root.map("compute");
    c.only({"softmax_passes", "dropout", "fused_elementwise", "op_overhead", "microbatch_overhead",
            "recompute_last_micro_batch", "fused_softmax"});
    p.recompute_last_micro_batch = c.boolean_or("recompute_last_micro_batch", true);
    p.softmax_passes = static_cast<int>(c.number_or("softmax_passes", p.softmax_passes, 1, 3));
    if (c.has("fused_softmax")) {
      YamlReader f = c.map("fused_softmax");
      f.only({"max_seq", "batch_multiple", "fallback_passes", "fallback_fp32"});
      Profile::FusedSoftmax& fs = p.fused_softmax;
      fs.limited = true;
      fs.max_seq = static_cast<int64_t>(f.number_or("max_seq", 0, 0, 1e9));
      fs.batch_multiple = static_cast<int64_t>(f.number_or("batch_multiple", 1, 1, 1024));
      fs.fallback_passes = static_cast<int>(f.number_or("fallback_passes", p.softmax_passes, 1, 3));
      fs.fallback_fp32 = f.boolean_or("fallback_fp32", false);
    }
    p.dropout = c.boolean_or("dropout", p.dropout);
    p.fused_elementwise = c.boolean_or("fused_elementwise", p.fused_elementwise);
    p.op_overhead_s = c.quantity_or("op_overhead", 0, parse_duration);
    p.microbatch_overhead_s = c.quantity_or("microbatch_overhead", 0, parse_duration);
  }
  if (root.has("pipeline")) {
    YamlReader n = root.map("pipeline");
    n.only({"partition"});
    const std::string partition = n.text_or("partition", name_of(Partition::uniform));
    const std::optional<Partition> named = parse_enum<Partition>(partition);
    if (!named)
      throw InputError(n.where("partition"), fmt::format("'{}' is not valid (expected {})", partition,
                                                         valid_enum_names<Partition>(" or ")));
    p.partition = *named;
  }
  if (root.has("p2p")) {
    YamlReader n = root.map("p2p");
    n.only({"backend", "bandwidth_efficiency", "tcp_window", "tcp_initial_window", "blocking", "max_rate"});
    p.p2p_max_rate_Bps = n.quantity_or("max_rate", 0, parse_bandwidth);
    p.p2p_backend = n.text_or("backend", p.p2p_backend);
    if (p.p2p_backend != "nccl" && p.p2p_backend != "gloo")
      throw InputError(n.where("backend"), fmt::format("'{}' is not valid (expected nccl or gloo)", p.p2p_backend));
    p.bandwidth_efficiency = n.number_or("bandwidth_efficiency", 1.0, 0.01, 1.0);
    p.tcp_window_bytes = n.quantity_or("tcp_window", 0, parse_bytes);
    p.tcp_initial_window_bytes = n.quantity_or("tcp_initial_window", 0, parse_bytes);
    p.p2p_blocking = n.boolean_or("blocking", false);
  }
  if (root.has("collectives")) {
    YamlReader c = root.map("collectives");
    c.only({"step_overhead", "dp_overlap", "dp_bucket"});
    p.collective_step_overhead_s = c.quantity_or("step_overhead", 0, parse_duration);
    p.dp_overlap = c.boolean_or("dp_overlap", false);
    p.dp_bucket_bytes = c.quantity_or("dp_bucket", p.dp_bucket_bytes, parse_bytes);
  }
  if (root.has("zero3")) {
    YamlReader z = root.map("zero3");
    z.only({"prefetch_layers", "prefetch_bucket"});
    p.zero3_prefetch_bucket_elements = z.number_or("prefetch_bucket", 0, 0, 1e15);
    const double layers = z.number_or("prefetch_layers", p.zero3_prefetch_layers, 0, 16);
    if (layers != static_cast<double>(static_cast<int>(layers)))
      throw InputError(z.where("prefetch_layers"), fmt::format("{} is not a whole number of layers", layers));
    p.zero3_prefetch_layers = static_cast<int>(layers);
  }
  if (root.has("memory")) {
    YamlReader m = root.map("memory");
    m.only({"context", "allocator_overhead", "update_copy", "recompute_kept", "replicated_kept", "logits_bytes",
             "persistent_gradients", "pool_fraction",
             "checkpoint_stages"});
    p.memory.replicated_kept = m.number_or("replicated_kept", p.memory.replicated_kept, 0, 64);
    p.memory.logits_bytes = m.number_or("logits_bytes", p.memory.logits_bytes, 0, 64);
    p.memory.recompute_kept = m.number_or("recompute_kept", 1, 0, 64);
    p.memory.context_bytes = m.quantity_or("context", 0, parse_bytes);
    p.memory.allocator_overhead = m.number_or("allocator_overhead", 0, 0, 1);
    p.memory.update_copy = m.number_or("update_copy", 0, 0, 2);
    p.memory.persistent_gradients = m.boolean_or("persistent_gradients", true);
    p.memory.pool_fraction = m.number_or("pool_fraction", 1, 0.05, 1);
    p.memory.checkpoint_stages = m.boolean_or("checkpoint_stages", false);
  }
  if (root.has("calibration")) {
    YamlReader cal = root.map("calibration");
    cal.only({"fitted", "rows"});
    p.fitted = text_list(cal, "fitted");
    p.calibration_rows = text_list(cal, "rows");
    for (const std::string& key : p.fitted)
      find_profile_parameter(key, cal.where("fitted"));
  }
  return p;
}
} // namespace

} // namespace simgpt
