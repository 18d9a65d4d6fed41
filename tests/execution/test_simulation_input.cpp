// simulate() holds a Workload filled in C++ to the rules of a workload file (check_workload),
// before it starts SimGrid: a library user gets the same InputError or LimitError.
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/workload.hpp"
#include "support/two_node_platform.hpp"

#include <catch2/catch.hpp>

using namespace simgpt;

namespace {

Workload two_stages() {
  Workload w;
  w.source = "api";
  w.model = {.layers = 2, .hidden = 256, .heads = 4, .seq_len = 128, .vocab = 1000, .ffn_hidden = 1024};
  w.training.global_batch = 4;
  w.parallelism.pp = 2;
  return w;
}

} // namespace

TEST_CASE("simulate() refuses a library-built workload past a limit or out of range") {
  const DataPaths data = default_data_paths();
  const Platform platform = Platform::load(simgpt::testing::two_node_platform());
  const GpuCatalog catalog = load_catalog(data);
  const Profile profile = load_profile(data.profiles(), "generic", "test");

  Workload huge = two_stages();
  huge.model.layers = 4096;
  CHECK_THROWS_AS(simulate(platform, huge, profile, catalog), LimitError);
  CHECK_THROWS_WITH(simulate(platform, huge, profile, catalog), Catch::Contains("api: model.layers"));

  Workload negative = two_stages();
  negative.parallelism.dp = -2;
  CHECK_THROWS_WITH(simulate(platform, negative, profile, catalog), Catch::Contains("parallelism.dp: -2 is out of range"));

  Workload wrapped = two_stages(); // dp*tp*pp would wrap to 0 in 64 bits
  wrapped.parallelism.dp = int64_t{1} << 32;
  wrapped.parallelism.tp = int64_t{1} << 32;
  CHECK_THROWS_AS(simulate(platform, wrapped, profile, catalog), LimitError);

  Workload no_ffn = two_stages(); // a model without its MLP would be simulated silently
  no_ffn.model.ffn_hidden = 0;
  CHECK_THROWS_WITH(simulate(platform.path, no_ffn, data), Catch::Contains("model.ffn_hidden: is required"));
}
