// libFuzzer target: a kernel table (platforms/kernels/<GPU>.yaml, system/kernel_table.hpp) on
// arbitrary YAML text. InputError (and LimitError) is the loader's answer to bad input; any other
// exception escapes (std::terminate, a finding), as does any crash or sanitizer report, or a loaded
// table that answers a lookup with a time that is not finite and positive, or holds a collective's
// line that is not finite.
#include "simgpt/core/error.hpp"
#include "system/kernel_table.hpp"

#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

const std::string& table_path() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("simgpt_fuzz_kernel_table_" + std::to_string(::getpid()) + ".yaml"))
          .string();
  return path;
}

// Shapes the seed corpus's rows hold or bracket, and some they do not.
void check_lookups(const simgpt::KernelTable& t) {
  using simgpt::KernelTable;
  const KernelTable::Shape shapes[] = {
      KernelTable::gemm(KernelTable::Kind::gemm, "bf16", "TN", "bf16", 1, 4096, 1024, 8192),
      KernelTable::gemm(KernelTable::Kind::gemm, "bf16", "TN", "bf16", 1, 4096, 1448, 8192),
      KernelTable::gemm(KernelTable::Kind::grouped_gemm, "bf16", "NT", "fp32", 8, 2048, 1024, 300),
      KernelTable::attention("bf16", true, true, "strided", 1, 4096, 48, 6, 128, 128),
      KernelTable::memory("rmsnorm", "bf16", false, 3000000)};
  for (const KernelTable::Shape& s : shapes)
    if (const auto time = t.find(s); time && !(std::isfinite(time->seconds) && time->seconds > 0))
      std::abort();
  // A collective's line: a finite positive bandwidth, finite times and size of at least 0.
  for (const char* op : {"all_gather", "reduce_scatter", "all_reduce", "all_to_all"})
    for (int ranks : {2, 4, 8})
      if (const KernelTable::CollectiveLine* line = t.collective(op, ranks);
          line && !(std::isfinite(line->bus_Bps) && line->bus_Bps > 0 && std::isfinite(line->step_s) &&
                    line->step_s >= 0 && std::isfinite(line->call_s) && line->call_s >= 0 &&
                    std::isfinite(line->from_bytes) && line->from_bytes >= 0))
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(table_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    check_lookups(simgpt::KernelTable::load(table_path(), "X", 4e-6));
  } catch (const simgpt::InputError&) {
  }
  return 0;
}
