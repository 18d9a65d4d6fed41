// The route check: every pair of a job's GPUs, every hop with links, per pair of zones so that it
// stays fast at thousands of GPUs.
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/system/platform_generator.hpp"
#include "system/cluster.hpp"
#include "support/isolate.hpp"
#include "support/shipped_catalog.hpp"

#include "support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <vector>
#include <string>

using namespace simgpt;

namespace {

// A symmetrical route's line made the route of its reverse alone: from dst to src, its links in
// reverse order and other direction, symmetrical="NO".
std::string reverse_only(const std::string& line) {
  const std::regex route(R"re(<route src="([^"]+)" dst="([^"]+)" symmetrical="YES">(.*)</route>)re");
  std::smatch m;
  if (!std::regex_search(line, m, route))
    throw std::logic_error("not a symmetrical route: " + line);
  const std::regex hop(R"re(<link_ctn id="([^"]+)" direction="(UP|DOWN)"/>)re");
  std::vector<std::string> hops;
  const std::string links = m[3];
  for (auto it = std::sregex_iterator(links.begin(), links.end(), hop); it != std::sregex_iterator(); ++it)
    hops.push_back("<link_ctn id=\"" + (*it)[1].str() + "\" direction=\"" + ((*it)[2] == "UP" ? "DOWN" : "UP") + "\"/>");
  std::string back;
  for (auto h = hops.rbegin(); h != hops.rend(); ++h)
    back += *h;
  return m.prefix().str() + "<route src=\"" + m[2].str() + "\" dst=\"" + m[1].str() + "\" symmetrical=\"NO\">" + back +
         "</route>" + m.suffix().str();
}

// What becomes of the lines dgx_platform cuts: gone, or a symmetrical route's one direction kept.
enum class Keep { none, forward, reverse };

// A dgx-a100 cluster of `nodes` (8 GPUs each, one star switch), without the lines holding `cut`
// (or with those routes declared in one direction alone).
std::string dgx_platform(int nodes, const std::string& cut = "", Keep keep = Keep::none) {
  PlatformSpec spec = load_platform_preset(default_data_paths().presets(), "dgx-a100");
  spec.nodes = nodes;
  const std::string xml = platform_xml(spec, testing::shipped_catalog());
  const std::string path = testing::scratch_path("routes_" + std::to_string(nodes) + (cut.empty() ? "" : "_cut"), ".xml");
  std::ofstream out(path);
  size_t start = 0;
  while (start < xml.size()) {
    const size_t end = xml.find('\n', start);
    const std::string line = xml.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
    if (cut.empty() || line.find(cut) == std::string::npos)
      out << line;
    else if (keep == Keep::reverse)
      out << reverse_only(line);
    else if (keep == Keep::forward)
      out << std::regex_replace(line, std::regex(R"(symmetrical="YES")"), R"(symmetrical="NO")");
    start = end == std::string::npos ? xml.size() : end + 1;
  }
  return path;
}

// What check_routes says of the first `used` GPUs ("" when they are all routed), and its time.
nlohmann::ordered_json check(const std::string& path, int64_t used) {
  return run_isolated([&] {
    Cluster cluster(Platform::load(path), testing::shipped_catalog(), NetworkWhatIf{}, Profile{});
    const auto start = std::chrono::steady_clock::now();
    std::string error;
    try {
      cluster.check_routes(used);
    } catch (const InputError& e) {
      error = e.what();
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    return nlohmann::ordered_json{{"error", error}, {"seconds", took.count()}};
  });
}

} // namespace

TEST_CASE("the route check covers all pairs of 3,072 GPUs in well under a second") {
  const auto r = check(dgx_platform(384), 3072);
  CHECK(r["error"].get<std::string>().empty());
  WARN("check_routes(3072): " << r["seconds"].get<double>() << " s");
  CHECK(r["seconds"].get<double>() < 1.0);
}

TEST_CASE("a missing hop inside a node is refused, naming both GPUs and the zone") {
  // SimGrid's Full zone takes the missing route for a free hop: the route from gpu-0 still has links.
  // The generator writes each GPU's route to its gateway, and one route per pair of GPUs, as
  // symmetrical routes: each case keeps one direction.
  const auto into = check(dgx_platform(2, "<route src=\"gpu-9\" dst=\"node-1-gw\"", Keep::forward), 16);
  CHECK_THAT(into["error"].get<std::string>(),
             Catch::Contains("no route from gpu-0 to gpu-9: zone 'node-1' has no route from 'node-1-gw' to 'gpu-9'"));
  const auto out_of = check(dgx_platform(2, "<route src=\"gpu-3\" dst=\"node-0-gw\"", Keep::reverse), 16);
  CHECK_THAT(out_of["error"].get<std::string>(),
             Catch::Contains("no route from gpu-3 to gpu-8: zone 'node-0' has no route from 'gpu-3' to 'node-0-gw'"));
  const auto between = check(dgx_platform(2, "<route src=\"gpu-1\" dst=\"gpu-2\"", Keep::reverse), 16);
  CHECK_THAT(between["error"].get<std::string>(),
             Catch::Contains("no route from gpu-1 to gpu-2: zone 'node-0' has no route from 'gpu-1' to 'gpu-2'"));
}

TEST_CASE("a missing route between nodes is refused, naming the zones") {
  const auto r = check(dgx_platform(3, "<zoneRoute src=\"switch\" dst=\"node-1\""), 24);
  CHECK_THAT(r["error"].get<std::string>(),
             Catch::Contains("no route from gpu-0 to gpu-8: zone 'cluster' has no route from 'node-0' to 'node-1'"));
}

TEST_CASE("only the GPUs the job uses are checked") {
  // node-1's GPUs are not used by an 8-GPU job.
  CHECK(check(dgx_platform(2, "<route src=\"gpu-9\" dst=\"node-1-gw\""), 8)["error"].get<std::string>().empty());
}
