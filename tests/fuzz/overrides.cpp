// libFuzzer target: `--set SECTION.KEY=VALUE` overrides over a small valid workload.
// The input is split at newlines into at most 8 override strings; each goes through
// parse_override (as the command line does), then all are applied by parse_workload.
// InputError (and LimitError) is the answer to bad input; anything else is a finding.
#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"
#include "accepted_workload.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

const char* const kBase = R"(model:
  layers: 4
  hidden: 256
  heads: 4
  seq_len: 128
  vocab: 1000
training:
  global_batch: 8
  micro_batch: 1
  precision: fp16
parallelism:
  dp: 1
  tp: 1
  pp: 2
  schedule: 1f1b
framework: generic
)";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  simgpt::Overrides overrides;
  size_t start = 0;
  while (start <= input.size() && overrides.size() < 8) {
    size_t end = input.find('\n', start);
    if (end == std::string::npos)
      end = input.size();
    try {
      overrides.push_back(simgpt::parse_override(input.substr(start, end - start)));
    } catch (const simgpt::InputError&) {
    }
    start = end + 1;
  }
  try {
    const simgpt::Workload w = simgpt::parse_workload(kBase, "base.yaml", overrides);
    check_accepted(w);
  } catch (const simgpt::InputError&) {
  }
  return 0;
}
