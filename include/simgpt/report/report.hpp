// What a simulation predicts for one training step, and its text and JSON forms.
#pragma once

#include "simgpt/memory/memory.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace simgpt {


struct StageReport {
  int stage = 0;
  int gpu = 0;
  int layers = 0;
  MemoryReport memory;
  double compute_s = 0;   // busy computing
  double comm_wait_s = 0; // idle, waiting for a transfer beyond when its data was produced
  double idle_s = 0;      // idle otherwise: pipeline bubble and the tail after the stage finished
};

// The step time attributed along the critical path (the chain of tasks that sets it). Compute on
// a stage's GPUs is that stage's; from stage s's view the path's compute on other stages is
// pipeline bubble (time s waits for the pipeline), so for every stage
// compute + bubble + exposed communication + other = the step time.
struct CriticalPathReport {
  struct Stage {
    int stage = 0;
    double compute_s = 0; // path compute on this stage, or on another while this stage computes too
    double bubble_s = 0;  // path compute on other stages while this stage waits for the pipeline
  };
  struct Task {
    std::string kind; // forward, backward, recompute, optimizer, p2p, allreduce, ...
    int gpu = -1;     // a transfer's sender; -1 for a collective's latency
    int stage = -1;   // -1 for collectives
    int micro_batch = -1;
    double start_s = 0;
    double duration_s = 0;
  };
  // The pacing stage's view: the stage that waits least on the path (the lowest on a tie).
  int pacing_stage = 0;
  double compute_s = 0;
  double bubble_s = 0;
  double exposed_comm_s = 0;            // the sum of comm_s
  std::map<std::string, double> comm_s; // p2p (pipeline transfers) and each collective, by name
  std::map<std::string, double> dimension_s; // the same by the parallel dimension it serves (tp, cp, ep, dp, pp)
  double other_s = 0;                   // the rest: gaps between the path's tasks (none expected)
  std::vector<Stage> stages;
  std::vector<Task> top_tasks; // the five longest on the path, longest first
};

// What a report was made from, so that it can be traced and made again: simgpt's version, each
// file the simulation read with its content's digest, the --set overrides, and the workload as
// simulated (a workload file's content, as JSON).
struct ReportInputs {
  struct File {
    std::string role;   // platform, workload, profile, gpu_catalog (one per data folder holding one)
    std::string path;   // as given (platform, workload); a data file by its place in its data folder (profiles/X.yaml)
    std::string digest; // "sha256:..." of its bytes; empty where it is not a file (a workload built in C++)
  };
  std::string version;
  std::vector<File> files;
  std::vector<std::string> overrides; // KEY=VALUE, in the order applied
  std::string resolved_workload;      // JSON text of the workload's every key after the overrides
};

