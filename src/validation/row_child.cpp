// What `simgpt row` runs in its process (process/row_process starts it): a row found by its id in
// the tables the parent names, predicted, and its result printed as JSON text.
#include "simgpt/validation/validation.hpp"

#include "simgpt/core/error.hpp"
#include "core/json_text.hpp"
#include "validation/row_runner.hpp"
#include "validation/table_loader.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <exception>
#include <filesystem>

namespace simgpt {

std::string simulate_row_by_id(const std::string& id, const std::string& tables, const DataPaths& data) {
  // One table file (a row's own, as validate and calibrate pass it) is read alone: the folder it
  // sits in may hold other files, a user's table beside anything.
  std::error_code ec;
  const std::vector<ValidationTable> loaded =
      tables.empty()                               ? load_validation_tables(data)
      : std::filesystem::is_regular_file(tables, ec) ? std::vector<ValidationTable>{load_validation_table(tables)}
                                                     : load_validation_tables(tables);
  for (const ValidationTable& t : loaded)
    for (const ValidationRow& r : t.rows)
      if (t.id + "/" + r.id == id)
        return json_text(simulate_row(t, r, data));
  throw InputError(tables.empty() ? "validation/tables" : tables, fmt::format("no validation row '{}'", id));
}

std::string simulate_row_spec(const std::string& spec_json, const DataPaths& data) {
  ValidationTable table;
  ValidationRow row;
  try {
    const nlohmann::json spec = nlohmann::json::parse(spec_json);
    const nlohmann::json& t = spec.at("table");
    const nlohmann::json& r = spec.at("row");
    table.id = t.at("id").get<std::string>();
    table.file = t.at("file").get<std::string>();
    table.platform = t.at("platform").get<std::string>();
    table.kind = t.at("kind").get<std::string>() == "transfer" ? TableKind::transfer : TableKind::workload;
    table.workload_yaml = t.at("workload").get<std::string>();
    row.id = r.at("id").get<std::string>();
    for (const nlohmann::json& kv : r.at("set"))
      row.set.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
    row.bytes = r.at("bytes").get<double>();
    row.profile = r.at("profile").get<std::string>();
    row.collective = r.at("collective").get<std::string>();
    row.gpus = r.at("gpus").get<int>();
    row.gpus_per_thread = r.at("gpus_per_thread").get<int>();
  } catch (const nlohmann::json::exception& e) {
    // Only validate and calibrate write a spec; a hand-written one gets this line.
    throw InputError("--spec", fmt::format("not a row of row_spec_json ({})", e.what()));
  }
  return json_text(simulate_row(table, row, data));
}

std::pair<std::string, double> parse_profile_set(const std::string& text) {
  const auto [key, value] = parse_override(text);
  try {
    return {key, std::stod(value)};
  } catch (const std::exception&) {
    throw InputError("--profile-set " + key, "expected a number");
  }
}

} // namespace simgpt
