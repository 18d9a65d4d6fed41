#include "simgpt/validation/calibration.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/core/output_file.hpp"
#include "core/parallel.hpp"
#include "core/progress_bar.hpp"
#include "process/child_process.hpp"
#include "validation/calibration_rows.hpp"
#include "validation/row_runner.hpp"
#include "simgpt/framework/parameters.hpp"
#include "simgpt/framework/profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace simgpt {
namespace {

// Probes of one golden-section search: two per iteration.
constexpr int kGoldenIterations = 24;
constexpr int64_t kProbesPerSearch = 2 * kGoldenIterations;

// Golden-section search of `value` over the parameter's physical range (on a log scale where
// the registry says so), `loss` evaluated at each probe.
template <class Loss>
double golden_section(const ProfileParameter& p, double& value, Loss loss) {
  auto to = [&](double x) { return p.log_scale ? std::log(x) : x; };
  auto from = [&](double y) { return p.log_scale ? std::exp(y) : y; };
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = to(p.min), b = to(p.max);
  for (int iteration = 0; iteration < kGoldenIterations; ++iteration) {
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

// Coordinate descent: parameters in turn, rounds until they settle (one suffices for one).
int descent_rounds(size_t parameters) { return parameters > 1 ? 3 : 1; }

// The calibration rows' simulations under trial profile values: each row of a table simulated
// once per trial however many of its measurements are judged (a time and a peak memory), the
// runs `process.jobs` at a time (0: one per core), each in its own process. `trials` is how many
// trials the command runs, the length of its progress bar (drawn when process.progress says so).
class RowTrials {
public:
  RowTrials(std::vector<CalibrationRow> rows, const RowProcess& process, int64_t trials)
      : rows_(std::move(rows)), process_(process), runs_(distinct_runs(rows_, run_of_)),
        progress_(trials * static_cast<int64_t>(runs_.size()), process.progress) {
    process_.executable = simgpt_executable(process.executable); // once, before any thread starts
  }

  const std::vector<CalibrationRow>& rows() const { return rows_; }

  // Each row's error under `trial`; an error in a run's simulation is rethrown.
  std::vector<double> errors(const DataPaths& trial) {
    std::vector<std::optional<RowPrediction>> predicted(runs_.size());
    std::vector<std::exception_ptr> failed(runs_.size());
    const unsigned jobs = process_.jobs > 0 ? process_.jobs : std::max(1u, std::thread::hardware_concurrency());
    run_parallel(runs_.size(), jobs, [&](size_t i) {
      const CalibrationRow& run = runs_[i];
      try {
        predicted[i] = RowPrediction::from_json(run_row_process_of(*run.table, *run.row, trial, process_));
      } catch (const ProcessTimeout&) {
        failed[i] = std::make_exception_ptr(
            LimitError(run.table->id + "/" + run.row->id,
                       fmt::format("its simulation ran past --timeout {:g} s (give it more)", process_.timeout_s)));
      } catch (...) {
        failed[i] = std::current_exception();
      }
      const std::lock_guard lock(mutex_);
      progress_.advance();
    });
    for (const std::exception_ptr& e : failed)
      if (e)
        std::rethrow_exception(e);
    std::vector<double> out(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i)
      out[i] = calibration_row_error(rows_[i], *predicted[run_of_[i]]);
    return out;
  }

  // Each row's error under `trial`, by its name.
  std::map<std::string, double> named_errors(const DataPaths& trial) { return named(errors(trial)); }

  std::map<std::string, double> named(const std::vector<double>& errors) const {
    std::map<std::string, double> out;
    for (size_t i = 0; i < rows_.size(); ++i)
      out[calibration_row_name(rows_[i])] = errors[i];
    return out;
  }

private:
  // The distinct (table, row) pairs of `rows`, in their first order; run_of[i]: rows[i]'s.
  static std::vector<CalibrationRow> distinct_runs(const std::vector<CalibrationRow>& rows,
                                                   std::vector<size_t>& run_of) {
    std::vector<CalibrationRow> runs;
    for (const CalibrationRow& r : rows) {
      auto same = std::find_if(runs.begin(), runs.end(), [&](const CalibrationRow& x) { return x.row == r.row; });
      run_of.push_back(static_cast<size_t>(same - runs.begin()));
      if (same == runs.end())
        runs.push_back({r.table, r.row, false, false});
    }
    return runs;
  }

  std::vector<CalibrationRow> rows_;
  std::vector<size_t> run_of_;
  RowProcess process_;
  std::vector<CalibrationRow> runs_;
  std::mutex mutex_;
  ProgressBar progress_;
};

// The parameter's value moved by a tenth of its range (of its log range where it is searched so),
// towards the farther end: a probe of whether a row's prediction depends on it.
double probe_value(const ProfileParameter& p, double value) {
  auto to = [&](double x) { return p.log_scale ? std::log(x) : x; };
  auto from = [&](double y) { return p.log_scale ? std::exp(y) : y; };
  const double step = (to(p.max) - to(p.min)) / 10;
  const double y = to(std::clamp(value, p.min, p.max));
  return from(y + step <= to(p.max) ? y + step : y - step);
}

// A profile with what it is fitted on: `rows` when given (calibrate --table), else its declared
// calibration.rows.
struct Fit {
  std::string file; // the profile's
  Profile profile;
  std::vector<CalibrationRow> rows;
  std::string where; // what the rows are named by in messages
};

Fit load_fit(const std::string& name, const std::vector<ValidationTable>& tables, const DataPaths& data,
             const std::optional<std::vector<std::string>>& rows) {
  Fit fit;
  fit.profile = load_profile(data.profiles(), name, "--profile");
  fit.file = fit.profile.file; // the first data folder's that has it
  if (fit.profile.fitted.empty())
    throw InputError(fit.file + ": calibration.fitted", "declares no fitted parameters: nothing to calibrate");
  if (!rows && fit.profile.calibration_rows.empty())
    throw InputError(fit.file + ": calibration.rows",
                     "declares no calibration rows (give measured rows of your own with --table FILE)");
  fit.where = rows ? "--table" : fit.file + ": calibration.rows";
  for (const std::string& entry : rows ? *rows : fit.profile.calibration_rows)
    fit.rows.push_back(find_calibration_row(entry, tables, fit.where));
  return fit;
}

// What pins each parameter (calibration_support), and each row's error at the profile's values.
CalibrationSupport support_of(const Fit& fit, RowTrials& trials, const DataPaths& data,
                              std::vector<double>& at_value) {
  at_value = trials.errors(data);
  CalibrationSupport support;
  for (const std::string& key : fit.profile.fitted) {
    const ProfileParameter& p = find_profile_parameter(key, fit.file + ": calibration.fitted");
    DataPaths trial = data;
    trial.profile_overrides.emplace_back(key, probe_value(p, get_profile_parameter(fit.profile, key)));
    const std::vector<double> probed = trials.errors(trial);
    CalibrationSupport::Parameter& moved = support.parameters[key];
    std::set<std::string> configurations;
    for (size_t i = 0; i < fit.rows.size(); ++i)
      if (std::abs(probed[i] - at_value[i]) > 1e-6) {
        moved.rows.push_back(calibration_row_name(fit.rows[i]));
        configurations.insert(calibration_configuration(fit.rows[i]));
      }
    moved.configurations = static_cast<int>(configurations.size());
  }
  return support;
}

// Trials of the support check: the profile's values, then each parameter probed.
int64_t support_trials(const Fit& fit) { return 1 + static_cast<int64_t>(fit.profile.fitted.size()); }

} // namespace

CalibrationSupport calibration_support(const std::string& name, const std::vector<ValidationTable>& tables,
                                       const DataPaths& data, const RowProcess& process,
                                       const std::optional<std::vector<std::string>>& rows) {
  const Fit fit = load_fit(name, tables, data, rows);
  RowTrials trials(fit.rows, process, support_trials(fit));
  std::vector<double> at_value;
  return support_of(fit, trials, data, at_value);
}

void require_support(const CalibrationSupport& support, const std::string& where) {
  for (const auto& [key, moved] : support.parameters)
    if (static_cast<int>(moved.rows.size()) < kMinCalibrationRows || moved.configurations < kMinCalibrationConfigurations)
      throw InputError(where, fmt::format("{} moves {} of the rows fitted on ({}), of {} configuration(s): a fitted "
                                          "parameter needs at least {} rows of at least {} configurations (model "
                                          "sizes or settings) that move it, or it fits one table and not the next run",
                                          key, moved.rows.size(), moved.rows.empty() ? "none" : fmt::format("{}", fmt::join(moved.rows, ", ")),
                                          moved.configurations, kMinCalibrationRows, kMinCalibrationConfigurations));
}

CalibrationResult calibrate_profile(const std::string& name, const std::vector<ValidationTable>& tables,
                                    const DataPaths& data, const RowProcess& process,
                                    const std::optional<std::vector<std::string>>& rows) {
  const Fit fit = load_fit(name, tables, data, rows);
  const auto parameters = static_cast<int64_t>(fit.profile.fitted.size());
  const int rounds = descent_rounds(fit.profile.fitted.size());
  // The support check, each search's probes, and the errors at the fit.
  RowTrials trials(fit.rows, process, support_trials(fit) + rounds * parameters * kProbesPerSearch + 1);
  std::vector<double> at_value;
  require_support(support_of(fit, trials, data, at_value), rows ? "--table" : fit.file + ": calibration");

  DataPaths trial = data;
  for (const std::string& key : fit.profile.fitted)
    trial.profile_overrides.emplace_back(key, get_profile_parameter(fit.profile, key));
  auto loss = [&] {
    double sum = 0;
    for (const double e : trials.errors(trial))
      sum += e * e;
    return sum;
  };
  CalibrationResult result;
  result.profile = name;
  result.file = fit.file;
  for (int round = 0; round < rounds; ++round)
    for (auto& [key, value] : trial.profile_overrides)
      result.fitted[key] = golden_section(find_profile_parameter(key, fit.file + ": calibration.fitted"), value, loss);
  result.error_before_pct = trials.named(at_value);
  result.error_pct = trials.named_errors(trial);
  return result;
}

void check_fitted_writable(const std::string& profile, const DataPaths& data, const std::vector<std::string>& inputs) {
  check_output_path(load_profile(data.profiles(), profile, "--profile").file, "calibrate --write", inputs);
}

void write_fitted(const CalibrationResult& result, const std::vector<std::string>& inputs) {
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
  write_output_file(path, out, "calibrate --write", inputs);
}

} // namespace simgpt
