// Wall time of simulating a 64-stage 1F1B pipeline with 512 micro-batches (Google Benchmark).
// Each iteration builds the plan and task graph and replays it on a fresh SimGrid engine in a
// child process (SimGrid allows one engine per process); the fork is part of the measured time.
#include "support/isolate.hpp"
#include "report/report_json.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"

#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

namespace {

std::string write_platform(int nodes) {
  const std::string path = "/tmp/simgpt_bench_" + std::to_string(nodes) + ".xml";
  std::ofstream out(path);
  out << "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n";
  for (int i = 0; i < nodes; ++i)
    out << "<host id=\"gpu-" << i << "\" speed=\"1Gf\"><prop id=\"gpu\" value=\"V100-SXM2-16GB\"/></host>\n"
        << "<link id=\"nic-" << i
        << "\" bandwidth=\"10Gbps\" latency=\"25us\" sharing_policy=\"SPLITDUPLEX\"><prop id=\"role\" "
           "value=\"nic\"/></link>\n";
  // Every pair routed: simgpt checks all routes among the GPUs a job uses before it simulates.
  for (int a = 0; a < nodes; ++a)
    for (int b = 0; b < nodes; ++b)
      if (a != b)
        out << "<route src=\"gpu-" << a << "\" dst=\"gpu-" << b << "\" symmetrical=\"NO\"><link_ctn id=\"nic-" << a
            << "\" direction=\"UP\"/><link_ctn id=\"nic-" << b << "\" direction=\"DOWN\"/></route>\n";
  out << "</zone></platform>\n";
  return path;
}

void BM_Pipeline1F1B(benchmark::State& state) {
  const int stages = static_cast<int>(state.range(0));
  const int micro_batches = static_cast<int>(state.range(1));
  const std::string platform = write_platform(stages);
  const std::string yaml = "model: {layers: " + std::to_string(stages) +
                           ", hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}\n"
                           "training: {global_batch: " +
                           std::to_string(micro_batches) +
                           ", micro_batch: 1, precision: fp16}\n"
                           "parallelism: {pp: " +
                           std::to_string(stages) + ", schedule: 1f1b}\n";
  const simgpt::Workload w = simgpt::parse_workload(yaml, "bench.yaml");
  const simgpt::DataPaths data = simgpt::default_data_paths();
  double step = 0;
  for (auto _ : state) {
    auto r = simgpt::run_isolated([&] { return simgpt::report_json(simgpt::simulate(platform, w, data)); });
    step = r["step_time_s"].get<double>();
  }
  state.counters["tasks"] = 4.0 * stages * micro_batches;
  state.counters["simulated_step_s"] = step;
}

} // namespace

BENCHMARK(BM_Pipeline1F1B)->Args({8, 64})->Args({64, 512})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
