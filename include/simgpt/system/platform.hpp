// A cluster as a SimGrid platform file. SimGrid reads platforms from files
// (s4u::Engine::load_platform), so the object names a checked, readable file; the simulation
// loads it into its engine.
#pragma once

#include "simgpt/core/enum_names.hpp"

#include <string>

namespace simgpt {

// A node's host CPU, as a GPU host's `cpu` property names it: NCCL's tuning reads its vendor
// (src/graph/tuning.cc: getNetOverhead and LL's ceiling across nodes differ on AMD x86).
// unspecified: NCCL's figures for Intel and other CPUs.
enum class HostCpu { unspecified, intel, amd, arm, power };
inline constexpr EnumName<HostCpu> kHostCpuNames[] = {
    {HostCpu::intel, "intel"}, {HostCpu::amd, "amd"}, {HostCpu::arm, "arm"}, {HostCpu::power, "power"}};
constexpr std::span<const EnumName<HostCpu>> enum_names(HostCpu) { return kHostCpuNames; }
// The CPU a name gives; throws InputError naming `where` and the valid names otherwise.
HostCpu host_cpu_named(const std::string& name, const std::string& where);

struct Platform {
  std::string path;
  // Checks that `path` is a readable regular file; throws InputError otherwise.
  static Platform load(const std::string& path);
  // The file's name without its folders, as reports print it.
  std::string name() const;
};

} // namespace simgpt
