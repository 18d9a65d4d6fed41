// The GPU catalog simgpt ships (platforms/gpus.yaml and the kernel tables beside it), loaded once
// per test process.
#pragma once

#include "simgpt/simulate/data_paths.hpp"
#include "simgpt/system/gpu.hpp"

namespace simgpt::testing {

inline const GpuCatalog& shipped_catalog() {
  static const GpuCatalog c = GpuCatalog::load(default_data_paths().catalog());
  return c;
}

} // namespace simgpt::testing
