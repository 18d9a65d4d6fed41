// A what-if study: one simulation per configuration of a grid, each in its own simgpt process,
// written one line per configuration (CSV or JSON lines) in configuration order, so that an
// interrupted sweep resumes where it stopped and a sharded one merges back into the same file.
#pragma once

#include "simgpt/study/sweep_grid.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simgpt {

enum class SweepFormat { csv, jsonl };

struct Sweep {
  std::string platform, workload; // the configuration the grid's values override
  std::vector<std::string> sets;  // KEY=VALUE overrides for every configuration, before the grid's
  SweepGrid grid;
  int shard = 1, shards = 1; // this run takes the configurations whose index % shards == shard - 1
};

struct SweepRun {
  std::string output; // the file written; lines already in it are kept and their configurations skipped
  SweepFormat format = SweepFormat::csv;
  unsigned jobs = 1;       // simulations at once
  double timeout_s = 600;  // a simulation still running after this is killed (status failed)
  std::string executable;  // the simgpt that simulates; empty: this process's own, which must be simgpt
  std::string data_dir;    // passed on as --data when not empty
  std::string fidelity;    // passed on as --fidelity (symmetric or full) when not empty
  bool progress = false;   // draw a progress bar on stderr
};

struct SweepSummary {
  int64_t configurations = 0;  // this shard's
  int64_t already_written = 0; // found in the output and skipped
  std::map<std::string, int64_t> statuses; // of those run now: ok, oom, invalid, failed
};

// Runs the sweep. Throws InputError when the output cannot be written or holds lines of another
// sweep (other columns or configurations).
SweepSummary run_sweep(const Sweep& sweep, const SweepRun& run);

// Joins the outputs of a sweep's shards into `output`, in configuration order; returns the
// number of configurations. Throws InputError when the parts are of different sweeps or
// formats, or hold one configuration twice with different lines.
int64_t merge_sweep_parts(const std::vector<std::string>& parts, const std::string& output);

} // namespace simgpt
