#include "simgpt/study/sweep.hpp"

#include "process/child_process.hpp"
#include "core/input_file.hpp"
#include "simgpt/core/output_file.hpp"
#include "core/parallel.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"
#include "process/point_process.hpp"
#include "core/progress_bar.hpp"
#include "core/utf8.hpp"
#include "study/sweep_file.hpp"
#include "study/sweep_output.hpp"
#include "core/digest.hpp"
#include "workload/resolved_workload.hpp"
#include "simgpt/core/version.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/study/draws.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <stdexcept>

namespace simgpt {
namespace {

// A configuration's platform, workload and overrides: the sweep's, then the grid's values.
struct PointInputs {
  std::string platform, workload;
  std::vector<std::string> sets;
};

PointInputs point_inputs(const Sweep& sweep, const std::vector<std::string>& keys,
                         const std::vector<std::string>& values) {
  PointInputs p{sweep.platform, sweep.workload, sweep.sets};
  for (size_t k = 0; k < keys.size(); ++k) {
    if (values[k] == kDefaultValue)
      continue;
    if (keys[k] == "platform")
      p.platform = values[k];
    else if (keys[k] == "workload")
      p.workload = values[k];
    else
      p.sets.push_back(keys[k] + "=" + values[k]);
  }
  return p;
}

// The values `key` takes in the grid (empty when it is not swept).
std::vector<std::string> swept_values(const SweepGrid& grid, const std::string& key) {
  for (const SweepAxis& axis : grid.axes)
    for (size_t k = 0; k < axis.keys.size(); ++k)
      if (axis.keys[k] == key)
        return axis.values[k];
  return {};
}

// Whether some configuration uses the sweep's own --platform (or --workload): the key is not
// swept, or one of its values is `default`.
bool uses_fixed(const SweepGrid& grid, const std::string& key) {
  const std::vector<std::string> values = swept_values(grid, key);
  return values.empty() || std::find(values.begin(), values.end(), kDefaultValue) != values.end();
}

// Inputs that would make every configuration invalid are bad input, refused before any
// simulation: a missing platform, a workload that does not load, a --set it refuses. A swept value
// that makes some configurations invalid is a result, written as their status. The workload
// with the --set overrides alone may fail where the grid's values repair it (--set
// training.micro_batch=3 with a swept global batch), so a failure counts as the fixed inputs'
// only when the first configuration fails with the same message.
void check_fixed_inputs(const Sweep& sweep, const std::vector<std::string>& keys) {
  if (uses_fixed(sweep.grid, "platform"))
    check_input_file(sweep.platform, "platform");
  if (!uses_fixed(sweep.grid, "workload"))
    return;
  try {
    (void)load_workload(sweep.workload, parse_overrides(sweep.sets));
  } catch (const InputError& fixed) {
    const PointInputs first = point_inputs(sweep, keys, sweep.grid.values(0));
    try {
      (void)load_workload(first.workload, parse_overrides(first.sets));
    } catch (const InputError& e) {
      if (std::string(e.what()) == fixed.what())
        throw;
    }
  }
}

// What the sweep is of, as the text its digest is taken of: the content of its workload and
// platform files (and of those the grid sweeps), the --set overrides, the grid and the fidelity.
// Each piece is prefixed with its length, so no two sweeps give one text.
std::string sweep_identity(const Sweep& sweep, const SweepRun& run) {
  std::string text = "simgpt sweep 1\n";
  const auto add = [&](std::string_view name, std::string_view value) {
    text += fmt::format("{} {}:", name, value.size());
    text += value;
    text += '\n';
  };
  // A file that cannot be read is part of the identity by its message: its configurations are
  // invalid, and the sweep is another one once it can be read.
  const auto add_file = [&](std::string_view name, const std::string& path, const char* kind,
                            std::uintmax_t max_bytes) {
    try {
      add(name, read_input_file(path, kind, max_bytes));
    } catch (const InputError& e) {
      add(std::string(name) + " unreadable", e.what());
    }
  };
  add_file("workload", sweep.workload, "workload", kMaxYamlFileBytes);
  add_file("platform", sweep.platform, "platform", kMaxInputFileBytes);
  for (const std::string& s : sweep.sets)
    add("set", s);
  add("fidelity", run.fidelity.empty() ? "symmetric" : run.fidelity);
  if (run.draws > 0) // none: the identity of a sweep before draws existed
    add("draws", std::to_string(run.draws));
  for (const SweepAxis& axis : sweep.grid.axes) {
    add("axis", std::to_string(axis.keys.size()));
    for (size_t k = 0; k < axis.keys.size(); ++k) {
      add("key", axis.keys[k]);
      for (const std::string& v : axis.values[k])
        add("value", v);
      if (axis.keys[k] == "platform" || axis.keys[k] == "workload") {
        const bool platform = axis.keys[k] == "platform";
        for (const std::string& v : std::set<std::string>(axis.values[k].begin(), axis.values[k].end()))
          if (v != kDefaultValue)
            add_file("file " + v, v, platform ? "platform" : "workload",
                     platform ? kMaxInputFileBytes : kMaxYamlFileBytes);
      }
    }
  }
  return text;
}

// Whether the configuration draws slow GPUs at random (conditions.random_fraction above 0). One
// whose workload does not load is simulated, which says why.
bool draws_gpus(const PointInputs& p) {
  try {
    return load_workload(p.workload, parse_overrides(p.sets)).conditions.random_fraction > 0;
  } catch (const InputError&) {
    return false;
  }
}

// A configuration's draws, one after another (the sweep runs configurations `jobs` at a time): the
// median draw's report with the percentiles beside it (SweepColumns::draws). Throws as run_draws.
nlohmann::ordered_json drawn_report(const PointInputs& p, const SweepRun& run) {
  const DrawSummary d = run_draws(DrawRequest{.platform = p.platform, .workload = p.workload, .sets = p.sets,
                                              .draws = run.draws, .jobs = 1, .executable = run.executable,
                                              .data_folders = run.data_folders, .fidelity = run.fidelity,
                                              .timeout_s = run.timeout_s});
  if (!d.median_report.is_object())
    throw std::runtime_error("the median draw, simulated again, gave no report");
  nlohmann::ordered_json report = d.median_report;
  report["draws"] = {{"median_s", d.median_s}, {"p90_s", d.p90_s}, {"p99_s", d.p99_s}};
  if (d.baseline_s > 0)
    report["draws"]["baseline_s"] = d.baseline_s;
  return report;
}

// The configuration simulated in a `simgpt point` process, or over its draws (SweepRun::draws).
// One that draws no GPU (a sweep's point of conditions.random_fraction 0) is one simulation,
// every percentile its step.
SweepResult simulate_point(const Sweep& sweep, const SweepRun& run, const std::vector<std::string>& keys,
                           int64_t config) {
  SweepResult r;
  r.config = config;
  r.inputs = sweep.grid.values(config);
  const PointInputs p = point_inputs(sweep, keys, r.inputs);
  if (run.draws > 0 && draws_gpus(p)) {
    try {
      r.report = drawn_report(p, run);
      r.status = r.report.value("oom", false) ? "oom" : "ok";
    } catch (const InputError& e) {
      r.status = "invalid";
      r.reason = e.what();
    } catch (const std::exception& e) {
      r.status = "failed";
      r.reason = one_line(e.what(), 1024);
    }
    return r;
  }
  PointOutcome outcome =
      run_point(p.platform, p.workload, p.sets,
                PointProcess{run.executable, run.data_folders, run.timeout_s, run.fidelity, run.memory_limit_bytes});
  r.status = std::move(outcome.status);
  r.report = std::move(outcome.report);
  r.reason = std::move(outcome.reason);
  if (run.draws > 0 && r.report.is_object() && r.report.contains("step_time_s")) {
    const double t = r.report["step_time_s"].get<double>();
    r.report["draws"] = {{"median_s", t}, {"p90_s", t}, {"p99_s", t}, {"baseline_s", t}};
  }
  return r;
}

// The files a sweep reads, which its output must not be.
std::vector<std::string> sweep_inputs(const Sweep& sweep) {
  std::vector<std::string> inputs{sweep.platform, sweep.workload};
  for (const char* key : {"platform", "workload"})
    for (const std::string& v : swept_values(sweep.grid, key))
      if (v != kDefaultValue)
        inputs.push_back(v);
  return inputs;
}

// The CSV's first line, a comment saying what the sweep was made with: simgpt's version, the
// platform, workload, profile and GPU catalog files its fixed configuration reads, each with its
// SHA-256 (as the JSON report's `inputs`), the --set overrides and the workload they resolve to
// (as JSON, before the grid's values). A file that cannot be read or
// found is left out (its configurations say why).
std::string sweep_csv_comment(const Sweep& sweep, const SweepRun& run) {
  struct File {
    const char* role;
    std::string path, name; // name: as the line shows it
  };
  std::vector<File> files{{"platform", sweep.platform, sweep.platform}, {"workload", sweep.workload, sweep.workload}};
  std::string resolved; // the workload after --set, before the grid's values
  try {
    const DataPaths data = data_paths_at(run.data_folders);
    const Workload w = load_workload(sweep.workload, parse_overrides(sweep.sets));
    resolved = resolved_workload_json(w).dump();
    if (const std::string profile = data.find("profiles/" + w.framework + ".yaml"); !profile.empty())
      files.push_back({"profile", profile, data_file_name(profile, "profiles")});
    for (const std::string& catalog : data.catalog())
      files.push_back({"gpu_catalog", catalog, data_file_name(catalog, "platforms")});
  } catch (const InputError&) {
  }
  std::string comment = fmt::format("# simgpt {} sweep", version());
  for (const File& f : files) {
    try {
      comment += fmt::format("; {} {} {}", f.role, f.name, file_digest(f.path));
    } catch (const InputError&) {
    }
  }
  for (const std::string& set : sweep.sets)
    comment += "; --set " + set;
  if (!resolved.empty())
    comment += "; resolved_workload " + resolved;
  return one_line(comment, std::string::npos) + "\n";
}

// The k-th configuration of this shard.
int64_t shard_config(const Sweep& sweep, int64_t k) { return k * sweep.shards + (sweep.shard - 1); }

// What a line the file already holds must be to be kept: this sweep's (digest and size), the
// shard's k-th configuration, with that configuration's inputs.
SweepFileExpectation kept_lines(const Sweep& sweep, const SweepRun& run, const SweepColumns& columns,
                                const std::string& digest, int64_t lines) {
  const int64_t total = sweep.grid.size();
  SweepFileExpectation expect;
  expect.header = run.format == SweepFormat::csv ? sweep_csv_comment(sweep, run) + sweep_csv_header(columns) : "";
  expect.max_lines = lines;
  expect.check_line = [&sweep, columns, digest, total, format = run.format](int64_t k, std::string_view line) {
    const SweepResult r = parse_sweep_line(line, columns, format);
    if (r.digest != digest || r.configurations != total)
      throw InputError("", fmt::format("is a line of another sweep (sweep_digest {}, this sweep's is {}: another "
                                       "workload, platform, --set, grid or --fidelity): remove the file, or write "
                                       "this sweep with another -o",
                                       r.digest, digest));
    const int64_t config = shard_config(sweep, k);
    if (r.config != config)
      throw InputError("", fmt::format("is configuration {}, where this shard's next is {} (another --shard wrote "
                                       "the file?): remove it, or write this sweep with another -o",
                                       r.config, config));
    if (r.inputs != sweep.grid.values(config))
      throw InputError("", fmt::format("its inputs are not configuration {}'s (the line was edited): remove it, or "
                                       "write this sweep with another -o",
                                       config));
  };
  expect.line_start = [&sweep, columns, format = run.format](int64_t k) {
    return sweep_line_start(shard_config(sweep, k), sweep.grid.values(shard_config(sweep, k)), columns, format);
  };
  return expect;
}

// Simulates the shard's configurations from the `first` not yet written, `run.jobs` at a time.
// Results arrive in any order and are written in configuration order, so that the file is a
// prefix of the whole sweep's whatever the interruption.
void simulate_in_order(const Sweep& sweep, const SweepRun& run, const SweepColumns& columns,
                       const std::string& digest, int64_t first, SweepFile& file, SweepSummary& summary) {
  SweepRun resolved = run;
  resolved.executable = simgpt_executable(run.executable); // once, before any thread starts
  const auto remaining = static_cast<size_t>(summary.configurations - first);
  std::mutex mutex;
  std::map<int64_t, SweepResult> ready;
  int64_t next_to_write = first;
  ProgressBar progress(static_cast<int64_t>(remaining), run.progress);
  std::string write_error;
  std::atomic<bool> stopped{false}; // a write failed: no simulation starts after it
  run_parallel(remaining, run.jobs, [&](size_t i) {
    if (stopped.load())
      return;
    SweepResult r =
        simulate_point(sweep, resolved, columns.keys, shard_config(sweep, first + static_cast<int64_t>(i)));
    r.configurations = sweep.grid.size();
    r.digest = digest;
    const std::lock_guard lock(mutex);
    if (!write_error.empty())
      return;
    summary.statuses[r.status] += 1;
    ready.emplace(first + static_cast<int64_t>(i), std::move(r));
    progress.advance();
    for (auto it = ready.find(next_to_write); it != ready.end(); it = ready.find(next_to_write)) {
      try {
        file.append(sweep_line(it->second, columns, run.format));
      } catch (const InputError& e) {
        write_error = e.what(); // the simulations running finish; none starts, nothing more is written
        stopped = true;
        return;
      }
      ready.erase(it);
      ++next_to_write;
    }
  });
  if (!write_error.empty())
    throw InputError("", write_error);
}

} // namespace

SweepSummary run_sweep(const Sweep& sweep, const SweepRun& run) {
  if (sweep.shards < 1 || sweep.shards > kMaxSweepShards || sweep.shard < 1 || sweep.shard > sweep.shards)
    throw InputError("--shard", fmt::format("expected I/N with 1 <= I <= N <= {}, not {}/{}", kMaxSweepShards,
                                            sweep.shard, sweep.shards));
  for (const std::string& s : sweep.sets)
    if (!is_printable_utf8(s))
      throw InputError("--set " + echo(s.substr(0, s.find('='))),
                       "the value is not UTF-8 text without control characters");
  if (run.draws < 0 || run.draws > kMaxDraws)
    throw InputError("--draws", fmt::format("{} is out of range (expected 1 to {})", run.draws, kMaxDraws));
  SweepColumns columns = sweep_columns(sweep.grid);
  columns.draws = run.draws > 0;
  const int64_t total = sweep.grid.size();
  const std::vector<std::string> inputs = sweep_inputs(sweep);
  check_output_path(run.output, "-o", inputs); // before the inputs are read: /dev/full, a FIFO
  check_fixed_inputs(sweep, columns.keys);
  const std::string digest = sweep_digest(sweep_identity(sweep, run));
  SweepSummary summary;
  summary.configurations = total <= sweep.shard - 1 ? 0 : (total - sweep.shard) / sweep.shards + 1;
  SweepFile file(run.output, inputs, kept_lines(sweep, run, columns, digest, summary.configurations));
  summary.already_written = file.lines_kept();
  simulate_in_order(sweep, run, columns, digest, summary.already_written, file, summary);
  return summary;
}

namespace {

// One part of a merge, read a line at a time: parts are in configuration order, so they are
// merged as sorted lists, in memory growing with the number of parts, not their size.
struct MergePart {
  std::string path;
  int fd = -1;
  std::unique_ptr<LineReader> reader;
  std::string line;
  SweepResult record;
  bool done = false;
  ~MergePart() {
    if (fd >= 0)
      ::close(fd);
  }
};

// A merge of sorted parts: the first line's format, header and sweep, and each part's next line.
class SweepMerge {
  std::vector<std::unique_ptr<MergePart>> parts_;
  std::optional<SweepFormat> format_;
  std::string header_;
  SweepColumns columns_;
  std::optional<SweepResult> identity_; // the first line's configurations and digest
  std::string identity_at_;

public:
  explicit SweepMerge(const std::vector<std::string>& paths) {
    for (const std::string& path : paths) {
      auto part = std::make_unique<MergePart>();
      part->path = path;
      part->fd = open_sweep_file(path, "sweep part");
      part->reader = std::make_unique<LineReader>(part->fd, path);
      parts_.push_back(std::move(part));
    }
  }

