#include "system/cluster.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "support/isolate.hpp"

#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

using namespace simgpt;

namespace {

// The error a cluster of p3_2xlarge_x2.xml raises with its first `attribute` set to `value`.
std::string load_error(const std::string& attribute, const std::string& value) {
  const DataPaths data = default_data_paths();
  std::stringstream text;
  text << std::ifstream(data.find("platforms/p3_2xlarge_x2.xml")).rdbuf();
  const std::string xml = std::regex_replace(text.str(), std::regex(attribute + "=\"[^\"]*\""),
                                             attribute + "=\"" + value + "\"", std::regex_constants::format_first_only);
  const std::string path = testing::scratch_file("cluster_" + attribute, ".xml", xml);
  const GpuCatalog catalog = load_catalog(data);
  try {
    run_isolated([&] {
      Cluster cluster(Platform::load(path), catalog, NetworkWhatIf{}, Profile{});
      return nlohmann::ordered_json(cluster.gpus().size());
    });
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

} // namespace

TEST_CASE("a platform's links and hosts are refused past the bounds of the network what-ifs") {
  CHECK(load_error("latency", "1us") == "");
  // A delay of 1e300 s and a rate of 1e-30 B/s gave a step of 1e301 s, with exit status 0.
  CHECK_THAT(load_error("latency", "1e300s"), Catch::Contains("latency: 1e+300 s is too large (expected at most 1h)"));
  CHECK_THAT(load_error("latency", "3601s"), Catch::Contains("latency: 3601 s is too large"));
  CHECK_THAT(load_error("bandwidth", "1e-30Bps"), Catch::Contains("bandwidth: 8e-30 bps is too small"));
  CHECK_THAT(load_error("bandwidth", "2e15Bps"), Catch::Contains("bandwidth: 2e+15 B/s is too large"));
  CHECK_THAT(load_error("speed", "0f"), Catch::Contains("host gpu-0 speed: 0 flop/s is out of range"));
  CHECK_THAT(load_error("speed", "-1f"), Catch::Contains("speed"));
  CHECK_THAT(load_error("speed", "1e300f"), Catch::Contains("speed"));
  CHECK(load_error("speed", "1e18f") == "");
}
