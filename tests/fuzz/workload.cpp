// libFuzzer target: the workload parser on arbitrary YAML text.
// InputError (and LimitError) is the parser's answer to bad input; any other exception escapes
// (std::terminate, a finding), as does any crash or sanitizer report.
#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const simgpt::Workload w = simgpt::parse_workload(text, "fuzz.yaml");
    // An accepted workload is consistent: positive degrees and at least one micro-batch.
    if (w.parallelism.dp < 1 || w.parallelism.tp < 1 || w.parallelism.pp < 1 || w.training.micro_batch < 1)
      std::abort();
    if (w.gpus() < 1 || w.micro_batches() < 1)
      std::abort();
  } catch (const simgpt::InputError&) {
  }
  return 0;
}
