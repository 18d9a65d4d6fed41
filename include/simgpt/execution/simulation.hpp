// One simulated training step, from a workload and a platform to a report: the whole
// data flow (model -> plan -> task graph -> SimGrid replay -> report) behind one call.
#pragma once

#include "simgpt/report/report.hpp"
#include "simgpt/workload/workload.hpp"

#include <string>
#include <utility>
#include <vector>

namespace simgpt {

// Where simgpt's data files live: platforms/gpus.yaml and profiles/.
struct DataPaths {
  std::string root;
  // Profile parameters to use instead of the profile file's (for calibration), key -> value.
  std::vector<std::pair<std::string, double>> profile_overrides;
  std::string catalog() const { return root + "/platforms/gpus.yaml"; }
  std::string profiles() const { return root + "/profiles"; }
};

// $SIMGPT_DATA if set, else the source tree simgpt was built from.
DataPaths default_data_paths();

// Simulates one step. Throws InputError for inputs that cannot be simulated. SimGrid allows
// one simulation per process: callers that run several use run_isolated().
Report simulate(const std::string& platform_path, const Workload& workload, const DataPaths& data);

// Seconds one point-to-point transfer of `bytes` from GPU `from` to GPU `to` takes with a
// profile's transfer settings: what a user measures before trusting the network model.
double simulate_transfer(const std::string& platform_path, int from, int to, double bytes, const NetworkWhatIf& network,
                         const std::string& profile, const DataPaths& data);

} // namespace simgpt
