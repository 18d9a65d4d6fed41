#include "simgpt/validation/validation.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/planner/search_space.hpp"
#include "core/parallel.hpp"
#include "planner/platform_gpus.hpp"
#include "workload/workload_limits.hpp"
#include "validation/row_run.hpp"
#include "simgpt/framework/profile.hpp"
#include "core/units.hpp"
#include "core/yaml_read.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <optional>

namespace simgpt {

bool ValidationRow::flagged(const std::string& flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

namespace {

std::string scalar_text(const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : YAML::Dump(n); }

// What a row may measure. Times, sizes and rates are positive; counts of collectives may be 0.
// The upper bounds are far above any real run and keep the errors' ratios finite: a step of a
// million seconds (11.6 days), 10,000 GB of one GPU's memory (the largest hold 192 GB), a
// thousand TFLOPS per GPU for a million GPUs, a billion collectives per step.
struct MeasuredMetric {
  const char* name;
  const char* unit;
  double max;
  bool count; // 0 is a valid measurement
};
constexpr MeasuredMetric kMeasuredMetrics[] = {
    {"step_time_s", "s", 1e6, false},          {"estimated_step_time_s", "s", 1e6, false},
    {"transfer_s", "s", 1e6, false},           {"peak_mem_gb", "GB", 1e4, false},
    {"estimated_peak_mem_gb", "GB", 1e4, false}, {"tflops_total", "TFLOPS", 1e9, false},
    {"comm_total", "collectives", 1e9, true},  {"allreduce", "collectives", 1e9, true},
    {"allgather", "collectives", 1e9, true},   {"reducescatter", "collectives", 1e9, true},
    {"all2all", "collectives", 1e9, true},
};

// The flags a row may carry (ValidationRow::flagged): a misspelt one would be ignored silently.
constexpr const char* kRowFlags[] = {"not_reproducible", "questionable", "estimator_reference"};

std::string known_metrics() {
  std::string names = "oom";
  for (const MeasuredMetric& m : kMeasuredMetrics)
    names += std::string(", ") + m.name;
  return names;
}

// Table and row ids join into "table/row" (what `simgpt row` and --filter take, and what profiles
// name as calibration rows, with ":memory" or ":oom" after it), and the table's platform is a file
// name: plain names only, so that no two joined ids are the same.
std::string checked_name(const YamlReader& r, const std::string& key) {
  const std::string name = r.text(key);
  if (!is_plain_name(name))
    throw InputError(r.where(key), fmt::format("'{}' is not a valid name ({})", echo(name), kPlainNameRule));
  return name;
}

void read_measured(const YamlReader& r, ValidationRow& row) {
  if (!r.has("measured"))
    return;
  const YamlReader measured = r.map("measured");
  for (const std::string& key : measured.keys()) {
    if (key == "oom") {
      row.oom = measured.boolean_or("oom", false);
      continue;
    }
    const auto* metric = std::find_if(std::begin(kMeasuredMetrics), std::end(kMeasuredMetrics),
                                      [&](const MeasuredMetric& m) { return key == m.name; });
    if (metric == std::end(kMeasuredMetrics))
      throw InputError(measured.where(key), fmt::format("unknown metric (known: {})", known_metrics()));
    const double value = measured.number(key, 0, metric->max); // refuses NaN and infinities too
    if (value == 0 && !metric->count)
      throw InputError(measured.where(key), fmt::format("0 is not a measurement (expected more than 0 {}, at most "
                                                        "{:g})",
                                                        metric->unit, metric->max));
    row.measured[key] = value;
  }
}

Overrides read_set(const YamlReader& r) {
  Overrides set;
  if (!r.has("set"))
    return set;
  const YAML::Node n = r.node()["set"];
  if (!n.IsMap())
    throw InputError(r.where("set"), "expected a mapping of workload keys to values (e.g. {network.delay: 1ms})");
  for (const auto& kv : n) // check_keys made every key a scalar
    set.emplace_back(kv.first.Scalar(), scalar_text(kv.second));
  return set;
}

std::vector<std::string> read_flags(const YamlReader& r) {
  std::vector<std::string> flags;
  if (!r.has("flags"))
    return flags;
  for (const YamlReader& item : r.list("flags")) {
    const std::string flag = item.node().IsScalar() ? item.node().Scalar() : "";
    if (std::none_of(std::begin(kRowFlags), std::end(kRowFlags), [&](const char* f) { return flag == f; }))
      throw InputError(r.where("flags"), fmt::format("'{}' is not a flag (expected {})", echo(flag),
                                                     fmt::format("{}", fmt::join(kRowFlags, ", "))));
    flags.push_back(flag);
  }
  return flags;
}

ValidationRow read_row(const YamlReader& r, const ValidationTable& t) {
  r.only({"id", "row", "column", "set", "measured", "flags", "note", "bytes", "profile"});
  ValidationRow row;
  row.id = checked_name(r, "id");
  row.row = r.text_or("row", "");
  row.column = r.text_or("column", "");
  row.note = r.text_or("note", "");
  row.bytes = r.quantity_or("bytes", 0, parse_bytes);
  row.profile = r.has("profile") ? checked_name(r, "profile") : "";
  if (t.kind == "transfer" && (row.bytes <= 0 || row.profile.empty()))
    throw InputError(r.where("bytes"), "a transfer row needs bytes and profile");
  row.set = read_set(r);
  read_measured(r, row);
  row.flags = read_flags(r);
  return row;
}

std::vector<std::string> read_planner_search(const YamlReader& root) {
  std::vector<std::string> restrictions;
  if (!root.has("planner_search"))
    return restrictions;
  SearchSpace check; // each restriction as `simgpt plan --search` takes it
  for (const YamlReader& r : root.list("planner_search")) {
    const std::string restriction = r.node().IsScalar() ? r.node().Scalar() : "";
    try {
      check.restrict(restriction);
    } catch (const InputError& e) {
      throw InputError(root.where("planner_search"), e.message());
    }
    restrictions.push_back(restriction);
  }
  return restrictions;
}

ValidationTable load_table(const std::string& path) {
  YamlReader root = YamlReader::file(path);
  root.only({"table", "kind", "source", "description", "platform", "workload", "peak_memory", "planner_search",
             "rows"});
  ValidationTable t;
  t.file = path;
  t.id = checked_name(root, "table");
  t.platform = checked_name(root, "platform");
  root.text_or("description", ""); // read by people, but text all the same
  t.kind = root.text_or("kind", "workload");
  t.peak_memory = root.text_or("peak_memory", "device");
  if (t.peak_memory != "device" && t.peak_memory != "allocated")
    throw InputError(root.where("peak_memory"),
                     fmt::format("'{}' is not valid (expected device or allocated)", t.peak_memory));
  if (t.kind != "workload" && t.kind != "transfer")
    throw InputError(root.where("kind"), fmt::format("'{}' is not valid (expected workload or transfer)", t.kind));
  if (t.kind == "workload") {
    YAML::Emitter text;
    text << root.map("workload").node();
    t.workload_yaml = text.c_str();
  }
  t.planner_search = read_planner_search(root);
  if (root.has("source")) {
    t.source = YAML::Dump(root.node()["source"]);
    YamlReader src = root.map("source");
    src.only({"seed", "heading"});
    t.source_heading = src.text_or("seed", "") + ": " + src.text_or("heading", "");
  }
  std::set<std::string> ids;
  for (const YamlReader& r : root.list("rows")) {
    if (!r.node().IsMap())
      throw InputError(root.where("rows"), "expected a list of mappings (each row: id, set, measured, ...)");
    t.rows.push_back(read_row(r, t));
    if (!ids.insert(t.rows.back().id).second)
      throw InputError(r.where("id"), fmt::format("'{}' is the id of an earlier row (each row's id is unique in its "
                                                  "table)",
                                                  t.rows.back().id));
  }
  return t;
}

TableSummary summarize(const std::string& name, const std::vector<const CaseResult*>& cases) {
  TableSummary s;
  s.table = name;
  s.rows = static_cast<int>(cases.size());
  std::vector<double> errors, measured, predicted;
  for (const CaseResult* c : cases)
    if (c->status == "compared") {
      errors.push_back(std::fabs(c->error_pct));
      measured.push_back(*c->measured);
      predicted.push_back(*c->predicted);
    }
  s.compared = static_cast<int>(errors.size());
  if (errors.empty())
    return s;
  std::vector<double> sorted = errors;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.median_abs = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  s.mean_abs = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  s.max_abs = sorted.back();
  s.spearman = spearman(measured, predicted);
  return s;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
      ++j;
    for (size_t k = i; k <= j; ++k)
      r[order[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    i = j + 1;
  }
  return r;
}

} // namespace

std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 3)
    return std::nullopt;
  std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (va == 0 || vb == 0)
    return std::nullopt;
  return cov / std::sqrt(va * vb);
}

std::vector<ValidationTable> load_validation_tables(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml")
      files.push_back(entry.path().string());
  if (ec)
    throw InputError(dir, "cannot read the validation tables directory");
  std::sort(files.begin(), files.end());
  std::vector<ValidationTable> tables;
  std::map<std::string, std::string> file_of; // table id -> its file
  for (const std::string& f : files) {
    tables.push_back(load_table(f));
    const auto [earlier, added] = file_of.emplace(tables.back().id, f);
    if (!added)
      throw InputError(f + ": table", fmt::format("'{}' is the id of the table in {} too (each table's id is unique)",
                                                  tables.back().id, earlier->second));
  }
  return tables;
}

std::set<std::string> calibration_rows(const DataPaths& data) {
  std::set<std::string> rows;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(data.profiles(), ec))
    if (entry.path().extension() == ".yaml") {
      Profile p = load_profile(data.profiles(), entry.path().stem().string(), entry.path().string());
      rows.insert(p.calibration_rows.begin(), p.calibration_rows.end());
    }
  return rows;
}