struct Report {
  ReportInputs inputs;
  std::string platform;
  std::string workload;
  std::string framework;
  std::string schedule;
  int gpus = 0;
  int dp = 1, tp = 1, pp = 1;
  bool dp_derived = false; // dp was left out of the workload and derived from the GPUs
  int micro_batches = 0;
  // What was simulated (SimulationOptions::fidelity): the mode asked for, the data-parallel
  // replicas simulated, and the tensor ranks whose transfers and collectives were simulated.
  struct Fidelity {
    std::string mode = "full";
    int replicas_simulated = 1;
    int tensor_ranks_simulated = 1;
    // The size of the expert-parallel groups whose members ran as one, their all-to-alls replayed
    // whole (the first of each size with its flows, the others as long); 0: none.
    int expert_group_folded = 0;
  } fidelity;
  double step_time_s = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double model_flops = 0;   // per step, recompute not counted
  double tflops_per_gpu = 0;
  // Model FLOPs utilisation: tflops_per_gpu over the GPU's dense peak in the training precision
  // (`peak_precision`: bf16, fp16 or fp32; an fp8 run's too, as Megatron-LM reports it), and
  // the hardware FLOPs utilisation, which counts what recompute runs again.
  double mfu = 0;
  double hfu = 0;
  double peak_tflops_per_gpu = 0;
  std::string peak_precision;
  // At this step's throughput, what training.tokens take (absent when not given): days of wall
  // time, GPU-hours, and with training.gpu_hour_price their cost (0 without a price).
  struct TimeToTrain {
    double tokens = 0;
    double days = 0;
    double gpu_hours = 0;
    double cost = 0;
  };
  std::optional<TimeToTrain> time_to_train;
  double p2p_bytes = 0;     // bytes moved by pipeline transfers
  int p2p_transfers = 0;
  CriticalPathReport critical_path;
  struct Collectives {
    std::string kind;
    int count = 0;     // over all groups
    int per_gpu = 0;   // those GPU 0 runs
    double bytes = 0; // sent by all members
  };
  std::vector<Collectives> collectives; // per step, by kind
  // The step's communication by the parallel dimension it serves (tp, cp, ep, dp, pp, each listed
  // after a replay, 0 where the plan has none), as Calculon reports it: what is moved, how long
  // `view_gpu` (the pacing stage's first GPU) has it in flight, how much of that its own compute
  // hides, and how much of the step it adds (its time on the critical path).
  struct Communication {
    std::string dimension;
    int count = 0;        // collectives (pp: transfers) per step, over all groups
    int per_gpu = 0;      // those GPU 0 takes part in
    double bytes = 0;     // sent by all members
    double in_flight_s = 0;
    double hidden_s = 0;  // of in_flight_s, while view_gpu computes
    double exposed_s = 0; // on the critical path
    int from_table = 0;   // of count, priced by a kernel table's measured line over NVLink
  };
  std::vector<Communication> communication;
  int communication_gpu = 0; // the view GPU of in_flight_s and hidden_s
  std::vector<StageReport> stages;
  double peak_memory_bytes = 0; // the largest over GPUs: what the device must hold
  int peak_memory_stage = 0;
  double peak_allocated_bytes = 0; // the largest over GPUs of the live tensors alone (no context, no
                                   // allocator cache): what a framework's own peak-allocation counter reports
  double peak_reserved_bytes = 0; // the largest over GPUs of the live tensors and the allocator's cache (no
                                  // context): PyTorch's torch.cuda.max_memory_reserved
  bool oom = false;             // some GPU's peak exceeds its memory
  std::vector<int> oom_stages;
  // The closed-form estimate of the same step (--fidelity estimate's figures), beside a replay
  // that was asked for it (SimulationOptions::estimate_beside): how far the fast answer is from
  // the replayed one, row by row.
  struct Estimate {
    double step_time_s = 0;
    double peak_memory_bytes = 0;
    // Flows sharing a link were priced as moving at once: the replay, where they can drift
    // apart, can be faster than the estimate.
    bool contended = false;
  };
  std::optional<Estimate> estimate;
  // The workload's conditions (conditions.hpp) as the replay met them: each slowed GPU with how
  // long its stream's compute is on the critical path and how much of that its slowdown adds
  // (the path's compute x (1 - 1 / factor): what the step would lose were that compute at full
  // speed and the path unchanged), each conditioned link with the time of the path's transfers and
  // collectives whose routes cross it; absent without conditions.
  struct Conditions {
    struct Gpu {
      int gpu = 0; // the platform's numbering
      double factor = 1;
      double path_compute_s = 0;
      double path_cost_s = 0;
    };
    struct Link {
      std::string link;
      double bandwidth_factor = 1;
      double latency_added_s = 0;
      bool down = false; // its GPUs re-routed (or the job refused)
      double path_s = 0;
    };
    // The slowed ones, in GPU order. A GPU whose kernels share a stream with others (an isolated
    // tensor-parallel group's) has the stream's path compute when it is one of its slowest, as
    // the group's members compute in lockstep at that pace.
    std::vector<Gpu> gpus;
    double path_cost_s = 0; // what the slowdowns add to the path's compute, each stream once
    std::vector<Link> links;
    bool random = false; // some GPUs from a seeded draw
    double random_fraction = 0;
    uint64_t seed = 0;
    // The replay simulated every replica where symmetric fidelity was asked: slowed GPUs (or a NIC
    // down, its GPUs sharing another) make the replicas unlike.
    bool every_replica = false;
  };
  std::optional<Conditions> conditions;
  // Where the job ran when not from the platform's first GPU (placement.first_gpu), and beside how
  // many other jobs on the same fabric (0: alone); the job's GPUs by model when they are of
  // several (mixed hardware: "8 x H100-SXM5-80GB, 8 x H200-SXM-141GB"), empty otherwise.
  int first_gpu = 0;
  int neighbour_jobs = 0;
  std::string gpu_models;
  // Where the kernel time of one data-parallel replica's step (its pipeline stages, one tensor rank
  // each) came from, per kind of kernel (gemm, grouped_gemm, attention, memory): the GPU's kernel
  // tables of measured timings (a row's time, or interpolated between rows) or the cost model's
  // own pricing (datasheet peak x efficiency, HBM bandwidth).
  struct KernelTime {
    std::string kind;
    double measured_s = 0;
    double fallback_s = 0;
  };
  std::vector<KernelTime> kernel_time;
  std::vector<std::string> kernel_tables; // the tables' files, by their place in their data folder

  // The JSON form as `--format json` prints it: it carries `schema` (kReportSchema), values
  // rounded to 9 significant digits.
  std::string to_json_text() const;
  std::string to_text() const;
};

// The version of Report's JSON form; it changes when a field changes meaning or is removed.
// 2: critical_path attributes the step time (its compute_s is the pacing stage's, no longer all).
inline constexpr const char* kReportSchema = "simgpt.report/2";

} // namespace simgpt
