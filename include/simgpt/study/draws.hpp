// A Monte Carlo study of slow GPUs: the same job simulated over seeded random draws of which GPUs
// are slow and by how much (the workload's conditions.random_fraction and random_slowdown), each
// draw in its own simgpt process, and the distribution of the step time over them.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace simgpt {

struct DrawRequest {
  std::string platform, workload;
  std::vector<std::string> sets; // KEY=VALUE overrides, before each draw's conditions.seed
  int draws = 100;
  unsigned jobs = 1;
  std::string executable;                // the simgpt that simulates; empty: this process's own
  std::vector<std::string> data_folders; // each passed on as --data
  std::string fidelity;                  // passed on as --fidelity when not empty
  double timeout_s = 600;
  bool progress = false;                 // a progress bar on stderr
};

// Step-time percentiles over draws, linear between order statistics (Hyndman and Fan's
// definition 7, as numpy's default): p in [0, 100].
double percentile(std::vector<double> values, double p);

struct DrawSummary {
  uint64_t first_seed = 1; // the workload's conditions.seed; draw i has seed first_seed + i
  struct Draw {
    uint64_t seed = 0;
    std::string status; // ok, oom, invalid, failed
    double step_time_s = 0;
    double path_cost_s = 0; // what the draw's slowdowns add to its critical path's compute
    std::string reason;
  };
  std::vector<Draw> draws; // in seed order
  int ok = 0;              // draws simulated (ok or oom)
  double median_s = 0, p90_s = 0, p99_s = 0, min_s = 0, max_s = 0;
  // The job without the drawn GPUs (conditions.random_fraction 0; its other conditions kept).
  std::string baseline_status;
  double baseline_s = 0;
  uint64_t median_seed = 0;             // the draw whose step time is nearest the median
  nlohmann::ordered_json median_report; // its report

  std::string to_text(const std::string& title) const;
  nlohmann::ordered_json to_json() const;
};

// Runs the draws and the baseline, `jobs` at a time. Throws InputError, before any simulation,
// when the workload (with `sets`) does not load or draws no GPUs (conditions.random_fraction),
// or when `draws` is out of range; and when every draw is invalid, with the first one's reason.
DrawSummary run_draws(const DrawRequest& request);

// The most draws one study runs: enough for a 99.9th percentile, and each is a simulation.
inline constexpr int kMaxDraws = 10000;

} // namespace simgpt
