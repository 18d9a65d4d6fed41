// A platform file for tests: two nodes, one V100 each, joined by their 10 Gbps NICs (25 us each
// way). Written once per test process under its pid, as ctest runs test cases in parallel.
#pragma once

#include "support/scratch_file.hpp"

#include <string>

namespace simgpt::testing {

inline std::string two_node_platform() {
  static const std::string path = scratch_file("two_nodes", ".xml", R"(<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="gpu-0" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/><prop id="node" value="0"/></host>
<host id="gpu-1" speed="1Gf"><prop id="gpu" value="V100-SXM2-16GB"/><prop id="node" value="1"/></host>
<link id="nic-0" bandwidth="10Gbps" latency="25us" sharing_policy="SPLITDUPLEX"><prop id="role" value="nic"/></link>
<link id="nic-1" bandwidth="10Gbps" latency="25us" sharing_policy="SPLITDUPLEX"><prop id="role" value="nic"/></link>
<route src="gpu-0" dst="gpu-1" symmetrical="NO"><link_ctn id="nic-0" direction="UP"/><link_ctn id="nic-1" direction="DOWN"/></route>
<route src="gpu-1" dst="gpu-0" symmetrical="NO"><link_ctn id="nic-1" direction="UP"/><link_ctn id="nic-0" direction="DOWN"/></route>
</zone></platform>
)");
  return path;
}

} // namespace simgpt::testing
