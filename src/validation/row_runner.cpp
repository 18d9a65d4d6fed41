#include "validation/row_runner.hpp"

#include "simgpt/core/error.hpp"
#include "core/parallel.hpp"
#include "core/progress_bar.hpp"
#include "core/units.hpp"
#include "report/report_json.hpp"
#include "validation/names.hpp"
#include "validation/table_platform.hpp"

#include <mutex>
#include <stdexcept>

namespace simgpt {
namespace {

constexpr NamedValue<PredictedMetric> kPredictedMetricNames[] = {
    {PredictedMetric::step_time_s, "step_time_s"},
    {PredictedMetric::transfer_s, "transfer_s"},
    {PredictedMetric::peak_memory_gib, "peak_memory_gib"},
    {PredictedMetric::peak_allocated_gib, "peak_allocated_gib"},
    {PredictedMetric::peak_reserved_gib, "peak_reserved_gib"},
};

// A transfer row's one message or collective, with the row's network settings.
double simulate_transfer_row(const ValidationTable& table, const ValidationRow& row, const DataPaths& data) {
  NetworkWhatIf network;
  for (const auto& [key, value] : row.set) {
    const std::string at = table.file + " (" + row.id + "): set." + key;
    try {
      if (key == "network.delay")
        network.delay_s = parse_duration(value);
      else if (key == "network.bandwidth")
        network.bandwidth_Bps = parse_bandwidth(value);
      else
        throw InputError(at, "a transfer row sets only network.delay and network.bandwidth");
    } catch (const std::invalid_argument& e) {
      throw InputError(at, e.what());
    }
  }
  const std::string platform = table_platform(table, data);
  if (!row.collective.empty())
    return simulate_collective(platform, row.collective, row.gpus, row.bytes, network, row.profile, data,
                               row.gpus_per_thread);
  return simulate_transfer(platform, 0, 1, row.bytes, network, row.profile, data);
}

} // namespace

CaseMetric primary_metric(const ValidationTable& table) {
  return table.kind == TableKind::transfer ? CaseMetric::transfer : CaseMetric::step_time;
}

PredictedMetric predicted_metric(CaseMetric metric, PeakMemory counted) {
  switch (metric) {
  case CaseMetric::step_time: return PredictedMetric::step_time_s;
  case CaseMetric::transfer: return PredictedMetric::transfer_s;
  case CaseMetric::peak_memory:
    return counted == PeakMemory::allocated  ? PredictedMetric::peak_allocated_gib
           : counted == PeakMemory::reserved ? PredictedMetric::peak_reserved_gib
                                             : PredictedMetric::peak_memory_gib;
  default: throw std::logic_error(std::string("no row metric ") + to_string(metric));
  }
}

nlohmann::ordered_json simulate_row(const ValidationTable& table, const ValidationRow& row, const DataPaths& data) {
  if (table.kind == TableKind::transfer)
    return {{"transfer_s", simulate_transfer_row(table, row, data)}, {"oom", false}};
  Workload w = parse_workload(table.workload_yaml, table.file + " (" + row.id + ")", row.set);
  // A measured run used the GPUs its split names, on the table's machine (vTrain's runs on 2 and 4
  // of a DGX A100's 8): the first of them, unless the table places the job itself.
  if (!w.placement.gpus && !w.parallelism.dp_from_platform)
    w.placement.gpus = w.gpus();
  SimulationOptions options;
  options.estimate_beside = true; // validate reports the estimate's error beside the replay's
  return report_json(simulate(table_platform(table, data), w, data, options));
}

std::string row_spec_json(const ValidationTable& table, const ValidationRow& row) {
  nlohmann::ordered_json set = nlohmann::ordered_json::array();
  for (const auto& [key, value] : row.set)
    set.push_back({key, value});
  const nlohmann::ordered_json spec = {
      {"table",
       {{"id", table.id},
        {"file", table.file},
        {"platform", table.platform},
        {"kind", table.kind == TableKind::transfer ? "transfer" : "workload"},
        {"workload", table.workload_yaml}}},
      {"row",
       {{"id", row.id},
        {"set", set},
        {"bytes", row.bytes},
        {"profile", row.profile},
        {"collective", row.collective},
        {"gpus", row.gpus},
        {"gpus_per_thread", row.gpus_per_thread}}}};
  return spec.dump();
}

RowPrediction RowPrediction::from_json(const nlohmann::ordered_json& j) {
  RowPrediction p;
  if (j.is_object() && j.contains("transfer_s") && j["transfer_s"].is_number())
    p.transfer_s = j["transfer_s"].get<double>();
  else
    p.report = report_from_json(j);
  return p;
}

double RowPrediction::metric(PredictedMetric metric) const {
  // GiB is a power of two, so bytes / GiB gives back the JSON's value exactly.
  constexpr double GiB = 1024.0 * 1024 * 1024;
  if (metric == PredictedMetric::transfer_s)
    return transfer_s;
  if (!report)
    throw std::logic_error(std::string("a transfer row has no ") + name_in(kPredictedMetricNames, metric));
  if (metric == PredictedMetric::peak_memory_gib)
    return report->peak_memory_bytes / GiB;
  if (metric == PredictedMetric::peak_allocated_gib)
    return report->peak_allocated_bytes / GiB;
  if (metric == PredictedMetric::peak_reserved_gib)
    return report->peak_reserved_bytes / GiB;
  return report->step_time_s;
}

void run_rows(std::vector<RowRun>& runs, const DataPaths& data, unsigned jobs, const RowProcess& process) {
  RowProcess resolved = process;
  resolved.executable = simgpt_executable(process.executable); // once, and before any thread starts
  std::mutex mutex;
  ProgressBar progress(static_cast<int64_t>(runs.size()), process.progress);
  run_parallel(runs.size(), jobs, [&](size_t i) {
    RowRun& run = runs[i];
    if (!run.row->flagged("not_reproducible") && !run.row->flagged("questionable")) {
      try {
        run.result = RowPrediction::from_json(run_row_process_of(*run.table, *run.row, data, resolved));
      } catch (const ProcessFailure& e) {
        run.error = e.what();
        run.process_failed = true;
      } catch (const std::exception& e) {
        run.error = e.what();
      }
    }
    const std::lock_guard lock(mutex);
    progress.advance();
  });
}

} // namespace simgpt
