// Predicts one training step with the simgpt library: files are turned into objects by the
// loaders, then simulate() replays the step. SimGrid allows one engine per process, so a
// program that wants several simulations runs each in its own process.
#include <simgpt/core/error.hpp>
#include <simgpt/simulate.hpp>

#include <iostream>

int main(int argc, char** argv) {
  const std::string data = SIMGPT_EXAMPLE_DATA; // the installed package's simgpt_DATA_DIR
  const std::string platform = argc > 1 ? argv[1] : data + "/platforms/p3_16xlarge.xml";
  const std::string workload = argc > 2 ? argv[2] : data + "/workloads/gpt3xl.yaml";
  try {
    const simgpt::DataPaths paths{{data}, {}}; // its one data folder
    const simgpt::Workload w = simgpt::load_workload(workload, {{"parallelism.pp", "4"}, {"placement.gpus", "4"}});
    const simgpt::Report r = simgpt::simulate(simgpt::Platform::load(platform), w,
                                              simgpt::load_workload_profile(w, paths), simgpt::load_catalog(paths));
    std::cout << r.workload << " on " << r.platform << ": step " << r.step_time_s << " s, peak memory "
              << r.peak_memory_bytes / (1024.0 * 1024 * 1024) << " GiB" << (r.oom ? " (out of memory)" : "") << "\n";
    return 0;
  } catch (const simgpt::InputError& e) {
    std::cerr << "simgpt_embed: " << e.what() << "\n";
    return 2;
  }
}