std::map<std::string, Threshold> load_thresholds(const std::string& path) {
  YamlReader root = YamlReader::file(path);
  std::map<std::string, Threshold> out;
  for (const std::string& table : root.keys()) {
    YamlReader t = root.map(table);
    t.only({"median", "max", "status", "reason"});
    Threshold limit{t.number("median", 0), t.number("max", 0), t.text_or("status", ""), t.text_or("reason", "")};
    if (!limit.status.empty() && limit.status != "known-gap")
      throw InputError(path + ": " + table + ".status", "expected known-gap (or no status)");
    if (limit.status == "known-gap" && limit.reason.empty())
      throw InputError(path + ": " + table + ".reason", "a known gap says what is known of its cause");
    out[table] = std::move(limit);
  }
  return out;
}

const char* primary_metric(const ValidationTable& table) {
  return table.kind == "transfer" ? "transfer_s" : "step_time_s";
}

nlohmann::ordered_json simulate_row(const ValidationTable& table, const ValidationRow& row, const DataPaths& data) {
  if (table.kind == "transfer") {
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
    const double seconds =
        simulate_transfer(data.root + "/platforms/" + table.platform, 0, 1, row.bytes, network, row.profile, data);
    return {{"transfer_s", seconds}, {"oom", false}};
  }
  const Workload w = parse_workload(table.workload_yaml, table.file + " (" + row.id + ")", row.set);
  return simulate(data.root + "/platforms/" + table.platform, w, data).to_json();
}

