#include "simgpt/validation/calibration.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/output_file.hpp"
#include "core/parallel.hpp"
#include "process/child_process.hpp"
#include "validation/names.hpp"
#include "validation/row_runner.hpp"
#include "simgpt/framework/parameters.hpp"
#include "simgpt/framework/profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <set>
#include <thread>
#include <fstream>
#include <sstream>

namespace simgpt {
namespace {

// A row is judged on its measured time; named "table/row:memory", on its measured peak memory;
// named "table/row:oom", on whether it ran out of memory (a run with a measured time did not).
struct CalibrationRow {
  const ValidationTable* table;
  const ValidationRow* row;
  bool oom_outcome;
  bool memory;
};

// The validation row a profile's calibration.rows entry names, with what it is judged on.
CalibrationRow find_row(const std::string& entry, const std::vector<ValidationTable>& tables,
                        const std::string& where) {
  const bool oom_outcome = entry.ends_with(":oom");
  const bool memory = entry.ends_with(":memory");
  const std::string id = oom_outcome || memory ? entry.substr(0, entry.rfind(':')) : entry;
  const auto slash = id.find('/');
  for (const ValidationTable& t : tables)
    if (t.id == id.substr(0, slash))
      for (const ValidationRow& r : t.rows)
        if (r.id == id.substr(slash + 1) &&
            (oom_outcome ? (r.oom || r.measured.contains("step_time_s"))
             : memory    ? r.measured.contains("peak_mem_gb")
                         : r.measured.contains(to_string(primary_metric(t)))))
          return {&t, &r, oom_outcome, memory};
  throw InputError(where, fmt::format("'{}' is not a validation row with a measured {}", entry,
                                      oom_outcome ? "outcome (ran or out of memory)"
                                      : memory    ? "peak memory"
                                                  : "time"));
}

// Signed error in % of one calibration row's prediction.
double row_error(const CalibrationRow& c, const RowPrediction& r) {
  if (c.oom_outcome) {
    // Distance (in % of the usable memory) on the wrong side of a 5% band around it:
    // a run that failed should predict above 105%, one that ran below 95%.
    const MemoryReport& stage = r.report->stages.at(static_cast<size_t>(r.report->peak_memory_stage)).memory;
    const double fill = 100 * stage.peak / stage.usable;
    return c.row->oom ? std::max(0.0, 105 - fill) : std::max(0.0, fill - 95);
  }
  if (c.memory) {
    const double measured = c.row->measured.at("peak_mem_gb");
    return 100 * (r.metric(predicted_metric(CaseMetric::peak_memory, c.table->peak_memory)) - measured) / measured;
  }
  const CaseMetric metric = primary_metric(*c.table);
  const double measured = c.row->measured.at(to_string(metric));
  return 100 * (r.metric(predicted_metric(metric, c.table->peak_memory)) - measured) / measured;
}

std::string row_name(const CalibrationRow& c) {
  return c.table->id + "/" + c.row->id + (c.oom_outcome ? ":oom" : c.memory ? ":memory" : "");
}

// Golden-section search of `value` over the parameter's physical range (on a log scale where
// the registry says so), `loss` evaluated at each probe.
template <class Loss>
double golden_section(const ProfileParameter& p, double& value, Loss loss) {
  auto to = [&](double x) { return p.log_scale ? std::log(x) : x; };
  auto from = [&](double y) { return p.log_scale ? std::exp(y) : y; };
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = to(p.min), b = to(p.max);
  for (int iteration = 0; iteration < 24; ++iteration) {
    const double c = b - phi * (b - a), d = a + phi * (b - a);
    value = from(c);
    const double fc = loss();
    value = from(d);
    const double fd = loss();
    if (fc <= fd)
      b = d;
    else
      a = c;
  }
  value = from((a + b) / 2);
  return value;
}

// Each row's error under `trial`, the rows simulated `process.jobs` at a time (0: one per core),
// each in its own process; an error in a row's simulation is rethrown.
std::vector<double> row_errors(const std::vector<CalibrationRow>& rows, const DataPaths& trial,
                               const RowProcess& process) {
  std::vector<double> out(rows.size());
  std::vector<std::exception_ptr> failed(rows.size());
  const unsigned jobs = process.jobs > 0 ? process.jobs : std::max(1u, std::thread::hardware_concurrency());
  run_parallel(rows.size(), jobs, [&](size_t i) {
    try {
      out[i] = row_error(rows[i], RowPrediction::from_json(run_row_process_of(*rows[i].table, *rows[i].row, trial, process)));
    } catch (const ProcessTimeout&) {
      failed[i] = std::make_exception_ptr(LimitError(
          row_name(rows[i]), fmt::format("its simulation ran past --timeout {:g} s (give it more)", process.timeout_s)));
    } catch (...) {
      failed[i] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : failed)
    if (e)
      std::rethrow_exception(e);
  return out;
}

// What a calibration row measures under: its table and its row's overrides (and a transfer's
// size). Rows of one configuration (a time and a memory of one run, say) pin a parameter once.
std::string configuration(const CalibrationRow& c) {
  std::vector<std::string> set;
  for (const auto& [key, value] : c.row->set)
    set.push_back(key + "=" + value);
  std::sort(set.begin(), set.end());
  return fmt::format("{} {} {}", c.table->id, fmt::join(set, ","), c.row->bytes);
}

// The parameter's value moved by a tenth of its range (of its log range where it is searched so),
// towards the farther end: a probe of whether a row's prediction depends on it.
double probe_value(const ProfileParameter& p, double value) {
  auto to = [&](double x) { return p.log_scale ? std::log(x) : x; };
  auto from = [&](double y) { return p.log_scale ? std::exp(y) : y; };
  const double step = (to(p.max) - to(p.min)) / 10;
  const double y = to(std::clamp(value, p.min, p.max));
  return from(y + step <= to(p.max) ? y + step : y - step);
}

} // namespace

CalibrationSupport calibration_support(const std::string& name, const std::vector<ValidationTable>& tables,
                                       const DataPaths& data, const RowProcess& process) {
  const Profile profile = load_profile(data.profiles(), name, "--profile");
  const std::string& file = profile.file;
  if (profile.fitted.empty() || profile.calibration_rows.empty())
    throw InputError(file + ": calibration", "declares no fitted parameters or no calibration rows");
  std::vector<CalibrationRow> rows;
  for (const std::string& entry : profile.calibration_rows)
    rows.push_back(find_row(entry, tables, file + ": calibration.rows"));
  RowProcess resolved = process;
  resolved.executable = simgpt_executable(process.executable);
  auto errors = [&](const DataPaths& trial) { return row_errors(rows, trial, resolved); };
  const std::vector<double> at_value = errors(data);
  CalibrationSupport support;
  for (const std::string& key : profile.fitted) {
    const ProfileParameter& p = find_profile_parameter(key, file + ": calibration.fitted");
    DataPaths trial = data;
    trial.profile_overrides.emplace_back(key, probe_value(p, get_profile_parameter(profile, key)));
    const std::vector<double> probed = errors(trial);
    CalibrationSupport::Parameter& moved = support.parameters[key];
    std::set<std::string> configurations;
    for (size_t i = 0; i < rows.size(); ++i)
      if (std::abs(probed[i] - at_value[i]) > 1e-6) {
        moved.rows.push_back(row_name(rows[i]));
        configurations.insert(configuration(rows[i]));
      }
    moved.configurations = static_cast<int>(configurations.size());
  }
  return support;
}

void require_support(const CalibrationSupport& support, const std::string& where) {
  for (const auto& [key, moved] : support.parameters)
    if (static_cast<int>(moved.rows.size()) < kMinCalibrationRows || moved.configurations < kMinCalibrationConfigurations)
      throw InputError(where, fmt::format("{} moves {} of the declared rows ({}), of {} configuration(s): a fitted "
                                          "parameter needs at least {} rows of at least {} configurations (model "
                                          "sizes or settings) that move it, or it fits one table and not the next run",
                                          key, moved.rows.size(), moved.rows.empty() ? "none" : fmt::format("{}", fmt::join(moved.rows, ", ")),
                                          moved.configurations, kMinCalibrationRows, kMinCalibrationConfigurations));
}

CalibrationResult calibrate_profile(const std::string& name, const std::vector<ValidationTable>& tables,
                                    const DataPaths& data, const RowProcess& process) {
  const Profile profile = load_profile(data.profiles(), name, "--profile");
  const std::string& file = profile.file;
  require_support(calibration_support(name, tables, data, process), file + ": calibration");
  std::vector<CalibrationRow> rows;
  for (const std::string& entry : profile.calibration_rows)
    rows.push_back(find_row(entry, tables, file + ": calibration.rows"));

  DataPaths trial = data;
  for (const std::string& key : profile.fitted)
    trial.profile_overrides.emplace_back(key, get_profile_parameter(profile, key));
  RowProcess resolved = process;
  resolved.executable = simgpt_executable(process.executable);
  auto errors = [&] {
    const std::vector<double> e = row_errors(rows, trial, resolved);
    std::map<std::string, double> out;
    for (size_t i = 0; i < rows.size(); ++i)
      out[row_name(rows[i])] = e[i];
    return out;
  };
  auto loss = [&] {
    double sum = 0;
    for (const auto& [id, e] : errors())
      sum += e * e;
    return sum;
  };

  // Coordinate descent: parameters in turn, rounds until they settle (one suffices for one).
  CalibrationResult result;
  result.profile = name;
  result.file = file;
  const int rounds = trial.profile_overrides.size() > 1 ? 3 : 1;
  for (int round = 0; round < rounds; ++round)
    for (auto& [key, value] : trial.profile_overrides)
      result.fitted[key] = golden_section(find_profile_parameter(key, file + ": calibration.fitted"), value, loss);
  result.error_pct = errors();
  return result;
}

void check_fitted_writable(const std::string& profile, const DataPaths& data) {
  check_output_path(load_profile(data.profiles(), profile, "--profile").file, "calibrate --write");
}

void write_fitted(const CalibrationResult& result) {
  const std::string& path = result.file;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string out, line, section;
  std::istringstream lines(text.str());
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] != ' ' && line.find(':') != std::string::npos)
      section = line.substr(0, line.find(':'));
    for (const auto& [key, value] : result.fitted) {
      const auto dot = key.find('.');
      const std::string prefix = "  " + key.substr(dot + 1) + ":";
      if (section != key.substr(0, dot) || line.rfind(prefix, 0) != 0)
        continue;
      // In the unit the registry writes (ms, MB, Gbps, or none), which the loader reads back.
      const ProfileParameter& param = find_profile_parameter(key, path + ": calibration.fitted");
      line = prefix + fmt::format(" {:.4g}{}", value * param.per_si, param.unit);
    }
    out += line + "\n";
  }
  write_output_file(path, out, "calibrate --write");
}

} // namespace simgpt
