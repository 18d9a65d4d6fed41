#include "system/cluster.hpp"
#include "system/simgrid_abort.hpp"
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "support/isolate.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace simgpt;

namespace {

// Loads `xml` as a platform in a child process; returns the InputError's text, or "" if it loads.
std::string platform_load_error(const std::string& xml) {
  const std::string path = "/tmp/simgpt_test_simgrid_abort_" + std::to_string(::getpid()) + ".xml";
  std::ofstream(path) << xml;
  std::string error;
  try {
    run_isolated([&] {
      GpuCatalog catalog = GpuCatalog::load(default_data_paths().catalog());
      Cluster cluster(Platform::load(path), catalog, {}, Profile{});
      return nlohmann::ordered_json();
    });
  } catch (const InputError& e) {
    error = e.what();
  }
  std::remove(path.c_str());
  return error;
}

const char* const kHead = R"(<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="gpu-0" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/></host>
    <host id="gpu-1" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/></host>
)";

} // namespace

// SimGrid 3.32 aborts (xbt_assert) on a link declared twice instead of throwing (found by
// tests/fuzz/platform.cpp, tests/fuzz/regressions/platform-1).
TEST_CASE("a platform SimGrid aborts on is an input error naming SimGrid's reason") {
  const std::string error = platform_load_error(std::string(kHead) + R"(    <link id="l" bandwidth="10Gbps" latency="1us"/>
    <link id="l" bandwidth="10Gbps" latency="1us"/>
    <route src="gpu-0" dst="gpu-1"><link_ctn id="l"/></route>
  </zone>
</platform>
)");
  CHECK(error.find("not a valid SimGrid platform: Link 'l' declared several times in the platform") != std::string::npos);
  CHECK(error.find('\n') == std::string::npos);
}

TEST_CASE("a platform SimGrid loads is not refused by the abort guard") {
  CHECK(platform_load_error(std::string(kHead) + R"(    <link id="l" bandwidth="10Gbps" latency="1us"/>
    <route src="gpu-0" dst="gpu-1"><link_ctn id="l"/></route>
  </zone>
</platform>
)") == "");
}

TEST_CASE("an abort SimGrid did not announce still aborts") {
  CHECK_THROWS_WITH(run_isolated([] {
                      catch_simgrid_abort("p.xml", [] { std::abort(); });
                      return nlohmann::ordered_json();
                    }),
                    Catch::Contains("the simulation process died"));
}
