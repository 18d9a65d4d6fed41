#include "simgpt/system/gpu.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"

#include "support/scratch_data_folder.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace simgpt;
using testing::ScratchDataFolder;

namespace {

// A GPU entry of platforms/gpus.yaml with `memory` and one more `extra` line.
std::string gpu_entry(const std::string& name, const std::string& memory, const std::string& extra = "") {
  return name + ":\n  peak_tflops: {fp32: 15.7, fp16: 125}\n  memory_bandwidth: 900GBps\n  memory: " + memory +
         "\n  sms: 80\n  gemm_efficiency: {fp32: 0.92, fp16: 0.72}\n  memory_efficiency: 0.85\n"
         "  kernel_launch: 4us\n  gemm_tile: 128\n" + extra;
}

} // namespace

TEST_CASE("a user's GPU catalog adds its GPUs to the built-in ones and replaces those of the same name",
          "[data_paths]") {
  const ScratchDataFolder user("catalog_user");
  const std::string file =
      user.write("platforms/gpus.yaml", gpu_entry("V100-NEW", "8GiB") + gpu_entry("V100-SXM2-16GB", "1GiB"));
  const DataPaths data = data_paths_at({user.path()});
  const GpuCatalog catalog = load_catalog(data);
  const std::string builtin = data.folders.back() + "/platforms/gpus.yaml";
  CHECK(catalog.files() == std::vector<std::string>{file, builtin});
  CHECK(catalog.at("V100-NEW", "test").memory_bytes == 8.0 * (1 << 30));
  CHECK(catalog.at("V100-NEW", "test").file == file);
  // Replaced whole: the user's entry, not a mix of both.
  CHECK(catalog.at("V100-SXM2-16GB", "test").memory_bytes == 1.0 * (1 << 30));
  CHECK(catalog.at("V100-SXM2-16GB", "test").compute_capability == 0);
  CHECK(catalog.at("A100-SXM4-40GB", "test").file == builtin);
  // An unknown GPU's message lists those of both files.
  CHECK_THROWS_WITH(catalog.at("X100", "p.xml: gpu"),
                    Catch::Contains("unknown GPU 'X100'") && Catch::Contains("V100-NEW") &&
                        Catch::Contains("A100-SXM4-40GB"));
}

TEST_CASE("each catalog file is checked whole: a user's file with an unknown key is refused, named",
          "[data_paths]") {
  const ScratchDataFolder user("catalog_user");
  const std::string file = user.write("platforms/gpus.yaml", gpu_entry("V100-NEW", "8GiB", "  colour: green\n"));
  CHECK_THROWS_WITH(load_catalog(data_paths_at({user.path()})),
                    Catch::StartsWith(file + ": V100-NEW.colour") && Catch::Contains("unknown key"));
  user.write("platforms/gpus.yaml", gpu_entry("V100-NEW", "8GiB") + gpu_entry("V100-NEW", "9GiB"));
  CHECK_THROWS_WITH(load_catalog(data_paths_at({user.path()})), Catch::Contains("duplicated key"));
}

TEST_CASE("the catalog's fp8 tensor-core peaks: the datasheets' dense figures, none before compute capability 8.9",
          "[data_paths]") {
  const GpuCatalog catalog = load_catalog(data_paths_at({}));
  // Datasheets' "with sparsity" FP8 figures halved: H100 SXM and H200 3,958 TFLOPS, DGX B200 72
  // PFLOPS over 8 GPUs, GB200 NVL72 720 PFLOPS over 72.
  const std::pair<const char*, double> peaks[] = {{"H100-SXM5-80GB", 1979e12},
                                                  {"H200-SXM-141GB", 1979e12},
                                                  {"B200-SXM-180GB", 4500e12},
                                                  {"GB200-186GB", 5000e12}};
  for (const auto& [name, peak] : peaks) {
    CHECK(catalog.at(name, "test").fp8_peak_flops == Approx(peak));
    CHECK(catalog.at(name, "test").fp8_gemm_efficiency > 0);
  }
  for (const char* name : {"V100-SXM2-16GB", "V100-SXM2-32GB", "A100-SXM4-40GB", "A100-SXM4-80GB"})
    CHECK(catalog.at(name, "test").fp8_peak_flops == 0);
  // An fp8 peak needs the fp8 GEMMs' efficiency beside it.
  const ScratchDataFolder user("catalog_user");
  const std::string file =
      user.write("platforms/gpus.yaml", gpu_entry("V100-NEW", "8GiB").replace(
                                            gpu_entry("V100-NEW", "8GiB").find("fp16: 125}"), 10, "fp16: 125, fp8: 250}"));
  CHECK_THROWS_WITH(load_catalog(data_paths_at({user.path()})),
                    Catch::StartsWith(file + ": V100-NEW.gemm_efficiency") && Catch::Contains("missing fp8"));
}
