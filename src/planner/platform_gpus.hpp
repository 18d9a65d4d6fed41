// The GPUs a platform file declares, read without SimGrid: a planner needs their count and model
// before it simulates anything (each simulation loads the platform in its own process).
#pragma once

#include <cstdint>
#include <string>

namespace simgpt {

struct PlatformGpus {
  int64_t count = 0;  // hosts named gpu-0, gpu-1, ...
  std::string model;  // gpu-0's `gpu` property, a GPU catalog model
};

// Throws InputError naming the file when it cannot be read or declares no GPU host with a `gpu`
// property. The simulation checks the rest (numbering, routes, one model per job).
PlatformGpus read_platform_gpus(const std::string& path);

} // namespace simgpt
