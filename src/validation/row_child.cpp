// What `simgpt row` runs in its process (process/row_process starts it): a row found by its id in
// the tables the parent names, predicted, and its result printed as JSON text.
#include "simgpt/validation/validation.hpp"

#include "simgpt/core/error.hpp"
#include "core/json_text.hpp"
#include "validation/row_runner.hpp"
#include "validation/table_loader.hpp"

#include <fmt/format.h>

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

std::pair<std::string, double> parse_profile_set(const std::string& text) {
  const auto [key, value] = parse_override(text);
  try {
    return {key, std::stod(value)};
  } catch (const std::exception&) {
    throw InputError("--profile-set " + key, "expected a number");
  }
}

} // namespace simgpt
