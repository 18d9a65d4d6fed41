// `simgpt validate`, `simgpt calibrate` and `simgpt profile-parameters`: the measured tables
// replayed, a profile fitted to them, and the parameters a fit may move.
#include "command.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/output_file.hpp"
#include "simgpt/framework/parameters.hpp"
#include "simgpt/validation/calibration.hpp"
#include "simgpt/validation/validation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace simgpt::cli {

void declare_validate(CLI::App& cmd, Options& o) {
  cmd.add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json", "markdown"}));
  cmd.add_option("--filter", o.filter, "only rows whose table/row id contains PATTERN");
  add_process_options(cmd, o, "a row's simulation");
  cmd.add_flag("--gate", o.gate, "exit 1 when a table is worse than validation/thresholds.yaml");
  cmd.add_flag("--extended", o.extended,
               "also replay the tables of `tier: extended` (their rows take longer than the test suite allows)");
  cmd.add_option("-o,--output", o.output, "write to this file instead of standard output");
  add_data_option(cmd, o.data_dirs);
}

int run_validate(const Options& o, const CLI::App& cmd) {
  const DataPaths data = data_paths(o);
  auto tables = load_validation_tables(data);
  if (!o.extended)
    std::erase_if(tables, [](const ValidationTable& t) { return t.extended; });
  const auto thresholds = load_thresholds(data);
  const bool to_file = cmd.count("--output") > 0;
  std::vector<std::string> table_files;
  for (const ValidationTable& t : tables)
    table_files.push_back(t.file);
  // Refused before the replay (minutes), not after it.
  if (to_file)
    check_output_path(o.output, "-o", table_files);
  const ValidationReport report = validate(
      tables, data, o.filter, thresholds,
      RowProcess{.executable = kThisSimgpt, .timeout_s = o.timeout, .jobs = o.jobs, .progress = stderr_is_terminal()});
  const std::string text = o.format == "markdown" ? tables_markdown(tables) + report.to_markdown()
                           : o.format == "json"   ? report.to_json_text()
                                                  : report.to_text();
  if (to_file)
    write_output_file(o.output, text, "-o", table_files);
  else
    std::cout << text;
  // The text report ends with its gate failures; the other formats have no place for them, and a
  // gate run's log must still say which table failed.
  if (o.gate && (o.format != "text" || to_file))
    for (const std::string& f : report.gate_failures)
      std::cerr << "GATE FAILED: " << f << "\n";
  return o.gate && !report.gate_failures.empty() ? 1 : 0;
}

void declare_calibrate(CLI::App& cmd, Options& o) {
  cmd.add_option("--profile", o.profile, "profile name (profiles/NAME.yaml)")->required();
  cmd.add_option("--table", o.calibration_tables,
                 "fit on the measured rows of this table (validation/tables' format; may be given several times) "
                 "instead of the profile's declared calibration rows");
  cmd.add_flag("--write", o.write, "write the fitted values into the profile file");
  add_process_options(cmd, o, "a row's simulation");
  add_data_option(cmd, o.data_dirs);
  cmd.add_flag("--check", o.check, "only list the rows that move each parameter; exit 1 unless each has "
                                   "3 rows of 2 configurations");
}

namespace {

// What a fit runs on: the rows of the user's --table files, or the profile's declared rows of the
// shipped tables.
struct CalibrationInput {
  std::vector<ValidationTable> tables;
  std::optional<std::vector<std::string>> rows; // none: the profile's calibration.rows
};

CalibrationInput calibration_input(const Options& o, const DataPaths& data) {
  if (o.calibration_tables.empty())
    return {load_validation_tables(data), std::nullopt};
  CalibrationInput in{load_validation_table_files(o.calibration_tables), std::nullopt};
  in.rows = table_calibration_rows(o.profile, in.tables);
  return in;
}

RowProcess calibration_process(const Options& o) {
  return RowProcess{
      .executable = kThisSimgpt, .timeout_s = o.timeout, .jobs = o.jobs, .progress = stderr_is_terminal()};
}

// What pins each parameter; exit 1 when a parameter lacks the rows a fit needs.
int check_calibration_support(const Options& o, const CalibrationInput& in, const DataPaths& data) {
  const CalibrationSupport support = calibration_support(o.profile, in.tables, data, calibration_process(o), in.rows);
  for (const auto& [key, moved] : support.parameters)
    std::cout << fmt::format("{}: {} row(s) of {} configuration(s): {}\n", key, moved.rows.size(),
                             moved.configurations, fmt::join(moved.rows, ", "));
  try {
    require_support(support, in.rows ? "--table" : "profile " + o.profile);
  } catch (const InputError& e) {
    std::cout << e.what() << "\n";
    return 1;
  }
  return 0;
}

} // namespace

int run_calibrate(const Options& o, const CLI::App&) {
  const DataPaths data = data_paths(o);
  const CalibrationInput in = calibration_input(o, data);
  if (o.check)
    return check_calibration_support(o, in, data);
  if (o.write) // never over a table it reads
    check_fitted_writable(o.profile, data, o.calibration_tables);
  const CalibrationResult r = calibrate_profile(o.profile, in.tables, data, calibration_process(o), in.rows);
  std::cout << fmt::format("profile {} fitted on {} row(s){}:\n", r.profile, r.error_pct.size(),
                           in.rows ? fmt::format(" of {}", fmt::join(o.calibration_tables, ", ")) : "");
  // Durations show their SI unit; sizes and rates print as bare SI numbers, as they always have.
  for (const auto& [key, value] : r.fitted) {
    const ProfileParameter& p = find_profile_parameter(key, "--profile " + r.profile);
    std::cout << fmt::format("  {} = {:.6g}{}\n", key, value, p.si_unit == "s" ? " s" : "");
  }
  std::cout << "  error of each row, at the profile's values -> fitted:\n";
  for (const auto& [row, error] : r.error_pct)
    std::cout << fmt::format("  {:<40} {:+.2f}% -> {:+.2f}%\n", row, r.error_before_pct.at(row), error);
  if (o.write) {
    write_fitted(r, o.calibration_tables);
    std::cout << fmt::format("written to {}\n", r.file);
  }
  return 0;
}

void declare_profile_parameters(CLI::App& cmd, Options& o) {
  cmd.add_option("--format", o.format, "output format")->check(CLI::IsMember({"markdown"}));
}

int run_profile_parameters(const Options&, const CLI::App&) {
  std::cout << profile_parameters_markdown();
  return 0;
}

} // namespace simgpt::cli
