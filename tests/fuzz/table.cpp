// libFuzzer target: the validation table loader on arbitrary YAML text, written as the one table
// of a directory. InputError (and LimitError) is the loader's answer to bad input; any other
// exception escapes (std::terminate, a finding), as does any crash or sanitizer report, or a
// loaded table whose measured values are not finite or whose ids would join ambiguously.
#include "simgpt/core/error.hpp"
#include "simgpt/validation/validation.hpp"

#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

// One directory per fuzzing process, its table rewritten for each input.
const std::string& table_dir() {
  static const std::string dir = [] {
    const std::string d = (std::filesystem::temp_directory_path() / ("simgpt_fuzz_table_" + std::to_string(::getpid())))
                              .string();
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

void check_loaded(const simgpt::ValidationTable& t) {
  if (t.id.empty() || t.id.find('/') != std::string::npos)
    std::abort();
  for (const simgpt::ValidationRow& row : t.rows) {
    if (row.id.empty() || row.id.find('/') != std::string::npos)
      std::abort();
    for (const auto& [metric, value] : row.measured)
      if (!std::isfinite(value) || value < 0)
        std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(table_dir() + "/t.yaml", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    for (const simgpt::ValidationTable& t : simgpt::load_validation_tables(table_dir()))
      check_loaded(t);
  } catch (const simgpt::InputError&) {
  }
  return 0;
}
