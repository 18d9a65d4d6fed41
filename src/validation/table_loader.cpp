#include "validation/table_loader.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/planner/search_space.hpp"
#include "core/units.hpp"
#include "core/yaml_read.hpp"
#include "execution/task_graph.hpp"
#include "validation/names.hpp"
#include "workload/workload_limits.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace simgpt {

bool ValidationRow::flagged(const std::string& flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

namespace {

std::string scalar_text(const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : YAML::Dump(n); }

// What a row may measure. Times, sizes and rates are positive; counts of collectives may be 0.
// The upper bounds are far above any real run and keep the errors' ratios finite: a step of a
// million seconds (11.6 days), 10,000 GB of one GPU's memory (the largest hold 192 GB), a
// thousand TFLOPS per GPU for a million GPUs, a billion collectives per step.
struct MeasuredMetric {
  const char* name;
  const char* unit;
  double max;
  bool count; // 0 is a valid measurement
};
constexpr MeasuredMetric kMeasuredMetrics[] = {
    {"step_time_s", "s", 1e6, false},          {"estimated_step_time_s", "s", 1e6, false},
    {"transfer_s", "s", 1e6, false},           {"peak_mem_gb", "GB", 1e4, false},
    {"estimated_peak_mem_gb", "GB", 1e4, false}, {"tflops_total", "TFLOPS", 1e9, false},
    {"comm_total", "collectives", 1e9, true},  {"allreduce", "collectives", 1e9, true},
    {"allgather", "collectives", 1e9, true},   {"reducescatter", "collectives", 1e9, true},
    {"all2all", "collectives", 1e9, true},
};

// The flags a row may carry (ValidationRow::flagged): a misspelt one would be ignored silently.
constexpr const char* kRowFlags[] = {"not_reproducible", "questionable", "estimator_reference"};

std::string known_metrics() {
  std::string names = "oom";
  for (const MeasuredMetric& m : kMeasuredMetrics)
    names += std::string(", ") + m.name;
  return names;
}

// Table and row ids join into "table/row" (what `simgpt row` and --filter take, and what profiles
// name as calibration rows, with ":memory" or ":oom" after it), and the table's platform is a file
// name: plain names only, so that no two joined ids are the same.
std::string checked_name(const YamlReader& r, const std::string& key) {
  const std::string name = r.text(key);
  if (!is_plain_name(name))
    throw InputError(r.where(key), fmt::format("'{}' is not a valid name ({})", echo(name), kPlainNameRule));
  return name;
}

void read_measured(const YamlReader& r, ValidationRow& row) {
  if (!r.has("measured"))
    return;
  const YamlReader measured = r.map("measured");
  for (const std::string& key : measured.keys()) {
    if (key == "oom") {
      row.oom = measured.boolean_or("oom", false);
      continue;
    }
    const auto* metric = std::find_if(std::begin(kMeasuredMetrics), std::end(kMeasuredMetrics),
                                      [&](const MeasuredMetric& m) { return key == m.name; });
    if (metric == std::end(kMeasuredMetrics))
      throw InputError(measured.where(key), fmt::format("unknown metric (known: {})", known_metrics()));
    const double value = measured.number(key, 0, metric->max); // refuses NaN and infinities too
    if (value == 0 && !metric->count)
      throw InputError(measured.where(key), fmt::format("0 is not a measurement (expected more than 0 {}, at most "
                                                        "{:g})",
                                                        metric->unit, metric->max));
    row.measured[key] = value;
  }
}

Overrides read_set(const YamlReader& r) {
  Overrides set;
  if (!r.has("set"))
    return set;
  const YAML::Node n = r.node()["set"];
  if (!n.IsMap())
    throw InputError(r.where("set"), "expected a mapping of workload keys to values (e.g. {network.delay: 1ms})");
  for (const auto& kv : n) // check_keys made every key a scalar
    set.emplace_back(kv.first.Scalar(), scalar_text(kv.second));
  return set;
}

std::vector<std::string> read_flags(const YamlReader& r) {
  std::vector<std::string> flags;
  if (!r.has("flags"))
    return flags;
  for (const YamlReader& item : r.list("flags")) {
    const std::string flag = item.node().IsScalar() ? item.node().Scalar() : "";
    if (std::none_of(std::begin(kRowFlags), std::end(kRowFlags), [&](const char* f) { return flag == f; }))
      throw InputError(r.where("flags"), fmt::format("'{}' is not a flag (expected {})", echo(flag),
                                                     fmt::format("{}", fmt::join(kRowFlags, ", "))));
    flags.push_back(flag);
  }
  return flags;
}

// A transfer table's collective row: which collective, over how many of the platform's first GPUs.
void read_collective(const YamlReader& r, const ValidationTable& t, ValidationRow& row) {
  if (!r.has("collective")) {
    for (const char* key : {"gpus", "gpus_per_thread"})
      if (r.has(key))
        throw InputError(r.where(key), fmt::format("{} goes with collective (a message runs from GPU 0 to GPU 1)", key));
    return;
  }
  if (t.kind != TableKind::transfer)
    throw InputError(r.where("collective"), "collective rows belong in a table of kind: transfer");
  row.collective = r.text("collective");
  if (!parse_enum<CollectiveKind>(row.collective))
    throw InputError(r.where("collective"), fmt::format("'{}' is not a collective (expected {})", echo(row.collective),
                                                        valid_enum_names<CollectiveKind>(" or ")));
  // At least two: a collective over one GPU moves nothing over the platform.
  const double gpus = r.number("gpus", 2, 65536);
  if (gpus != static_cast<double>(static_cast<int>(gpus)))
    throw InputError(r.where("gpus"), fmt::format("{} is not a whole number of GPUs (expected 2 to 65536)", gpus));
  row.gpus = static_cast<int>(gpus);
  // The benchmark's threads each drive some of the GPUs: at most all of them.
  const double per_thread = r.number_or("gpus_per_thread", 1, 1, gpus);
  if (per_thread != static_cast<double>(static_cast<int>(per_thread)))
    throw InputError(r.where("gpus_per_thread"), fmt::format("{} is not a whole number of GPUs", per_thread));
  row.gpus_per_thread = static_cast<int>(per_thread);
}

// A planner table's row names the job size its comparison searches: one whole number of GPUs,
// written in digits, as `simgpt plan --gpus` takes it ("1e3" would be searched as 1, "abc" was an
// internal error).
void check_planner_gpus(const YamlReader& r, const ValidationTable& t, const Overrides& set) {
  if (t.planner_search.empty())
    return;
  for (const auto& [key, value] : set) {
    if (key != "placement.gpus")
      continue;
    const bool digits = !value.empty() && value.size() <= 7 && value.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoll(value) < 1 || std::stoll(value) > kMaxGpus.max)
      throw InputError(r.where("set") + ".placement.gpus",
                       fmt::format("'{}' is not a number of GPUs (expected a whole number from 1 to {}: the job size "
                                   "the planner comparison searches)",
                                   echo(value), kMaxGpus.max));
  }
}

ValidationRow read_row(const YamlReader& r, const ValidationTable& t) {
  r.only({"id", "row", "column", "set", "measured", "flags", "note", "bytes", "profile", "collective", "gpus",
           "gpus_per_thread"});
  ValidationRow row;
  row.id = checked_name(r, "id");
  row.row = r.text_or("row", "");
  row.column = r.text_or("column", "");
  row.note = r.text_or("note", "");
  row.bytes = r.quantity_or("bytes", 0, parse_bytes);
  row.profile = r.has("profile") ? checked_name(r, "profile") : "";
  if (t.kind == TableKind::transfer && (row.bytes <= 0 || row.profile.empty()))
    throw InputError(r.where("bytes"), "a transfer row needs bytes and profile");
  read_collective(r, t, row);
  row.set = read_set(r);
  check_planner_gpus(r, t, row.set);
  read_measured(r, row);
  row.flags = read_flags(r);
  return row;
}

std::vector<std::string> read_planner_search(const YamlReader& root) {
  std::vector<std::string> restrictions;
  if (!root.has("planner_search"))
    return restrictions;
  SearchSpace check; // each restriction as `simgpt plan --search` takes it
  for (const YamlReader& r : root.list("planner_search")) {
    const std::string restriction = r.node().IsScalar() ? r.node().Scalar() : "";
    try {
      check.restrict(restriction);
    } catch (const InputError& e) {
      throw InputError(root.where("planner_search"), e.message());
    }
    restrictions.push_back(restriction);
  }
  return restrictions;
}

// `text`, the value of `key`, as one of an enum's names.
template <typename Enum, std::size_t N>
Enum parse_named(const YamlReader& r, const std::string& key, const std::string& text,
                 const NamedValue<Enum> (&names)[N]) {
  if (const std::optional<Enum> value = value_named(names, text))
    return *value;
  throw InputError(r.where(key), fmt::format("'{}' is not valid (expected {})", text, names_or(names)));
}

void read_source(const YamlReader& root, ValidationTable& t) {
  if (!root.has("source"))
    return;
  t.source = YAML::Dump(root.node()["source"]);
  YamlReader src = root.map("source");
  src.only({"seed", "heading"});
  t.source_heading = src.text_or("seed", "") + ": " + src.text_or("heading", "");
}

void read_rows(const YamlReader& root, ValidationTable& t) {
  std::set<std::string> ids;
  for (const YamlReader& r : root.list("rows")) {
    if (!r.node().IsMap())
      throw InputError(root.where("rows"), "expected a list of mappings (each row: id, set, measured, ...)");
    t.rows.push_back(read_row(r, t));
    if (!ids.insert(t.rows.back().id).second)
      throw InputError(r.where("id"), fmt::format("'{}' is the id of an earlier row (each row's id is unique in its "
                                                  "table)",
                                                  t.rows.back().id));
  }
}

} // namespace