RowPrediction RowPrediction::from_json(const nlohmann::ordered_json& j) {
  RowPrediction p;
  if (j.is_object() && j.contains("transfer_s") && j["transfer_s"].is_number())
    p.transfer_s = j["transfer_s"].get<double>();
  else
    p.report = Report::from_json(j);
  return p;
}

double RowPrediction::metric(const std::string& name) const {
  // GiB is a power of two, so bytes / GiB gives back the JSON's value exactly.
  constexpr double GiB = 1024.0 * 1024 * 1024;
  if (name == "transfer_s")
    return transfer_s;
  if (!report)
    throw std::logic_error("a transfer row has no " + name);
  if (name == "step_time_s")
    return report->step_time_s;
  if (name == "peak_memory_gib")
    return report->peak_memory_bytes / GiB;
  if (name == "peak_allocated_gib")
    return report->peak_allocated_bytes / GiB;
  throw std::logic_error("no row metric " + name);
}

namespace {

// One row's simulation, shared by its metrics.
struct RowRun {
  const ValidationTable* table;
  const ValidationRow* row;
  std::optional<RowPrediction> result;
  std::string error;
  bool process_failed = false; // the row's process died or timed out: the gate fails
};

bool is_flagged(const CaseResult& c, const char* flag) {
  return std::find(c.flags.begin(), c.flags.end(), flag) != c.flags.end();
}

} // namespace

std::vector<FastestCheck> fastest_per_row(const std::vector<CaseResult>& cases) {
  std::vector<std::pair<std::string, std::string>> order; // (table, group) as first seen
  std::map<std::pair<std::string, std::string>, std::vector<const CaseResult*>> groups;
  std::set<std::string> predicted_oom; // rows whose simulation does not fit: the planner never picks them
  for (const CaseResult& c : cases)
    if (c.metric == "oom" && c.predicted && *c.predicted > 0.5)
      predicted_oom.insert(c.id);
  for (const CaseResult& c : cases) {
    if (c.metric != "step_time_s" || c.status != "compared" || c.group.empty())
      continue;
    auto key = std::make_pair(c.table, c.group);
    if (!groups.contains(key))
      order.push_back(key);
    groups[key].push_back(&c);
  }
  std::vector<FastestCheck> checks;
  for (const auto& key : order) {
    const auto& g = groups[key];
    if (g.size() < 2)
      continue;
    auto by = [](auto field) {
      return [field](const CaseResult* a, const CaseResult* b) { return *(a->*field) < *(b->*field); };
    };
    const CaseResult* measured = *std::min_element(g.begin(), g.end(), by(&CaseResult::measured));
    const CaseResult* predicted = *std::min_element(g.begin(), g.end(), by(&CaseResult::predicted));
    FastestCheck f;
    f.table = key.first;
    f.group = key.second;
    f.configurations = static_cast<int>(g.size());
    f.measured_fastest = measured->id.substr(f.table.size() + 1);
    f.predicted_fastest = predicted->id.substr(f.table.size() + 1);
    f.measured_regret_pct = 100 * (*predicted->measured / *measured->measured - 1);
    const CaseResult* pick = nullptr;
    for (const CaseResult* c : g)
      if (!predicted_oom.contains(c->id) && (pick == nullptr || *c->predicted < *pick->predicted))
        pick = c;
    if (pick != nullptr) {
      f.planner_pick = pick->id.substr(f.table.size() + 1);
      f.planner_regret_pct = 100 * (*pick->measured / *measured->measured - 1);
    }
    checks.push_back(f);
  }
  return checks;
}

