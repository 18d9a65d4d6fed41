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

// `--shard I/N`: N at most this, and `sweep merge` takes at most this many parts. A merge holds
// every part open at once with a 64 KiB read buffer (about 70 KB a part), and a process may
// usually open 1,024 files: 512 parts stay within both (36 MB), and a sweep is rarely spread
// over more machines than that.
inline constexpr int kMaxSweepShards = 512;

struct SweepRun {
  std::string output; // the file written; lines already in it are kept and their configurations skipped
  SweepFormat format = SweepFormat::csv;
  unsigned jobs = 1;       // simulations at once
  double timeout_s = 600;  // a simulation still running after this is killed (status failed)
  double memory_limit_bytes = 0; // the heap each simulation may take (--memory-limit); 0: no limit
  std::string executable;  // the simgpt that simulates; empty: this process's own, which must be simgpt
  std::vector<std::string> data_folders; // each passed on as --data, in order (DataPaths::folders)
  std::string fidelity;    // passed on as --fidelity (symmetric or full) when not empty
  bool progress = false;   // draw a progress bar on stderr
  // Each configuration simulated over this many seeded draws of its random slow GPUs (draws.hpp):
  // its line is the median draw's, with the draws' step-time percentiles; 0: one simulation.
  int draws = 0;
};

struct SweepSummary {
  int64_t configurations = 0;  // this shard's
  int64_t already_written = 0; // found in the output and skipped
  std::map<std::string, int64_t> statuses; // of those run now: ok, oom, invalid, failed
};

// Runs the sweep. Throws InputError, before any simulation, when the inputs every configuration
// shares are bad (the platform file, the workload with the --set overrides), when the output
// cannot be written, is locked by another sweep or holds anything but lines of this sweep (each
// line records the sweep's digest: its files' content, --set, grid and fidelity); and when a
// write fails, once the simulations running end (none starts after it), the file cut back to its
// whole lines.
SweepSummary run_sweep(const Sweep& sweep, const SweepRun& run);

// Joins the outputs of a sweep's shards into `output` (written whole or not at all), in
// configuration order; returns the number of configurations. Throws InputError naming the part
// and line when a part is missing, unreadable or not a sweep file, of another sweep or format,
// when two parts hold one configuration with different lines, or when a configuration is in no
// part (a shard missing or unfinished); LimitError for a part larger than 256 MiB.
int64_t merge_sweep_parts(const std::vector<std::string>& parts, const std::string& output);

} // namespace simgpt