  // Each part's first line: the first part's gives the format, header and columns.
  void read_first_lines() {
    for (auto& p : parts_)
      read_first_line(*p);
    if (!format_)
      throw InputError(parts_.front()->path, "holds no configuration: the parts are empty");
  }

  // The configurations in order, each once, into `out`; returns the sweep's configurations.
  int64_t write(OutputFile& out) {
    out.write(header_);
    // Smallest configuration first; ties by part, so a configuration in two parts is compared.
    using Entry = std::pair<int64_t, size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    for (size_t i = 0; i < parts_.size(); ++i)
      if (!parts_[i]->done)
        queue.emplace(parts_[i]->record.config, i);
    int64_t next = 0;
    std::string last_line, last_at;
    while (!queue.empty()) {
      const size_t i = queue.top().second;
      queue.pop();
      MergePart& p = *parts_[i];
      const int64_t config = p.record.config;
      if (config < next) { // the configuration just written, in another part
        if (p.line != last_line)
          throw InputError(at(p), fmt::format("configuration {} is also in {} with another result: the parts "
                                              "disagree (of two runs?)",
                                              config, last_at));
      } else if (config > next)
        throw InputError(at(p), fmt::format("is configuration {}, but configuration {} is in no part: a shard "
                                            "is missing or unfinished (each part of --shard I/N holds the "
                                            "configurations whose index modulo N is I-1)",
                                            config, next));
      else {
        out.write(p.line + "\n");
        last_line = p.line;
        last_at = at(p);
        ++next;
      }
      if (advance(p))
        queue.emplace(p.record.config, i);
    }
    return check_complete(next);
  }

private:
  static std::string at(const MergePart& p) { return fmt::format("{}:{}", p.path, p.reader->line_number()); }