namespace {

// Runs the rows' simulations, `jobs` at a time, each in its own process. Rows whose plan is
// unknown or whose numbers the authors doubted are not simulated.
void run_rows(std::vector<RowRun>& runs, const DataPaths& data, unsigned jobs, const RowProcess& process) {
  RowProcess resolved = process;
  resolved.executable = simgpt_executable(process.executable); // once, and before any thread starts
  run_parallel(runs.size(), jobs, [&](size_t i) {
    RowRun& run = runs[i];
    if (run.row->flagged("not_reproducible") || run.row->flagged("questionable"))
      return;
    try {
      run.result = RowPrediction::from_json(run_row_process_of(*run.table, *run.row, data, resolved));
    } catch (const ProcessFailure& e) {
      run.error = e.what();
      run.process_failed = true;
    } catch (const std::exception& e) {
      run.error = e.what();
    }
  });
}

// One metric of one row: measured against predicted, or why it was not compared.
CaseResult row_case(const RowRun& run, const std::string& metric, std::optional<double> measured,
                    std::optional<double> predicted, const std::set<std::string>& calibration) {
  const ValidationRow& row = *run.row;
  CaseResult c;
  c.table = run.table->id;
  c.id = run.table->id + "/" + row.id;
  c.group = row.row;
  c.metric = metric;
  c.flags = row.flags;
  if ((metric == primary_metric(*run.table) && calibration.contains(c.id)) ||
      (metric == "oom" && calibration.contains(c.id + ":oom")) ||
      (metric == "peak_mem_gb" && calibration.contains(c.id + ":memory")))
    c.flags.push_back("calibration");
  c.measured = measured;
  if (row.flagged("questionable") || row.flagged("not_reproducible")) {
    c.status = "skipped";
    c.message = row.flagged("questionable") ? "flagged questionable by the authors" : "plan not reproducible";
  } else if (!run.result) {
    c.status = "not_simulated";
    c.message = run.error;
  } else {
    c.predicted = predicted;
    c.status = "compared";
    if (metric.rfind("count:", 0) == 0) // a measured count may be zero
      c.error_pct = *measured > 0 ? 100 * (*predicted - *measured) / *measured : (*predicted > 0 ? 100 : 0);
    else if (metric == "oom")
      c.error_pct = *measured == *predicted ? 0 : 100;
    else
      c.error_pct = 100 * (*predicted - *measured) / *measured;
  }
  return c;
}

// The seed's own estimator against its runs: a reference for a profile-based estimator's error.
CaseResult estimator_case(const RowRun& run) {
  const ValidationRow& row = *run.row;
  CaseResult c;
  c.table = run.table->id;
  c.id = run.table->id + "/" + row.id;
  c.metric = "estimator_step_time";
  c.flags = row.flags;
  c.measured = row.measured.at("step_time_s");
  c.predicted = row.measured.at("estimated_step_time_s");
  c.error_pct = 100 * (*c.predicted - *c.measured) / *c.measured;
  c.status = "compared";
  return c;
}

// Collectives per step of `kind` on GPU 0 (0 when it runs none).
double collectives_per_gpu(const Report& r, const std::string& kind) {
  auto c = std::find_if(r.collectives.begin(), r.collectives.end(),
                        [&](const Report::Collectives& x) { return x.kind == kind; });
  return c == r.collectives.end() ? 0.0 : static_cast<double>(c->per_gpu);
}

// Every metric a row measured, in a fixed order: its primary metric, peak memory, collective
// counts, the estimator reference, the out-of-memory outcome.
void add_row_cases(std::vector<CaseResult>& cases, const RowRun& run, const std::set<std::string>& calibration) {
  const ValidationRow& row = *run.row;
  const auto& r = run.result;
  auto value = [&](const char* key) { return r ? std::optional<double>(r->metric(key)) : std::nullopt; };
  auto add = [&](const std::string& metric, double measured, std::optional<double> predicted) {
    cases.push_back(row_case(run, metric, measured, predicted, calibration));
  };
  const char* primary = primary_metric(*run.table);
  if (auto m = row.measured.find(primary); m != row.measured.end())
    add(primary, m->second, value(primary));
  if (auto m = row.measured.find("peak_mem_gb"); m != row.measured.end())
    add("peak_mem_gb", m->second, value(run.table->peak_memory == "allocated" ? "peak_allocated_gib" : "peak_memory_gib"));
  // Beside the counts the benchmark reports (for comparison only: frameworks count fused or
  // split collectives differently).
  for (const char* kind : {"allreduce", "allgather", "reducescatter"})
    if (auto m = row.measured.find(kind); m != row.measured.end())
      add(std::string("count:") + kind, m->second,
          r && r->report ? std::optional<double>(collectives_per_gpu(*r->report, kind)) : std::nullopt);
  if (row.flagged("estimator_reference") && row.measured.contains("step_time_s") &&
      row.measured.contains("estimated_step_time_s"))
    cases.push_back(estimator_case(run));
  // A run that finished did not run out of memory; a failed one did.
  if (run.table->kind == "workload" && (row.oom || row.measured.contains("step_time_s")))
    add("oom", row.oom ? 1.0 : 0.0, r ? std::optional<double>(r->report->oom ? 1.0 : 0.0) : std::nullopt);
}

// The summary a case is counted in: its table for the primary metric, else the table with the
// metric's suffix; summaries are ordered primary first, then memory, oom, estimator, counts.
std::string summary_key(const CaseResult& c) {
  if (c.metric == "step_time_s" || c.metric == "transfer_s")
    return c.table;
  if (c.metric.rfind("count:", 0) == 0)
    return c.table + ":collective counts";
  if (c.metric == "oom")
    return c.table + ":oom";
  if (c.metric == "peak_mem_gb")
    return c.table + ":memory";
  return c.table + ":estimator (reference)";
}

int summary_rank(const std::string& k) {
  return k.find(":collective counts") != std::string::npos ? 4
         : k.find(":estimator") != std::string::npos       ? 3
         : k.find(":oom") != std::string::npos             ? 2
         : k.find(":memory") != std::string::npos          ? 1
                                                           : 0;
}

} // namespace

