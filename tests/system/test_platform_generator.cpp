#include "simgpt/system/platform_generator.hpp"

#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "system/cluster.hpp"
#include "support/isolate.hpp"
#include "support/shipped_catalog.hpp"

#include "support/scratch_data_folder.hpp"

#include <catch2/catch.hpp>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <fstream>
#include <functional>
#include <string>

using namespace simgpt;

namespace {

std::vector<std::string> presets() { return default_data_paths().presets(); }

PlatformSpec preset(const std::string& name, int nodes) {
  PlatformSpec s = load_platform_preset(presets(), name);
  s.nodes = nodes;
  return s;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// The platform written to a file of this test process (ctest runs test cases in parallel).
std::string written(const PlatformSpec& spec, const std::string& name) {
  const std::string path = testing::scratch_path("platform_" + name, ".xml");
  write_platform(spec, testing::shipped_catalog(), path);
  return path;
}

// The links of the route from one host to another, "name_UP" style, as SimGrid resolves them.
std::string route_links(const std::string& platform, const std::string& from, const std::string& to) {
  return run_isolated([&] {
           int argc = 1;
           char name[] = "test";
           char* argv[] = {name, nullptr};
           simgrid::s4u::Engine e(&argc, argv);
           e.load_platform(platform);
           e.seal_platform();
           std::vector<simgrid::s4u::Link*> links;
           e.host_by_name(from)->route_to(e.host_by_name(to), links, nullptr);
           std::string out;
           for (const auto* l : links)
             out += l->get_name() + " ";
           return nlohmann::ordered_json(out);
         })
      .get<std::string>();
}

} // namespace

TEST_CASE("a generated platform has one zone per node, joined by zone routes: no route per pair of GPUs") {
  const std::string xml = platform_xml(preset("dgx-a100", 3), testing::shipped_catalog());
  CHECK(count(xml, "<zone id=\"node-") == 3);
  CHECK(count(xml, "<router id=\"node-") == 3);
  CHECK(count(xml, "<host ") == 24);
  // Inside each node: every pair of its 8 GPUs, and each GPU to the gateway, each route
  // symmetrical (its reverse declared with it).
  CHECK(count(xml, "<route ") == 3 * (8 * 7 / 2 + 8));
  CHECK(count(xml, "symmetrical=\"YES\"") == count(xml, "<route "));
  // Between nodes: each node into and out of the switch.
  CHECK(count(xml, "<zoneRoute ") == 3 * 2);
  CHECK(count(xml, "src=\"gpu-0\" dst=\"gpu-8\"") == 0);
  // Linear in the nodes.
  const size_t bigger = platform_xml(preset("dgx-a100", 30), testing::shipped_catalog()).size();
  CHECK(bigger < 11 * xml.size());
}

TEST_CASE("GPU i of a node reaches other nodes through NIC i * nics / gpus") {
  PlatformSpec s = preset("dgx-a100", 2);
  s.nics_per_node = 4;
  const std::string xml = platform_xml(s, testing::shipped_catalog());
  CHECK(count(xml, "role\" value=\"nic\"") == 8);
  // Node 1 has NICs 4-7; its GPU 3 (gpu-11) uses the second, nic-5.
  CHECK(xml.find(R"(<route src="gpu-11" dst="node-1-gw" symmetrical="YES"><link_ctn id="pcie-11" direction="UP"/>)"
                 R"(<link_ctn id="nic-5" direction="UP"/></route>)") != std::string::npos);
  const std::string path = written(s, "rails");
  CHECK(route_links(path, "gpu-3", "gpu-14") == "pcie-3_UP nic-1_UP flow-cap flow-cap nic-7_DOWN pcie-14_DOWN ");
  CHECK(route_links(path, "gpu-3", "gpu-5") == "nvswitch-port-3_UP nvswitch-port-5_DOWN ");
}

TEST_CASE("the simulator reads a generated platform: GPUs, routes, the NICs' what-if on their UP direction, rings") {
  const std::string path = written(preset("dgx-a100", 2), "cluster");
  auto out = run_isolated([&] {
    NetworkWhatIf slow;
    slow.delay_s = 1e-3;
    Cluster cluster(Platform::load(path), testing::shipped_catalog(), slow, Profile{});
    cluster.check_routes(16);
    return nlohmann::ordered_json{{"gpus", cluster.gpus().size()},
                                  {"node", cluster.gpus()[9].node},
                                  {"latency", cluster.route_latency(0, 9)},
                                  {"back", cluster.route_latency(9, 0)},
                                  {"bandwidth", cluster.route_bandwidth(0, 9)},
                                  {"rings", cluster.rings({0, 1, 2, 3, 4, 5, 6, 7}).size()}};
  });
  CHECK(out["gpus"] == 16);
  CHECK(out["node"] == 1);
  // Two PCIe links and two NICs of 1 us each, and the delay on the sender's NIC only.
  CHECK(out["latency"].get<double>() == Approx(4e-6 + 1e-3));
  CHECK(out["back"].get<double>() == Approx(4e-6 + 1e-3));
  CHECK(out["bandwidth"].get<double>() == Approx(200e9 / 8));
  CHECK(out["rings"].get<size_t>() >= 1);
}

TEST_CASE("a platform's hosts name their CPU, which the simulator reads, in XML and compact form alike") {
  PlatformSpec spec = preset("nd-a100-v4", 2);
  REQUIRE(spec.cpu == HostCpu::amd);
  for (const char* suffix : {".xml", ".yaml"}) {
    const std::string path = testing::scratch_path("platform_cpu", suffix);
    write_platform(spec, testing::shipped_catalog(), path);
    auto cpus = run_isolated([&] {
      Cluster cluster(Platform::load(path), testing::shipped_catalog(), NetworkWhatIf{}, Profile{});
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const GpuHost& g : cluster.gpus())
        out.push_back(name_of(g.cpu));
      return out;
    });
    CHECK(cpus.size() == 16);
    for (const auto& cpu : cpus)
      CHECK(cpu == "amd");
  }
  // Unset, the hosts carry no cpu property, as simgpt's earlier platforms.
  spec.cpu = HostCpu::unspecified;
  std::ifstream in(written(spec, "cpu_unset"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(count(text, "<prop id=\"cpu\"") == 0);
  CHECK(count(text, "<prop id=\"gpu\"") == 16);
}

TEST_CASE("the p3 presets keep the numbers of simgpt's first platforms") {
  const std::string xml = platform_xml(preset("p3.16xlarge", 2), testing::shipped_catalog());
  for (const char* link : {R"(<link id="pcie-0" bandwidth="12GBps" latency="1us")",
                           R"(<link id="nic-1" bandwidth="25Gbps" latency="25us")",
                           R"(<link id="sys-0" bandwidth="20GBps" latency="1us")",
                           R"(<link id="nvlink-0-3" bandwidth="50GBps" latency="1us")",
                           R"(<link id="nvlink-8-9" bandwidth="25GBps" latency="1us")",
                           R"(<link id="flow-cap" bandwidth="10Gbps" latency="0" sharing_policy="FATPIPE">)"})
    CHECK(xml.find(link) != std::string::npos);
  // Per node, 6 NVLinks per GPU (24 in all) over 16 pairs: 8 pairs with two, 8 with one.
  CHECK(count(xml, "<link id=\"nvlink-") == 2 * 16);
  CHECK(count(xml, "bandwidth=\"50GBps\"") == 2 * 8);
  const std::string small = platform_xml(preset("p3.2xlarge", 2), testing::shipped_catalog());
  CHECK(small.find(R"(<link id="nic-0" bandwidth="10Gbps" latency="25us")") != std::string::npos);
}

TEST_CASE("every preset names its source and generates a platform") {
  for (const char* name : {"p3.2xlarge", "p3.16xlarge", "p4d.24xlarge", "p5.48xlarge", "dgx-a100", "dgx-h100",
                           "dgx-h200", "dgx-b200", "gb200-nvl72", "nd-a100-v4", "v100-nvswitch-16"}) {
    const PlatformSpec s = preset(name, 2);
    CHECK(s.preset == name);
    CHECK_NOTHROW(platform_xml(s, testing::shipped_catalog()));
  }
  CHECK(preset("p4d.24xlarge", 1).nics_per_node == 4);
  CHECK(preset("v100-nvswitch-16", 1).gpus_per_node == 16);
  // A GB200 NVL72 rack is one NVLink domain of 72 GPUs, each with its own NIC.
  CHECK(preset("gb200-nvl72", 1).gpus_per_node == 72);
  CHECK(preset("gb200-nvl72", 1).nics_per_node == 72);
  CHECK_THROWS_WITH(load_platform_preset(presets(), "p9"), Catch::Contains("unknown preset 'p9'") &&
                                                                 Catch::Contains("dgx-h100"));
}

TEST_CASE("options override the preset's values") {
  const PlatformSpec s = platform_spec(presets(), "dgx-h100", {{"nodes", "4"}, {"nic-bandwidth", "200Gbps"},
                                                               {"flow-cap", "none"}, {"topology", "fat-tree:2:2"}});
  CHECK(s.nodes == 4);
  CHECK(s.gpu == "H100-SXM5-80GB");
  CHECK(s.nic_bandwidth == "200Gbps");
  CHECK(s.flow_cap.empty());
  CHECK(s.topology.kind == NetworkTopology::Kind::fat_tree);
  CHECK(s.topology.leaf_nodes == 2);
  CHECK(s.topology.oversubscription == 2);
}

TEST_CASE("a fat tree puts leaf_nodes nodes under each leaf, whose uplink carries their NICs over the oversubscription") {
  PlatformSpec s = preset("dgx-a100", 5);
  s.topology = {NetworkTopology::Kind::fat_tree, 2, 2};
  const std::string xml = platform_xml(s, testing::shipped_catalog());
  CHECK(count(xml, "<zone id=\"pod-") == 3);
  // 2 nodes x 8 NICs x 200 Gbps, oversubscribed 2:1.
  CHECK(xml.find(R"(<link id="uplink-2" bandwidth="1600Gbps" latency="0")") != std::string::npos);
  const std::string path = written(s, "fat_tree");
  CHECK(route_links(path, "gpu-0", "gpu-39") ==
        "pcie-0_UP nic-0_UP flow-cap uplink-0_UP uplink-2_DOWN flow-cap nic-39_DOWN pcie-39_DOWN ");
  CHECK(route_links(path, "gpu-0", "gpu-9") == "pcie-0_UP nic-0_UP flow-cap flow-cap nic-9_DOWN pcie-9_DOWN ");
}

TEST_CASE("an incomplete or inconsistent platform is refused, naming the option") {
  const std::vector<std::pair<std::function<void(PlatformSpec&)>, const char*>> cases{
      {[](PlatformSpec& s) { s.nodes = 0; }, "--nodes"},
      {[](PlatformSpec& s) { s.gpu = ""; }, "--gpu: is required"},
      {[](PlatformSpec& s) { s.gpu = "Z100"; }, "unknown GPU 'Z100'"},
      {[](PlatformSpec& s) { s.fabric = Fabric::nvlink_cube_mesh; }, "needs 8 GPUs per node"},
      {[](PlatformSpec& s) { s.nics_per_node = 5; }, "at most one NIC per GPU"},
      {[](PlatformSpec& s) { s.nic_bandwidth = "fast"; }, "--nic-bandwidth"},
      {[](PlatformSpec& s) { s.nic_bandwidth = "0Gbps"; }, "--nic-bandwidth: 0 bps is too small"},
      {[](PlatformSpec& s) { s.nic_latency = "-1us"; }, "--nic-latency"},
      {[](PlatformSpec& s) { s.pcie_bandwidth = ""; }, "--pcie-bandwidth: is required"},
  };
  for (const auto& [change, message] : cases) {
    PlatformSpec s = preset("p4d.24xlarge", 2);
    s.gpus_per_node = 4;
    s.fabric = Fabric::nvlink_mesh;
    change(s);
    CHECK_THROWS_AS(platform_xml(s, testing::shipped_catalog()), InputError);
    CHECK_THROWS_WITH(platform_xml(s, testing::shipped_catalog()), Catch::Contains(message));
  }
}

TEST_CASE("malformed options are refused, naming the option and what is valid") {
  PlatformSpec s;
  CHECK_THROWS_WITH(set_platform_option(s, "fabric", "warp", "--fabric"), Catch::Contains("nvswitch"));
  CHECK_THROWS_WITH(set_platform_option(s, "topology", "ring", "--topology"), Catch::Contains("fat-tree:LEAF_NODES"));
  CHECK_THROWS_WITH(set_platform_option(s, "topology", "fat-tree:0", "--topology"), Catch::Contains("positive"));
  CHECK_THROWS_WITH(set_platform_option(s, "topology", "fat-tree:4:0.5", "--topology"), Catch::Contains("at least 1"));
  CHECK_THROWS_WITH(set_platform_option(s, "nodes", "2x", "--nodes"), Catch::Contains("--nodes"));
  CHECK_THROWS_WITH(set_platform_option(s, "colour", "red", "--colour"), Catch::Contains("gpus-per-node"));
  CHECK_THROWS_WITH(set_platform_option(s, "flow-cap", "", "--flow-cap"), Catch::Contains("empty"));
  CHECK_THROWS_WITH(set_platform_option(s, "cpu", "z80", "--cpu"), Catch::Contains("intel, amd, arm or power"));
}

TEST_CASE("platforms past the limits are refused as limits") {
  PlatformSpec s = preset("dgx-a100", 9000);
  CHECK_THROWS_AS(platform_xml(s, testing::shipped_catalog()), LimitError);
  s = preset("p3.2xlarge", 2048);
  CHECK_THROWS_WITH(platform_xml(s, testing::shipped_catalog()), Catch::Contains("fat-tree"));
  CHECK_THROWS_AS(platform_xml(s, testing::shipped_catalog()), LimitError);
  s.topology = {NetworkTopology::Kind::fat_tree, 64, 1};
  CHECK_NOTHROW(platform_xml(s, testing::shipped_catalog()));
  CHECK_THROWS_AS(write_platform(preset("p3.2xlarge", 1), testing::shipped_catalog(), "/nonexistent/dir/p.xml"), InputError);
}

TEST_CASE("rates and delays are refused past the bounds every platform link meets, naming the option") {
  const std::vector<std::pair<std::function<void(PlatformSpec&)>, const char*>> cases{
      {[](PlatformSpec& s) { s.nic_bandwidth = "1e-300bps"; }, "--nic-bandwidth: 1e-300 bps is too small"},
      {[](PlatformSpec& s) { s.nic_bandwidth = "0.5bps"; }, "--nic-bandwidth: 0.5 bps is too small"},
      {[](PlatformSpec& s) { s.flow_cap = "1e-3bps"; }, "--flow-cap"},
      {[](PlatformSpec& s) { s.nic_latency = "2h"; }, "--nic-latency"},
      {[](PlatformSpec& s) { s.nic_latency = "3601s"; }, "--nic-latency: 3601 s is too large (expected at most 1h)"},
      {[](PlatformSpec& s) { s.fabric_latency = "1e15s"; }, "--fabric-latency"},
      {[](PlatformSpec& s) { s.pcie_latency = "100min"; }, "--pcie-latency"},
      // Links that carry a multiple of an option's rate: a leaf's uplink (64 NICs of 1e14 B/s).
      {[](PlatformSpec& s) {
         s.nic_bandwidth = "1e14Bps";
         s.topology = {NetworkTopology::Kind::fat_tree, 64, 1};
       },
       "its uplink): 2.56e+16 B/s is too large"},
      {[](PlatformSpec& s) {
         s.nic_bandwidth = "1Tbps";
         s.topology = {NetworkTopology::Kind::fat_tree, 1, 1e300};
       },
       "its uplink): 4e-288 bps is too small"},
  };
  for (const auto& [change, message] : cases) {
    INFO(message);
    PlatformSpec s = preset("p4d.24xlarge", 2);
    change(s);
    CHECK_THROWS_AS(platform_xml(s, testing::shipped_catalog()), InputError);
    CHECK_THROWS_WITH(platform_xml(s, testing::shipped_catalog()), Catch::Contains(message));
  }
  PlatformSpec cube = preset("p3.16xlarge", 2);
  cube.fabric_bandwidth = "6e14Bps"; // a pair's double NVLink: 1.2e15 B/s
  CHECK_THROWS_WITH(platform_xml(cube, testing::shipped_catalog()), Catch::Contains("--fabric-bandwidth (twice it"));
  cube.fabric_bandwidth = "5e14Bps";
  CHECK_NOTHROW(platform_xml(cube, testing::shipped_catalog()));
}

TEST_CASE("a user's presets file adds its presets to the built-in ones and replaces those of the same name",
          "[data_paths]") {
  const testing::ScratchDataFolder user("presets_user");
  const std::string file = user.write("platforms/presets.yaml", "my-node:\n  source: my notes\n  gpu: V100-SXM2-16GB\n"
                                                                "  gpus_per_node: 2\ndgx-a100:\n  source: mine\n"
                                                                "  gpu: A100-SXM4-40GB\n  gpus_per_node: 2\n");
  const DataPaths data = data_paths_at({user.path()});
  CHECK(data.presets() == std::vector<std::string>{file, data.folders.back() + "/platforms/presets.yaml"});
  CHECK(load_platform_preset(data.presets(), "my-node").gpus_per_node == 2);
  CHECK(load_platform_preset(data.presets(), "dgx-a100").gpus_per_node == 2); // the user's
  CHECK(load_platform_preset(data.presets(), "p3.16xlarge").gpus_per_node == 8);
  CHECK_THROWS_WITH(load_platform_preset(data.presets(), "p9"),
                    Catch::Contains("unknown preset 'p9'") && Catch::Contains("my-node") &&
                        Catch::Contains("p3.16xlarge"));
}
