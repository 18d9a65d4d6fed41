// The validation suite: measured tables (validation/tables/*.yaml) replayed through the same
// path as the simgpt command, with per-table error statistics and a regression gate.
#pragma once

#include "simgpt/simulate.hpp"
#include "simgpt/validation/planner_comparison.hpp"
#include "simgpt/workload/workload.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace simgpt {

struct ValidationRow {
  std::string id;
  std::string row;
  std::string column;
  Overrides set;
  std::map<std::string, double> measured; // step_time_s, peak_mem_gb, tflops_total, ...
  bool oom = false;
  std::vector<std::string> flags;
  std::string note;
  double bytes = 0;    // transfer tables: the message size
  std::string profile; // transfer tables: whose transfer settings
  // Transfer tables: a collective (`allreduce`, ...) of `bytes` per GPU over the platform's first
  // `gpus` GPUs instead of one message; empty for a message.
  std::string collective;
  int gpus = 0;
  int gpus_per_thread = 1; // collective rows: GPUs one benchmark thread launches on (nccl-tests' nGpus)
  bool flagged(const std::string& flag) const;
};

// What a table's rows run: a training step of its workload, or one point-to-point message or
// collective (`kind: workload` or `kind: transfer`).
enum class TableKind { workload, transfer };

// What a table's peak memory counts: all the GPU holds (`device`: nvidia-smi, or what decides
// out-of-memory) or the framework's own peak of live tensors (`allocated`, e.g. Alpa's XLA
// allocation counter: no CUDA context, no allocator cache) or the caching allocator's peak pool
// (`reserved`: torch.cuda.max_memory_reserved, live tensors and the cache, no CUDA context).
enum class PeakMemory { device, allocated, reserved };

struct ValidationTable {
  std::string id;
  std::string file;
  std::string platform;
  TableKind kind = TableKind::workload;
  PeakMemory peak_memory = PeakMemory::device;
  std::string source;
  std::string source_heading; // "seed file: heading"
  std::string workload_yaml; // the table's workload, as YAML text (rows override its keys)
  // For a table of another planner's runs: the --search restrictions its space implies. The
  // planner is run over them beside the table's rows (PlannerComparison).
  std::vector<std::string> planner_search;
  // `tier: extended`: replayed only by `simgpt validate --extended` (a table whose rows take longer
  // than the test suite's budget allows), not by default nor by the gate.
  bool extended = false;
  std::vector<ValidationRow> rows;
};

// The tables of `files`, in that order; throws InputError for a bad table or two of one id.
std::vector<ValidationTable> load_validation_table_files(const std::vector<std::string>& files);
// Every .yaml file of `dir`, sorted by name.
std::vector<ValidationTable> load_validation_tables(const std::string& dir);
// Every data folder's validation/tables/*.yaml, sorted by file name; a file of an earlier folder
// replaces a later folder's file of the same name. Throws InputError when no folder has tables.
std::vector<ValidationTable> load_validation_tables(const DataPaths& data);

// The measured tables as a Markdown table (README's list above the accuracy summary): each
// table's id, source and row count, then the totals.
std::string tables_markdown(const std::vector<ValidationTable>& tables);

// What became of one metric of one row (printed compared, not_simulated, skipped).
enum class CaseStatus { compared, not_simulated, skipped };

// What a case compares (printed as its metric's name): the step time (step_time_s), one
// transfer's time (transfer_s), peak memory (peak_mem_gb), whether it ran out of memory (oom),
// the seed's own estimator against its runs (estimator_step_time), collectives per step of one
// kind (count:allreduce, count:allgather, count:reducescatter), and simgpt's own closed-form
// estimate of the step beside its replay (estimate_step_time: --fidelity estimate's figure).
enum class CaseMetric {
  step_time,
  transfer,
  peak_memory,
  oom,
  estimator_step_time,
  allreduce_count,
  allgather_count,
  reducescatter_count,
  estimate_step_time,
};

struct CaseResult {
  std::string table;
  std::string id; // table/row
  std::string group; // the row label of the table the row sits in (its configurations are the columns)
  CaseMetric metric = CaseMetric::step_time;
  std::optional<double> measured;
  std::optional<double> predicted;
  double error_pct = 0; // signed, (predicted - measured) / measured
  CaseStatus status = CaseStatus::not_simulated;
  std::string message;
  std::vector<std::string> flags; // row flags, plus "calibration" for rows a profile was fitted on
};

struct TableSummary {
  std::string table;
  int compared = 0;
  int rows = 0;
  double median_abs = 0, mean_abs = 0, max_abs = 0;
  std::optional<double> spearman;
};