// Per-table statistics over held-out rows (a row a profile was fitted on says nothing of how the
// fit transfers, so the gate's thresholds judge the others), and step time and memory over
// calibration and held-out rows.
void summarize_cases(ValidationReport& report) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const CaseResult*>> by_table;
  std::vector<const CaseResult*> fitted, held_out, fitted_transfer, held_out_transfer, fitted_memory, held_out_memory;
  for (const CaseResult& c : report.cases) {
    const std::string key = summary_key(c);
    auto [table, added] = by_table.try_emplace(key);
    if (added)
      order.push_back(key);
    if (!is_flagged(c, "calibration"))
      table->second.push_back(&c);
    if (c.metric == "step_time_s")
      (is_flagged(c, "calibration") ? fitted : held_out).push_back(&c);
    if (c.metric == "transfer_s") // a transfer is not a step: reported apart
      (is_flagged(c, "calibration") ? fitted_transfer : held_out_transfer).push_back(&c);
    if (c.metric == "peak_mem_gb")
      (is_flagged(c, "calibration") ? fitted_memory : held_out_memory).push_back(&c);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const std::string& a, const std::string& b) { return summary_rank(a) < summary_rank(b); });
  for (const std::string& name : order)
    report.tables.push_back(summarize(name, by_table[name]));
  report.calibration = summarize("calibration rows", fitted);
  report.held_out = summarize("held-out rows", held_out);
  report.calibration_transfer = summarize("calibration rows:transfer", fitted_transfer);
  report.held_out_transfer = summarize("held-out rows:transfer", held_out_transfer);
  report.calibration_memory = summarize("calibration rows:memory", fitted_memory);
  report.held_out_memory = summarize("held-out rows:memory", held_out_memory);
}

