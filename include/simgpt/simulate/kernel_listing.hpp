// The kernels a job runs that a kernel table could time (platforms/kernels/README.md), with how
// often a step runs each, its time now and where that time came from: what `simgpt kernels`
// prints, and what bench/device/measure_kernels.py reads to time them on the user's GPU.
#pragma once

#include "simgpt/report/report.hpp"
#include "simgpt/simulate/data_paths.hpp"
#include "simgpt/workload/workload.hpp"

#include <string>
#include <utility>
#include <vector>

namespace simgpt {

struct KernelListing {
  std::string gpu;                 // the catalog's name: a table for it is platforms/kernels/<gpu>.yaml
  std::vector<std::string> tables; // the kernel tables in use, their rows winning in this order
  struct Row {
    std::string kind; // gemm, grouped_gemm, attention, memory
    std::vector<std::pair<std::string, std::string>> fields; // a table row's keys, in its order, but us
    double calls = 0;   // runs in one step of one data-parallel replica (all its stages)
    double seconds = 0; // each, as simgpt times it now
    std::string source; // table, interpolated or fallback
    double width = 0;   // a norm's row width (its hidden size) where known: how to lay out its measurement
  };
  std::vector<Row> rows;
  std::vector<Report::KernelTime> time; // the step's kernel time by kind, every kernel counted

  // As JSON (bench/device/measure_kernels.py's input), and as YAML in the table's row format
  // with each row's source and calls in a comment.
  std::string to_json_text() const;
  std::string to_yaml_text() const;
};

// The listing of one step of `workload` on `platform_path`, with `data`'s GPU catalog and kernel
// tables. Throws InputError as simulate does for inputs it cannot simulate.
KernelListing list_kernels(const std::string& platform_path, const Workload& workload, const DataPaths& data);

} // namespace simgpt
