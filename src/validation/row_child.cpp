// What `simgpt row` runs in its process (process/row_process starts it): a row found by its id in
// the tables the parent names, predicted, and its result printed as JSON text.
#include "simgpt/validation/validation.hpp"

#include "simgpt/core/error.hpp"
#include "core/json_text.hpp"
#include "validation/row_runner.hpp"

#include <fmt/format.h>

#include <exception>

namespace simgpt {

std::string simulate_row_by_id(const std::string& id, const std::string& tables_dir, const DataPaths& data) {
  const std::vector<ValidationTable> tables =
      tables_dir.empty() ? load_validation_tables(data) : load_validation_tables(tables_dir);
  for (const ValidationTable& t : tables)
    for (const ValidationRow& r : t.rows)
      if (t.id + "/" + r.id == id)
        return json_text(simulate_row(t, r, data));
  throw InputError(tables_dir.empty() ? "validation/tables" : tables_dir, fmt::format("no validation row '{}'", id));
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