  void read_first_line(MergePart& p) {
    std::string first;
    if (!p.reader->next(first)) {
      if (!p.reader->rest().empty())
        throw InputError(p.path + ":1", "holds no complete line: not a sweep file");
      p.done = true; // empty: a shard of JSON lines with no configuration
      return;
    }
    // A CSV's header comment (sweep_csv_comment) belongs to its header: the first part's is
    // written; the parts' lines, by their digests, are of one sweep.
    std::string comment;
    while (first.starts_with('#')) {
      comment += first + "\n";
      if (!p.reader->next(first))
        throw InputError(p.path, "holds a header comment and no columns: not a sweep file");
    }
    const SweepFormat f = first.starts_with("{") ? SweepFormat::jsonl : SweepFormat::csv;
    if (format_ && *format_ != f)
      throw InputError(p.path, "is of another format than the parts before it (CSV and JSON lines mixed)");
    try {
      if (!format_) {
        format_ = f;
        columns_ = f == SweepFormat::csv ? sweep_header_columns(first) : sweep_jsonl_columns(first);
        if (f == SweepFormat::csv)
          header_ = comment + first + "\n";
      } else if (f == SweepFormat::csv && !header_.ends_with("\n" + first + "\n") && header_ != first + "\n")
        throw InputError("", fmt::format("holds another sweep's columns than {}", parts_.front()->path));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}:{}", p.path, p.reader->line_number()), e.message());
    }
    if (f == SweepFormat::jsonl) { // the first line is a record: read it as one
      p.line = first;
      accept(p, -1);
    } else
      advance(p);
  }

