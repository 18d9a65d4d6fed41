#include "study/measured_table.hpp"

#include "core/input_file.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/validation/validation.hpp"
#include "validation/table_loader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <utility>

namespace simgpt {
namespace {

// One table file; messages name the file as the user gave it.
ValidationTable load_table_file(const std::string& path) {
  check_input_file(path, "validation table");
  return load_validation_table(path);
}

ValidationTable load_table_by_id(const std::string& id, const DataPaths& data) {
  std::vector<ValidationTable> tables = load_validation_tables(data);
  for (ValidationTable& t : tables)
    if (t.id == id)
      return std::move(t);
  std::vector<std::string> ids;
  for (const ValidationTable& t : tables)
    ids.push_back(t.id);
  throw InputError("--measured", fmt::format("no validation table '{}' in the data folders' validation/tables "
                                             "(tables: {})",
                                             echo(id), fmt::join(ids, ", ")));
}

// The sweep's name of the peak memory a table's peak_mem_gb counts (as validate pairs them).
const char* peak_metric(const ValidationTable& t) {
  // A sweep has no reserved column: such a table's memory is not plotted against one.
  return t.peak_memory == PeakMemory::allocated  ? "peak_allocated_gib"
         : t.peak_memory == PeakMemory::reserved ? "peak_reserved_gib"
                                                 : "peak_memory_gib";
}

// The key a table records `metric` under.
std::string measured_key(const ValidationTable& t, const std::string& metric) {
  return metric == peak_metric(t) ? "peak_mem_gb" : metric;
}

// What the table's rows measured, under the names a sweep uses.
std::string plottable_metrics(const ValidationTable& t) {
  std::set<std::string> names;
  for (const ValidationRow& row : t.rows)
    for (const auto& [key, value] : row.measured)
      names.insert(key == "peak_mem_gb" ? peak_metric(t) : key);
  return fmt::format("{}", fmt::join(names, ", "));
}

// The workload's own value of a dotted key ("parallelism.dp"), or "default" when it sets none.
std::string workload_value(const YAML::Node& workload, const std::string& key) {
  YAML::Node node = workload;
  for (size_t start = 0; node.IsMap();) {
    const size_t end = std::min(key.find('.', start), key.size());
    // A const lookup: a non-const one could add the key to the workload.
    const YAML::Node child = std::as_const(node)[key.substr(start, end - start)];
    if (!child.IsDefined() || child.IsNull())
      return "default";
    if (end == key.size())
      return child.IsScalar() ? child.Scalar() : YAML::Dump(child);
    node.reset(child); // rebinds; `node = child` would overwrite the workload's entry (nodes are references)
    start = end + 1;
  }
  return "default";
}

std::string row_value(const ValidationTable& t, const YAML::Node& workload, const ValidationRow& row,
                      const std::string& key) {
  const auto set = std::find_if(row.set.begin(), row.set.end(), [&](const auto& kv) { return kv.first == key; });
  if (set != row.set.end())
    return set->second;
  return key == "platform" ? t.platform : workload_value(workload, key);
}

} // namespace

MeasuredTable load_measured(const std::string& table, const std::string& metric, const std::vector<std::string>& keys,
                            const DataPaths& data) {
  const bool is_path = table.find('/') != std::string::npos || table.ends_with(".yaml") || table.ends_with(".yml");
  const ValidationTable t = is_path ? load_table_file(table) : load_table_by_id(table, data);
  const std::string key = measured_key(t, metric);
  const YAML::Node workload = YAML::Load(t.workload_yaml);
  MeasuredTable measured{t.id, {}};
  for (const ValidationRow& row : t.rows) {
    MeasuredRow m{row.id, {}, std::nullopt};
    for (const std::string& k : keys)
      m.inputs[k] = row_value(t, workload, row, k);
    if (const auto value = row.measured.find(key); value != row.measured.end())
      m.value = value->second;
    measured.rows.push_back(std::move(m));
  }
  if (std::none_of(measured.rows.begin(), measured.rows.end(), [](const MeasuredRow& r) { return r.value; }))
    throw InputError("--measured " + table, fmt::format("no row measured {} (the table's rows measured: {})",
                                                        echo(metric), plottable_metrics(t)));
  return measured;
}

} // namespace simgpt
