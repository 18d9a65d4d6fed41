// libFuzzer target: the workload parser on arbitrary YAML text.
// InputError (and LimitError) is the parser's answer to bad input; any other exception escapes
// (std::terminate, a finding), as does any crash or sanitizer report.
#include "simgpt/core/error.hpp"
#include "simgpt/workload/workload.hpp"
#include "accepted_workload.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const simgpt::Workload w = simgpt::parse_workload(text, "fuzz.yaml");
    check_accepted(w);
  } catch (const simgpt::InputError&) {
  }
  return 0;
}
