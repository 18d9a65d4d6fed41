// `simgpt validate`, `simgpt calibrate` and `simgpt profile-parameters`: the measured tables
// replayed, a profile fitted to them, and the parameters a fit may move.
#include "command.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/framework/parameters.hpp"
#include "simgpt/validation/calibration.hpp"
#include "simgpt/validation/validation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

namespace simgpt::cli {

void declare_validate(CLI::App& cmd, Options& o) {
  cmd.add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json", "markdown"}));
  cmd.add_option("--filter", o.filter, "only rows whose table/row id contains PATTERN");
  add_process_options(cmd, o, "a row's simulation");
  cmd.add_flag("--gate", o.gate, "exit 1 when a table is worse than validation/thresholds.yaml");
  add_data_option(cmd, o.data_dirs);
}

int run_validate(const Options& o, const CLI::App&) {
  const DataPaths data = data_paths(o);
  const auto tables = load_validation_tables(data);
  const auto thresholds = load_thresholds(data);
  const ValidationReport report =
      validate(tables, data, o.filter, thresholds, o.jobs, RowProcess{kThisSimgpt, o.timeout});
  if (o.format == "markdown")
    std::cout << tables_markdown(tables) << report.to_markdown();
  else
    std::cout << (o.format == "json" ? report.to_json_text() : report.to_text());
  return o.gate && !report.gate_failures.empty() ? 1 : 0;
}

void declare_calibrate(CLI::App& cmd, Options& o) {
  cmd.add_option("--profile", o.profile, "profile name (profiles/NAME.yaml)")->required();
  cmd.add_flag("--write", o.write, "write the fitted values into the profile file");
  add_process_options(cmd, o, "a row's simulation");
  add_data_option(cmd, o.data_dirs);
  cmd.add_flag("--check", o.check, "only list the rows that move each parameter; exit 1 unless each has "
                                   "3 rows of 2 configurations");
}

namespace {
// What pins each parameter; exit 1 when a parameter lacks the rows a fit needs.
int check_calibration_support(const Options& o, const std::vector<ValidationTable>& tables, const DataPaths& data) {
  const CalibrationSupport support = calibration_support(
      o.profile, tables, data, RowProcess{.executable = kThisSimgpt, .timeout_s = o.timeout, .jobs = o.jobs});
  for (const auto& [key, moved] : support.parameters)
    std::cout << fmt::format("{}: {} row(s) of {} configuration(s): {}\n", key, moved.rows.size(),
                             moved.configurations, fmt::join(moved.rows, ", "));
  try {
    require_support(support, "profile " + o.profile);
  } catch (const InputError& e) {
    std::cout << e.what() << "\n";
    return 1;
  }
  return 0;
}
} // namespace

int run_calibrate(const Options& o, const CLI::App&) {
  const DataPaths data = data_paths(o);
  const auto tables = load_validation_tables(data);
  if (o.check)
    return check_calibration_support(o, tables, data);
  if (o.write)
    check_fitted_writable(o.profile, data);
  const CalibrationResult r = calibrate_profile(
      o.profile, tables, data, RowProcess{.executable = kThisSimgpt, .timeout_s = o.timeout, .jobs = o.jobs});
  std::cout << fmt::format("profile {} fitted on {} row(s):\n", r.profile, r.error_pct.size());
  // Durations show their SI unit; sizes and rates print as bare SI numbers, as they always have.
  for (const auto& [key, value] : r.fitted) {
    const ProfileParameter& p = find_profile_parameter(key, "--profile " + r.profile);
    std::cout << fmt::format("  {} = {:.6g}{}\n", key, value, p.si_unit == "s" ? " s" : "");
  }
  for (const auto& [row, error] : r.error_pct)
    std::cout << fmt::format("  {:<40} {:+.2f}%\n", row, error);
  if (o.write) {
    write_fitted(r);
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