  // Reads the part's line as its record: of the first line's sweep, after the part's line before.
  void accept(MergePart& p, int64_t previous) {
    try {
      p.record = parse_sweep_line(p.line, columns_, *format_);
    } catch (const InputError& e) {
      throw InputError(at(p), e.message());
    }
    if (!identity_) {
      identity_ = p.record;
      identity_at_ = at(p);
    } else if (p.record.digest != identity_->digest || p.record.configurations != identity_->configurations)
      throw InputError(at(p), fmt::format("is a line of another sweep than {} (sweep_digest {} of {} "
                                          "configurations, not {} of {}): merge the parts of one sweep",
                                          identity_at_, p.record.digest, p.record.configurations,
                                          identity_->digest, identity_->configurations));
    if (p.record.config <= previous)
      throw InputError(at(p), fmt::format("is configuration {} after {}: a sweep writes its lines in "
                                          "configuration order",
                                          p.record.config, previous));
  }

  // Reads the part's next line into its record; false at its end.
  bool advance(MergePart& p) {
    const int64_t previous = p.done || p.line.empty() ? -1 : p.record.config;
    if (!p.reader->next(p.line)) {
      if (!p.reader->rest().empty())
        throw InputError(fmt::format("{}:{}", p.path, p.reader->line_number() + 1),
                         "ends with a line cut by an interruption: rerun its shard with the same command to finish "
                         "it, then merge");
      p.done = true;
      return false;
    }
    accept(p, previous);
    return true;
  }

