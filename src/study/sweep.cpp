#include "simgpt/study/sweep.hpp"

#include "core/child_process.hpp"
#include "core/parallel.hpp"
#include "simgpt/core/error.hpp"
#include "study/point_process.hpp"
#include "study/progress_bar.hpp"
#include "study/sweep_file.hpp"
#include "study/sweep_output.hpp"

#include <fmt/format.h>


#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>

namespace simgpt {
namespace {

// The configuration's platform, workload and overrides, simulated in a `simgpt point` process.
SweepResult simulate_point(const Sweep& sweep, const SweepRun& run, const std::vector<std::string>& keys,
                           int64_t config) {
  SweepResult r;
  r.config = config;
  r.inputs = sweep.grid.values(config);
  std::string platform = sweep.platform, workload = sweep.workload;
  std::vector<std::string> sets = sweep.sets;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (r.inputs[k] == kDefaultValue)
      continue;
    if (keys[k] == "platform")
      platform = r.inputs[k];
    else if (keys[k] == "workload")
      workload = r.inputs[k];
    else
      sets.push_back(keys[k] + "=" + r.inputs[k]);
  }
  PointOutcome outcome = run_point(platform, workload, sets, PointProcess{run.executable, run.data_dir, run.timeout_s, run.fidelity});
  r.status = std::move(outcome.status);
  r.report = std::move(outcome.report);
  r.reason = std::move(outcome.reason);
  return r;
}

} // namespace

SweepSummary run_sweep(const Sweep& sweep, const SweepRun& run) {
  if (sweep.shards < 1 || sweep.shard < 1 || sweep.shard > sweep.shards)
    throw InputError("--shard", fmt::format("expected I/N with 1 <= I <= N, not {}/{}", sweep.shard, sweep.shards));
  const std::vector<std::string> keys = sweep.grid.keys();
  const int64_t total = sweep.grid.size();
  // The k-th configuration of this shard.
  const auto config_of = [&](int64_t k) { return k * sweep.shards + (sweep.shard - 1); };
  SweepSummary summary;
  summary.configurations = total <= sweep.shard - 1 ? 0 : (total - sweep.shard) / sweep.shards + 1;
  SweepFile file(run.output, run.format == SweepFormat::csv ? sweep_csv_header(keys) : "",
                 [&](int64_t k, const std::string& line) {
                   return k < summary.configurations &&
                          sweep_line_is_of(line, config_of(k), sweep.grid.values(config_of(k)), keys, run.format);
                 });
  summary.already_written = file.lines_kept();
  SweepRun resolved = run;
  resolved.executable = simgpt_executable(run.executable); // once, before any thread starts
  const int64_t first = summary.already_written;
  const auto remaining = static_cast<size_t>(summary.configurations - first);

  // Results arrive in any order and are written in configuration order, so that the file is a
  // prefix of the whole sweep's whatever the interruption.
  std::mutex mutex;
  std::map<int64_t, SweepResult> ready;
  int64_t next_to_write = first;
  ProgressBar progress(static_cast<int64_t>(remaining), run.progress);
  std::string write_error;
  run_parallel(remaining, run.jobs, [&](size_t i) {
    SweepResult r = simulate_point(sweep, resolved, keys, config_of(first + static_cast<int64_t>(i)));
    const std::lock_guard lock(mutex);
    summary.statuses[r.status] += 1;
    ready.emplace(first + static_cast<int64_t>(i), std::move(r));
    progress.advance();
    for (auto it = ready.find(next_to_write); it != ready.end() && write_error.empty();
         it = ready.find(next_to_write)) {
      try {
        file.append(sweep_line(it->second, keys, run.format));
      } catch (const InputError& e) {
        write_error = e.what(); // the workers finish; nothing more is written
      }
      ready.erase(it);
      ++next_to_write;
    }
  });
  if (!write_error.empty())
    throw InputError(run.output, write_error);
  return summary;
}

int64_t merge_sweep_parts(const std::vector<std::string>& parts, const std::string& output) {
  if (parts.empty())
    throw InputError("sweep merge", "name the parts to merge");
  std::string header;
  std::map<int64_t, std::string> lines;
  std::optional<SweepFormat> format;
  for (const std::string& part : parts) {
    size_t complete = 0;
    std::vector<std::string> text = read_complete_lines(part, complete);
    if (text.empty())
      continue;
    const SweepFormat f = text.front().starts_with("{") ? SweepFormat::jsonl : SweepFormat::csv;
    if (format && *format != f)
      throw InputError(part, "is of another format than the parts before it (CSV and JSON lines mixed)");
    format = f;
    size_t i = 0;
    if (f == SweepFormat::csv) {
      if (!header.empty() && text.front() != header)
        throw InputError(part, "holds another sweep's columns than the parts before it");
      header = text.front();
      i = 1;
    }
    for (; i < text.size(); ++i) {
      const std::optional<int64_t> config = sweep_line_config(text[i], f);
      if (!config)
        throw InputError(fmt::format("{}:{}", part, i + 1), "is not a line a sweep writes");
      const auto [at, added] = lines.emplace(*config, text[i]);
      if (!added && at->second != text[i])
        throw InputError(fmt::format("{}:{}", part, i + 1),
                         fmt::format("configuration {} is in two parts with different results", *config));
    }
  }
  std::string all = header.empty() ? "" : header + "\n";
  for (const auto& [config, line] : lines)
    all += line + "\n";
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out << all;
  out.close();
  if (!out)
    throw InputError(output, "cannot be written");
  return static_cast<int64_t>(lines.size());
}

} // namespace simgpt
