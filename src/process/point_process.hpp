// One configuration simulated in its own `simgpt point` process (SimGrid keeps one engine per
// process): what sweep runs for each configuration and plan for each candidate.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace simgpt {

struct PointProcess {
  std::string executable; // the simgpt that simulates (resolved: see simgpt_executable)
  std::vector<std::string> data_folders; // each passed on as --data, in order
  double timeout_s = 600; // a simulation still running after this is killed (status failed)
  std::string fidelity;   // passed on as --fidelity (symmetric, full or estimate) when not empty
  double memory_limit_bytes = 0; // passed on as --memory-limit (limit_heap_growth); 0: no limit
};

struct PointOutcome {
  std::string status;            // ok, oom (a result whose memory does not fit), invalid, failed
  nlohmann::ordered_json report; // ok and oom: the report's JSON form
  std::string reason;            // invalid and failed: why
};

// Simulates `workload` with the `sets` (KEY=VALUE) on `platform` in a new process.
PointOutcome run_point(const std::string& platform, const std::string& workload, const std::vector<std::string>& sets,
                       const PointProcess& process);

} // namespace simgpt
