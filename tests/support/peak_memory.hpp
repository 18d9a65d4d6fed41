// The peak allocated bytes of one simulated step: a shipped workload with overrides, on a shipped
// platform, replayed in a forked child (isolate.hpp). For tests that compare the memory of two
// settings of one key.
#pragma once

#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"
#include "support/isolate.hpp"

#include <string>

namespace simgpt {

inline double peak_allocated_bytes(const std::string& platform, const std::string& workload, const Overrides& sets) {
  const DataPaths data = default_data_paths();
  const auto report = run_isolated([&] {
    const Workload w = load_workload(data.find(workload), sets);
    return report_json(simulate(data.find(platform), w, data));
  });
  return report["peak_allocated_gib"].get<double>() * (1 << 30);
}

} // namespace simgpt