namespace {

// The gate: rows whose process died, and tables worse than their thresholds.
void apply_gate(ValidationReport& report, const std::vector<RowRun>& runs,
                const std::map<std::string, Threshold>& thresholds, const std::string& filter) {
  for (const RowRun& run : runs)
    if (run.process_failed)
      report.gate_failures.push_back(fmt::format("{}/{}: not simulated: {}", run.table->id, run.row->id, run.error));
  for (const auto& entry : thresholds) {
    // Named, not structured bindings: lambdas capture those only from clang 16.
    const std::string& table = entry.first;
    const Threshold& limit = entry.second;
    auto it = std::find_if(report.tables.begin(), report.tables.end(),
                           [&](const TableSummary& s) { return s.table == table; });
    if (it == report.tables.end()) {
      if (filter.empty())
        report.gate_failures.push_back(fmt::format("{}: no such table", table));
      continue;
    }
    if (limit.status == "known-gap")
      report.known_gaps.push_back({table, limit.reason, it->median_abs});
    if (it->compared == 0)
      report.gate_failures.push_back(fmt::format("{}: no row was simulated", table));
    else if (it->median_abs > limit.median || it->max_abs > limit.max)
      report.gate_failures.push_back(fmt::format("{}: median {:.1f}% (limit {:.1f}%), max {:.1f}% (limit {:.1f}%)",
                                                 table, it->median_abs, limit.median, it->max_abs, limit.max));
  }
}

} // namespace

namespace {

// The job size the planner comparison searches for a row: its placement.gpus, else the platform's.
std::vector<int64_t> comparison_gpus(const ValidationTable& table, const ValidationRow& row, const DataPaths& data) {
  for (const auto& [key, value] : row.set)
    if (key == "placement.gpus")
      return parse_gpus(value, kMaxGpus.max);
  return {read_platform_gpus(data.root + "/platforms/" + table.platform).count};
}

// The planner comparison searches a table's planner_search once per model size, after the rows
// have run, and reports a search it cannot make as a message: one past the planner's candidate
// limit is refused here instead, before any work. The space is counted with every framework
// feature allowed, as many candidates as the profile's own support leaves or more.
void check_planner_spaces(const std::vector<ValidationTable>& tables, const DataPaths& data,
                          const std::string& filter) {
  const std::vector<std::string>& searched = plan_keys();
  for (const ValidationTable& table : tables) {
    if (table.planner_search.empty())
      continue;
    SearchSpace space;
    for (const std::string& restriction : table.planner_search)
      space.restrict(restriction);
    std::set<std::string> groups;
    for (const ValidationRow& row : table.rows) {
      if (!row.measured.contains("step_time_s") ||
          (!filter.empty() && (table.id + "/" + row.id).find(filter) == std::string::npos) ||
          !groups.insert(row.row).second)
        continue;
      Overrides sets; // the row's model; the keys the planner searches are left to it
      for (const auto& [key, value] : row.set)
        if (key != "placement.gpus" && std::find(searched.begin(), searched.end(), key) == searched.end())
          sets.emplace_back(key, value);
      Workload base;
      try {
        base = parse_workload(table.workload_yaml, table.file + " (" + row.id + ")", sets);
        space.set_gpus(comparison_gpus(table, row, data));
      } catch (const InputError&) {
        continue; // the comparison reports it, as it reports every search it cannot make
      }
      try {
        space.candidates(base);
      } catch (const LimitError& e) {
        throw LimitError(table.file + ": planner_search", fmt::format("for row '{}': {}", row.row, e.message()));
      }
    }
  }
}

} // namespace

ValidationReport validate(const std::vector<ValidationTable>& tables, const DataPaths& data,
                          const std::string& filter, const std::map<std::string, Threshold>& thresholds,
                          unsigned jobs, const RowProcess& process) {
  check_planner_spaces(tables, data, filter);
  std::vector<RowRun> runs;
  for (const ValidationTable& table : tables)
    for (const ValidationRow& row : table.rows)
      if (filter.empty() || (table.id + "/" + row.id).find(filter) != std::string::npos)
        runs.push_back({&table, &row, std::nullopt, "", false});
  run_rows(runs, data, jobs, process);

  ValidationReport report;
  const std::set<std::string> calibration = calibration_rows(data);
  for (const RowRun& run : runs)
    add_row_cases(report.cases, run, calibration);
  summarize_cases(report);
  report.fastest = fastest_per_row(report.cases);
  apply_gate(report, runs, thresholds, filter);
  report.planner_comparisons = compare_planner(tables, data, filter, jobs, process.executable, process.timeout_s);
  return report;
}