ValidationTable load_validation_table(const std::string& path) {
  YamlReader root = YamlReader::file(path);
  root.only({"table", "kind", "source", "description", "platform", "workload", "peak_memory", "planner_search",
             "tier", "rows"});
  ValidationTable t;
  t.file = path;
  t.id = checked_name(root, "table");
  t.platform = checked_name(root, "platform");
  root.text_or("description", ""); // read by people, but text all the same
  // kind's text is read (a single value) before peak_memory's, and checked after it.
  const std::string kind = root.text_or("kind", "workload");
  t.peak_memory = parse_named(root, "peak_memory", root.text_or("peak_memory", "device"), kPeakMemoryNames);
  t.kind = parse_named(root, "kind", kind, kTableKindNames);
  if (t.kind == TableKind::workload) {
    YAML::Emitter text;
    text << root.map("workload").node();
    t.workload_yaml = text.c_str();
  }
  t.planner_search = read_planner_search(root);
  const std::string tier = root.text_or("tier", "gate");
  if (tier != "gate" && tier != "extended")
    throw InputError(root.where("tier"), fmt::format("'{}' is not gate or extended", echo(tier)));
  t.extended = tier == "extended";
  read_source(root, t);
  read_rows(root, t);
  return t;
}

std::vector<ValidationTable> load_validation_table_files(const std::vector<std::string>& files) {
  std::vector<ValidationTable> tables;
  std::map<std::string, std::string> file_of; // table id -> its file
  for (const std::string& f : files) {
    tables.push_back(load_validation_table(f));
    const auto [earlier, added] = file_of.emplace(tables.back().id, f);
    if (!added)
      throw InputError(f + ": table", fmt::format("'{}' is the id of the table in {} too (each table's id is unique)",
                                                  tables.back().id, earlier->second));
  }
  return tables;
}

std::vector<ValidationTable> load_validation_tables(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml")
      files.push_back(entry.path().string());
  if (ec)
    throw InputError(dir, "cannot read the validation tables directory");
  std::sort(files.begin(), files.end());
  return load_validation_table_files(files);
}

std::vector<ValidationTable> load_validation_tables(const DataPaths& data) {
  if (data.find("validation/tables").empty())
    throw InputError("validation/tables", fmt::format("no data folder holds validation tables (folders: {})",
                                                      data.folder_list()));
  return load_validation_table_files(data.list("validation/tables", ".yaml"));
}

} // namespace simgpt