// Within one row of a measured table (one micro-batch size, say), the configuration measured
// fastest and the one predicted fastest: the choice a user makes with the simulator.
struct FastestCheck {
  std::string table;
  std::string group;
  int configurations = 0;
  std::string measured_fastest, predicted_fastest; // row ids
  // Measured step time of the predicted-fastest configuration over the measured fastest, minus one:
  // what following the prediction costs (0 when they agree).
  double measured_regret_pct = 0;
  // What `simgpt plan` picks among the row's configurations: the predicted fastest of those the
  // simulation says fit (empty when none does), and the measured cost of following it.
  std::string planner_pick;
  double planner_regret_pct = 0;
  bool agrees() const { return measured_fastest == predicted_fastest; }
};

// A threshold with no status gates a table that simgpt models; a `known-gap` one a table whose
// residual has no mechanism in simgpt yet.
enum class ThresholdStatus { gated, known_gap };

struct Threshold {
  double median = 0;
  double max = 0;
  // known_gap: `reason` says what is known. Its threshold still gates, and validate reports it
  // in a section of its own.
  ThresholdStatus status = ThresholdStatus::gated;
  std::string reason;
};

struct KnownGap {
  std::string table;
  std::string reason;
  double median_abs = 0; // the table's median error now (%)
};

struct ValidationReport {
  std::vector<CaseResult> cases;
  std::vector<TableSummary> tables;
  std::vector<FastestCheck> fastest; // table rows with two or more compared configurations
  TableSummary calibration;  // step time over rows profiles were fitted on
  TableSummary held_out;     // step time over every other compared row
  TableSummary calibration_transfer, held_out_transfer; // the same split for point-to-point transfers
  TableSummary calibration_memory, held_out_memory;     // the same split for peak memory
  // The closed-form estimate's step time: against the measured times of held-out rows, and
  // against the replay's prediction of every row (its "error" is estimate / replay - 1).
  TableSummary held_out_estimate, estimate_vs_replay;
  std::vector<KnownGap> known_gaps; // tables thresholds.yaml marks as known gaps, in its order
  std::vector<PlannerComparison> planner_comparisons; // another planner's runs beside simgpt plan's pick
  std::vector<std::string> gate_failures;

  // As `validate --format json` prints it.
  std::string to_json_text() const;
  std::string to_text() const;
  // The per-table summary as a Markdown table (for README).
  std::string to_markdown() const;
};

// What `simgpt row` runs in its own process: the row `id` ("TABLE/ROW") of `tables`, one table
// file or a folder of them (empty: the data folders' validation/tables), predicted, its result as
// JSON text (the report, or for a transfer table {"transfer_s": seconds}). Throws InputError when
// no row has that id.
std::string simulate_row_by_id(const std::string& id, const std::string& tables, const DataPaths& data);

// The same for a row its parent passed whole (`simgpt row --spec`, the text of row_spec_json):
// the child reads no table file, where re-reading its row's table (vtrain-single-node: 720 rows,
// 250 kB of YAML) made each row cost a parse of all the others.
std::string simulate_row_spec(const std::string& spec_json, const DataPaths& data);

// A profile parameter as `simgpt row --profile-set` takes it (SECTION.KEY=VALUE, a number), for
// DataPaths::profile_overrides.
std::pair<std::string, double> parse_profile_set(const std::string& text);

// How validate and calibrate run a row: each simulation in a new process of the simgpt
// executable (`simgpt row`), since SimGrid keeps one engine per process.
struct RowProcess {
  std::string executable; // empty: this process's own executable, which must then be simgpt
  double timeout_s = 600; // a row's process still running after this is killed
  unsigned jobs = 0;       // rows simulated at once; 0: one per core
  bool progress = false;   // a progress bar of the simulations on stderr (a terminal's only)
};

// Runs the rows' simulations `process.jobs` at a time (each in its own process). A row whose process
// died or timed out is not simulated and fails the gate. `tables` must come from
// load_validation_tables: each row's process reloads them.
ValidationReport validate(const std::vector<ValidationTable>& tables, const DataPaths& data,
                          const std::string& filter, const std::map<std::string, Threshold>& thresholds,
                          const RowProcess& process = {});

std::map<std::string, Threshold> load_thresholds(const std::string& path);
// Every data folder's validation/thresholds.yaml merged by table, an earlier folder's entry
// replacing a later one's. Throws InputError when no folder has one.
std::map<std::string, Threshold> load_thresholds(const DataPaths& data);

} // namespace simgpt