nlohmann::ordered_json ValidationReport::to_json() const {
  auto summary = [](const TableSummary& s) {
    nlohmann::ordered_json j{{"table", s.table},         {"rows", s.rows},          {"compared", s.compared},
                             {"median_abs_pct", s.median_abs}, {"mean_abs_pct", s.mean_abs}, {"max_abs_pct", s.max_abs}};
    j["spearman"] = s.spearman ? nlohmann::ordered_json(*s.spearman) : nlohmann::ordered_json();
    return j;
  };
  nlohmann::ordered_json j;
  auto& cs = j["cases"] = nlohmann::ordered_json::array();
  for (const CaseResult& c : cases) {
    nlohmann::ordered_json e{{"id", c.id}, {"table", c.table}, {"metric", c.metric}, {"status", c.status}};
    e["measured"] = c.measured ? nlohmann::ordered_json(*c.measured) : nlohmann::ordered_json();
    e["predicted"] = c.predicted ? nlohmann::ordered_json(*c.predicted) : nlohmann::ordered_json();
    e["error_pct"] = c.status == "compared" ? nlohmann::ordered_json(c.error_pct) : nlohmann::ordered_json();
    e["flags"] = c.flags;
    if (!c.message.empty())
      e["message"] = c.message;
    cs.push_back(e);
  }
  auto& ts = j["tables"] = nlohmann::ordered_json::array();
  for (const TableSummary& s : tables)
    ts.push_back(summary(s));
  j["calibration"] = summary(calibration);
  j["held_out"] = summary(held_out);
  j["calibration_transfer"] = summary(calibration_transfer);
  j["held_out_transfer"] = summary(held_out_transfer);
  j["calibration_memory"] = summary(calibration_memory);
  j["held_out_memory"] = summary(held_out_memory);
  auto& fs = j["fastest"] = nlohmann::ordered_json::array();
  for (const FastestCheck& f : fastest)
    fs.push_back({{"table", f.table},
                  {"row", f.group},
                  {"configurations", f.configurations},
                  {"measured_fastest", f.measured_fastest},
                  {"predicted_fastest", f.predicted_fastest},
                  {"agrees", f.agrees()},
                  {"measured_regret_pct", f.measured_regret_pct},
                  {"planner_pick", f.planner_pick.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(f.planner_pick)},
                  {"planner_regret_pct", f.planner_pick.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(f.planner_regret_pct)}});
  auto& gaps = j["known_gaps"] = nlohmann::ordered_json::array();
  for (const KnownGap& g : known_gaps)
    gaps.push_back({{"table", g.table}, {"median_abs_pct", g.median_abs}, {"reason", g.reason}});
  auto& planners = j["planner_comparisons"] = nlohmann::ordered_json::array();
  for (const PlannerComparison& c : planner_comparisons) {
    nlohmann::ordered_json e{{"table", c.table}, {"row", c.row}, {"gpus", c.gpus}, {"measured_best", c.measured_best},
                             {"measured_best_s", c.measured_best_s}, {"plan", c.plan}};
    e["predicted_s"] = c.predicted_s ? nlohmann::ordered_json(*c.predicted_s) : nlohmann::ordered_json();
    if (!c.message.empty())
      e["message"] = c.message;
    planners.push_back(e);
  }
  j["gate_failures"] = gate_failures;
  return j;
}

namespace {

// The summary table, in one layout for text and one for Markdown: per table, then pooled over
// calibration and held-out rows.
std::string summary_table(const ValidationReport& r, bool markdown) {
  std::string out =
      markdown ? "| table | rows | compared | median | mean | max | Spearman |\n"
                 "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
               : fmt::format("\n{:<44} {:>5} {:>8} {:>8} {:>8} {:>8} {:>9}\n",
                             "table (step time; :memory peak; :oom disagreement)", "rows", "compared", "median",
                             "mean", "max", "spearman");
  std::vector<const TableSummary*> all;
  for (const TableSummary& s : r.tables)
    all.push_back(&s);
  for (const TableSummary* s : {&r.calibration, &r.held_out, &r.calibration_transfer, &r.held_out_transfer,
                                &r.calibration_memory, &r.held_out_memory})
    all.push_back(s);
  for (const TableSummary* s : all) {
    const std::string rho = s->spearman ? fmt::format("{:.2f}", *s->spearman) : "-";
    out += markdown ? fmt::format("| {} | {} | {} | {:.1f}% | {:.1f}% | {:.1f}% | {} |\n", s->table, s->rows,
                                  s->compared, s->median_abs, s->mean_abs, s->max_abs, rho)
                    : fmt::format("{:<44} {:>5} {:>8} {:>7.1f}% {:>7.1f}% {:>7.1f}% {:>9}\n", s->table, s->rows,
                                  s->compared, s->median_abs, s->mean_abs, s->max_abs, rho);
  }
  return out;
}

} // namespace

namespace {

// Tables whose residual has no mechanism yet, with what is known of it.
std::string known_gaps_section(const ValidationReport& r, bool markdown) {
  if (r.known_gaps.empty())
    return "";
  std::string out = markdown ? "\nKnown gaps (no mechanism yet; their thresholds still gate):\n\n"
                             : "\nknown gaps (no mechanism yet; their thresholds still gate)\n";
  for (const KnownGap& g : r.known_gaps)
    out += markdown ? fmt::format("- `{}` (median {:.1f}%): {}\n", g.table, g.median_abs, g.reason)
                    : fmt::format("  {} (median {:.1f}%): {}\n", g.table, g.median_abs, g.reason);
  return out;
}

} // namespace

