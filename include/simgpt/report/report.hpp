// What a simulation predicts for one training step, and its text and JSON forms.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace simgpt {

struct MemoryReport {
  double weights = 0, gradients = 0, optimizer_state = 0, activations = 0, transient = 0, framework = 0;
  double peak = 0;          // bytes
  double peak_time_s = 0;   // when in the step the peak occurs
  int in_flight = 0;        // micro-batches holding activations at the peak
  double capacity = 0;      // the GPU's memory
  double usable = 0;        // what the framework may fill: its context plus its allocator's pool
};

struct StageReport {
  int stage = 0;
  int gpu = 0;
  int layers = 0;
  MemoryReport memory;
  double compute_s = 0;   // busy computing
  double comm_wait_s = 0; // idle, waiting for a transfer beyond when its data was produced
  double idle_s = 0;      // idle otherwise: pipeline bubble and the tail after the stage finished
};

struct Report {
  std::string platform;
  std::string workload;
  std::string framework;
  std::string schedule;
  int gpus = 0;
  int dp = 1, tp = 1, pp = 1;
  int micro_batches = 0;
  double step_time_s = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double model_flops = 0;   // per step, recompute not counted
  double tflops_per_gpu = 0;
  double p2p_bytes = 0;     // bytes moved by pipeline transfers
  int p2p_transfers = 0;
  double critical_compute_s = 0; // on the critical path
  double critical_comm_s = 0;    // transfers and collective latencies on the critical path
  struct Collectives {
    std::string kind;
    int count = 0;     // over all groups
    int per_gpu = 0;   // those GPU 0 runs
    double bytes = 0; // sent by all members
  };
  std::vector<Collectives> collectives; // per step, by kind
  std::vector<StageReport> stages;
  double peak_memory_bytes = 0; // the largest over GPUs: what the device must hold
  int peak_memory_stage = 0;
  double peak_allocated_bytes = 0; // the largest over GPUs of the live tensors alone (no context, no
                                   // allocator cache): what a framework's own peak-allocation counter reports
  bool oom = false;             // some GPU's peak exceeds its memory
  std::vector<int> oom_stages;

  // The JSON form carries `schema` (kReportSchema); from_json reads what to_json wrote (values
  // rounded to 9 significant digits) and throws InputError for another schema or a missing key.
  nlohmann::ordered_json to_json() const;
  static Report from_json(const nlohmann::ordered_json& j);
  std::string to_text() const;
};

// The version of Report's JSON form; it changes when a field changes meaning or is removed.
inline constexpr const char* kReportSchema = "simgpt.report/1";

} // namespace simgpt
