// One simulated training step, from a workload and a platform to a report: the whole
// data flow (model -> plan -> task graph -> SimGrid replay -> report) behind one call.
//
// SimGrid allows one engine per process, and an engine cannot be reset: a process runs at most
// one simulation. Callers that run several (validate, calibrate) start a process per
// simulation; see the `simgpt` command's `row` subcommand.
#pragma once

#include "simgpt/simulate/data_paths.hpp"
#include "simgpt/framework/profile.hpp"
#include "simgpt/report/report.hpp"
#include "simgpt/report/trace_selection.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/system/platform.hpp"
#include "simgpt/workload/workload.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace simgpt {

// What a simulation writes beside its report.
struct SimulationOptions {
  // A Chrome trace-event JSON file of the replayed step (Perfetto, chrome://tracing): each GPU's
  // compute slices per layer, pipeline transfers, collectives and memory; gzip-compressed when
  // the name ends in .gz. Empty: none. The step simulated is the same, and so is the report.
  std::string trace_path;
  // What the trace draws: its GPUs (each within the job) and a window of the step.
  TraceSelection trace_selection;
  // Collectives over links nothing else uses replayed whole, their group's GPUs on one stream
  // (the same times with fewer tasks); false replays every collective's flows, to check that.
  bool isolate_collectives = true;
  // Symmetric: data-parallel replicas, and tensor ranks' pipeline transfers, that are alike and
  // use links of their own are simulated once (execution/step_graph.hpp says when); the report
  // still counts all. Full: every GPU's stream and every transfer. Estimate: no task graph and
  // no replay; the step time in closed form from the same kernels, collectives and schedule
  // (estimate/step_estimate.hpp), each stage's memory from its schedule's order
  // (memory/static_peak.hpp): milliseconds where a replay takes seconds.
  enum class Fidelity { symmetric, full, estimate };
  Fidelity fidelity = Fidelity::symmetric;
  // A replay's report also carries the estimate of the same step (Report::estimate).
  bool estimate_beside = false;
};

// Simulates one step of `workload` on `platform` with the framework `profile` (the workload's
// framework, its options applied) and the GPUs of `catalog`. Throws InputError for inputs that
// cannot be simulated (and for a trace path that cannot be written, a trace GPU outside the job
// or a window that starts after the step), LimitError for a trace that would draw too much
// (report/trace.hpp). One call per process (see above).
Report simulate(const Platform& platform, const Workload& workload, const Profile& profile, const GpuCatalog& catalog,
                const SimulationOptions& options = {});

// Seconds one point-to-point transfer of `bytes` from GPU `from` to GPU `to` takes with a
// profile's transfer settings: what a user measures before trusting the network model.
double simulate_transfer(const Platform& platform, int from, int to, double bytes, const NetworkWhatIf& network,
                         const Profile& profile, const GpuCatalog& catalog);

// Seconds one collective (`allreduce`, `reducescatter`, `allgather`, `broadcast`, `reduce`) of a
// buffer of `bytes` per GPU takes over the platform's first `gpus` GPUs, alone on the platform,
// laid out and replayed as a training step's collective over that group: what a collective
// benchmark (nccl-tests) measures. A benchmark thread that drives `gpus_per_thread` GPUs launches
// the collective's kernel on each in turn, one per GPU's kernel_launch: back-to-back calls take
// at least that long, however short the collective.
double simulate_collective(const Platform& platform, const std::string& collective, int gpus, double bytes,
                           const NetworkWhatIf& network, const Profile& profile, const GpuCatalog& catalog,
                           int gpus_per_thread = 1);

// The files a simulation of `workload_path` (with `overrides`) on `platform_path` reads: those
// two, its profile and the GPU catalog's files. An output named like one of them is refused (it
// would replace what the simulation reads). Throws InputError when the workload cannot be loaded.
std::vector<std::string> simulation_input_files(const std::string& platform_path, const std::string& workload_path,
                                                const Overrides& overrides, const DataPaths& data);

// Loaders that turn files into the objects above.
// Every data folder's platforms/gpus.yaml merged (GpuCatalog::load); InputError when none has one.
GpuCatalog load_catalog(const DataPaths& data);
// The profile `name` from `data`'s profiles/ folders (the first that has it), its `options` and
// `data`'s overrides applied.
Profile load_profile_of(const DataPaths& data, const std::string& name, const std::string& where,
                        const std::map<std::string, std::string>& options = {});
// The workload's framework profile with its framework_options and `data`'s overrides applied.
Profile load_workload_profile(const Workload& workload, const DataPaths& data);

// Jobs sharing one platform's fabric, each on its own GPUs (placement.first_gpu, placement.gpus),
// replayed together from the same instant: their flows contend on the links they share, and
// each job's report (in the order given) is its own step. The fabric is one: its network
// what-if and the transfer settings of the jobs' profiles must agree, and its link conditions
// are every job's together. Every replica is simulated (another job's flows make a job's
// replicas unlike), and no collective is replayed alone on links another job's communication
// crosses. Throws InputError as simulate() does, and for jobs whose GPUs overlap, a trace, or
// --fidelity estimate. One call per process.
std::vector<Report> simulate_jobs(const std::string& platform_path, const std::vector<Workload>& workloads,
                                  const DataPaths& data, const SimulationOptions& options = {});

// The same as the object call, from files: what the `simgpt` command runs.
Report simulate(const std::string& platform_path, const Workload& workload, const DataPaths& data,
                const SimulationOptions& options = {});
double simulate_transfer(const std::string& platform_path, int from, int to, double bytes, const NetworkWhatIf& network,
                         const std::string& profile, const DataPaths& data);
double simulate_collective(const std::string& platform_path, const std::string& collective, int gpus, double bytes,
                           const NetworkWhatIf& network, const std::string& profile, const DataPaths& data,
                           int gpus_per_thread = 1);

} // namespace simgpt