namespace {

// Another planner's fastest measured run of each table row beside simgpt plan's pick: a
// comparison of planners, not an error.
std::string planner_section(const ValidationReport& r, bool markdown) {
  if (r.planner_comparisons.empty())
    return "";
  std::string out =
      markdown ? "\nAnother planner's runs beside `simgpt plan` over the same space (a comparison, not an error):\n\n"
                 "| table / row | GPUs | measured best | s | simgpt plan's pick | predicted s | predicted / measured |\n"
                 "| --- | ---: | --- | ---: | --- | ---: | ---: |\n"
               : fmt::format("\nanother planner's runs beside simgpt plan over the same space (a comparison, not an "
                             "error)\n  {:<34} {:>4}  {:<12} {:>8}  {:<38} {:>9} {:>7}\n",
                             "table / row", "gpus", "measured", "s", "simgpt plan's pick", "predicted", "ratio");
  for (const PlannerComparison& c : r.planner_comparisons) {
    const std::string pick = c.plan.empty() ? c.message : c.plan;
    const std::string predicted = c.predicted_s ? fmt::format("{:.2f}", *c.predicted_s) : "-";
    const std::string ratio = c.predicted_s ? fmt::format("{:.2f}", *c.predicted_s / c.measured_best_s) : "-";
    out += markdown ? fmt::format("| {} / {} | {} | {} | {:.2f} | {} | {} | {} |\n", c.table, c.row, c.gpus,
                                  c.measured_best, c.measured_best_s, pick, predicted, ratio)
                    : fmt::format("  {:<34} {:>4}  {:<12} {:>8.2f}  {:<38} {:>9} {:>7}\n", c.table + " / " + c.row,
                                  c.gpus, c.measured_best, c.measured_best_s, pick, predicted, ratio);
  }
  return out;
}

} // namespace

std::string ValidationReport::to_markdown() const {
  return summary_table(*this, true) + known_gaps_section(*this, true) + planner_section(*this, true);
}

std::string ValidationReport::to_text() const {
  std::string out;
  std::string table;
  for (const CaseResult& c : cases) {
    if (c.table != table) {
      table = c.table;
      out += fmt::format("\n{}\n  {:<44} {:>10} {:>10} {:>8}  {}\n", table, "row", "measured", "predicted", "error",
                         "notes");
    }
    std::string flags;
    for (const auto& f : c.flags)
      flags += (flags.empty() ? "" : ",") + f;
    std::string notes = flags + (c.message.empty() ? "" : (flags.empty() ? "" : "; ") + c.message);
    out += fmt::format("  {:<44} {:>10} {:>10} {:>8}  {}\n", c.id.substr(c.table.size() + 1) + " " + c.metric,
                       c.measured ? fmt::format("{:.3f}", *c.measured) : "-",
                       c.predicted ? fmt::format("{:.3f}", *c.predicted) : "-",
                       c.status == "compared" ? fmt::format("{:+.1f}%", c.error_pct) : c.status, notes);
  }
  if (!fastest.empty()) {
    out += fmt::format("\nfastest configuration per table row (regret: measured time of the predicted pick over the "
                       "measured best)\n  {:<44} {:<14} {:<14} {:>7}\n",
                       "table / row", "measured", "predicted", "regret");
    for (const FastestCheck& f : fastest)
      out += fmt::format("  {:<44} {:<14} {:<14} {:>6.1f}%{}\n", f.table + " / " + f.group, f.measured_fastest,
                         f.predicted_fastest, f.measured_regret_pct, f.agrees() ? "" : "  differs");
    // simgpt plan's pick: the same choice, but never a configuration the simulation says does not fit.
    double sum = 0, worst = 0;
    int picked = 0;
    std::string differs;
    for (const FastestCheck& f : fastest) {
      if (f.planner_pick.empty())
        continue;
      ++picked;
      sum += f.planner_regret_pct;
      worst = std::max(worst, f.planner_regret_pct);
      if (f.planner_pick != f.predicted_fastest)
        differs += fmt::format("\n    {} / {}: plan picks {} ({:.1f}%)", f.table, f.group, f.planner_pick,
                               f.planner_regret_pct);
    }
    if (picked > 0)
      out += fmt::format("  planner (the predicted fastest that fits): regret {:.1f}% on average, {:.1f}% at worst over "
                         "{} rows{}\n",
                         sum / picked, worst, picked, differs);
  }
  out += planner_section(*this, false);
  out += summary_table(*this, false);
  out += known_gaps_section(*this, false);
  for (const std::string& f : gate_failures)
    out += "GATE FAILED: " + f + "\n";
  return out;
}

} // namespace simgpt