  // Every configuration was written: `written` is the sweep's number of them.
  int64_t check_complete(int64_t written) const {
    if (!identity_)
      throw InputError(parts_.front()->path, "holds no configuration, nor do the other parts: merge the parts of "
                                             "a sweep that ran");
    const int64_t configurations = identity_->configurations;
    if (written != configurations)
      throw InputError(identity_at_,
                       fmt::format("the sweep has {} configurations, but the parts hold only 0 to {}: a shard is "
                                   "missing or unfinished",
                                   configurations, written - 1));
    return configurations;
  }
};

} // namespace

int64_t merge_sweep_parts(const std::vector<std::string>& parts, const std::string& output) {
  if (parts.empty())
    throw InputError("sweep merge", "name the parts to merge");
  if (parts.size() > static_cast<size_t>(kMaxSweepShards))
    throw LimitError("sweep merge", fmt::format("{} parts; at most {} are merged at once (one open file each)",
                                                parts.size(), kMaxSweepShards));
  // Refused before any part is read: the output may not be a part (it would be replaced).
  check_output_path(output, "-o", parts);
  SweepMerge merge(parts);
  merge.read_first_lines();
  OutputFile out(output, "-o", parts);
  const int64_t configurations = merge.write(out);
  out.commit();
  return configurations;
}

} // namespace simgpt
