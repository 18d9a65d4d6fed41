#include "simgpt/validation/calibration.hpp"

#include "simgpt/core/error.hpp"
#include "validation/spawn.hpp"
#include "simgpt/framework/parameters.hpp"
#include "simgpt/framework/profile.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace simgpt {
CalibrationResult calibrate_profile(const std::string& name, const std::vector<ValidationTable>& tables,
                                    const DataPaths& data, const RowProcess& process) {
  const Profile profile = load_profile(data.profiles(), name, "--profile");
  if (profile.fitted.empty() || profile.calibration_rows.empty())
    throw InputError(data.profiles() + "/" + name + ".yaml: calibration",
                     "declares no fitted parameters or no calibration rows");
  // A row is judged on its measured time; named "table/row:memory", on its measured peak memory;
  // named "table/row:oom", on whether it ran out of memory (a run with a measured time did not).
  struct CalibrationRow {
    const ValidationTable* table;
    const ValidationRow* row;
    bool oom_outcome;
    bool memory;
  };
  std::vector<CalibrationRow> rows;
  for (const std::string& name_in_profile : profile.calibration_rows) {
    const bool oom_outcome = name_in_profile.ends_with(":oom");
    const bool memory = name_in_profile.ends_with(":memory");
    const std::string id =
        oom_outcome || memory ? name_in_profile.substr(0, name_in_profile.rfind(':')) : name_in_profile;
    const auto slash = id.find('/');
    const ValidationRow* found = nullptr;
    const ValidationTable* in = nullptr;
    for (const ValidationTable& t : tables)
      if (t.id == id.substr(0, slash))
        for (const ValidationRow& r : t.rows)
          if (r.id == id.substr(slash + 1) &&
              (oom_outcome ? (r.oom || r.measured.contains("step_time_s"))
               : memory    ? r.measured.contains("peak_mem_gb")
                           : r.measured.contains(primary_metric(t)))) {
            found = &r;
            in = &t;
          }
    if (found == nullptr)
      throw InputError(data.profiles() + "/" + name + ".yaml: calibration.rows",
                       fmt::format("'{}' is not a validation row with a measured {}", name_in_profile,
                                   oom_outcome ? "outcome (ran or out of memory)"
                                   : memory    ? "peak memory"
                                               : "time"));
    rows.push_back({in, found, oom_outcome, memory});
  }

  CalibrationResult result;
  result.profile = name;
  DataPaths trial = data;
  for (const std::string& key : profile.fitted)
    trial.profile_overrides.emplace_back(key, get_profile_parameter(profile, key));

  RowProcess resolved = process;
  resolved.executable = simgpt_executable(process);
  auto errors = [&](const DataPaths& d) {
    std::map<std::string, double> out;
    for (const auto& [table, row, oom_outcome, memory] : rows) {
      const RowPrediction r = RowPrediction::from_json(run_row_process(*table, *row, d, resolved));
      const std::string id = table->id + "/" + row->id;
      if (oom_outcome) {
        // Distance (in % of the usable memory) on the wrong side of a 5% band around it:
        // a run that failed should predict above 105%, one that ran below 95%.
        const MemoryReport& stage = r.report->stages.at(static_cast<size_t>(r.report->peak_memory_stage)).memory;
        const double fill = 100 * stage.peak / stage.usable;
        out[id + ":oom"] = row->oom ? std::max(0.0, 105 - fill) : std::max(0.0, fill - 95);
        continue;
      }
      if (memory) {
        const double measured = row->measured.at("peak_mem_gb");
        const char* key = table->peak_memory == "allocated" ? "peak_allocated_gib" : "peak_memory_gib";
        out[id + ":memory"] = 100 * (r.metric(key) - measured) / measured;
        continue;
      }
      const char* metric = primary_metric(*table);
      const double measured = row->measured.at(metric);
      out[id] = 100 * (r.metric(metric) - measured) / measured;
    }
    return out;
  };
  auto loss = [&](const DataPaths& d) {
    double sum = 0;
    for (const auto& [id, e] : errors(d))
      sum += e * e;
    return sum;
  };

  // Coordinate descent: parameters in turn, rounds until they settle (one suffices for one).
  const int rounds = trial.profile_overrides.size() > 1 ? 3 : 1;
  for (int round = 0; round < rounds; ++round)
  for (auto& [key, value] : trial.profile_overrides) {
    // Within the parameter's physical range (framework/parameters.cpp).
    const ProfileParameter& r = find_profile_parameter(key, data.profiles() + "/" + name + ".yaml: calibration.fitted");
    auto to = [&](double x) { return r.log_scale ? std::log(x) : x; };
    auto from = [&](double y) { return r.log_scale ? std::exp(y) : y; };
    const double phi = (std::sqrt(5.0) - 1) / 2;
    double a = to(r.min), b = to(r.max);
    for (int iteration = 0; iteration < 24; ++iteration) {
      const double c = b - phi * (b - a), d = a + phi * (b - a);
      value = from(c);
      const double fc = loss(trial);
      value = from(d);
      const double fd = loss(trial);
      if (fc <= fd)
        b = d;
      else
        a = c;
    }
    value = from((a + b) / 2);
    result.fitted[key] = value;
  }
  result.error_pct = errors(trial);
  return result;
}

void write_fitted(const CalibrationResult& result, const DataPaths& data) {
  const std::string path = data.profiles() + "/" + result.profile + ".yaml";
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
  std::ofstream(path) << out;
}

} // namespace simgpt
