// Quantities with units as users write them: "10ms", "1Gbps", "16GiB".
#pragma once

#include <string>

namespace simgpt {

// Seconds from "10ms", "50us", "0.1s", "2" (seconds). Throws std::invalid_argument.
double parse_duration(const std::string& text);
// Bytes per second from "1Gbps" (bits), "25GBps" (bytes), "10Mbps", "100kbps".
double parse_bandwidth(const std::string& text);
// Bytes from "16GiB", "16GB", "512MiB", "1024".
double parse_bytes(const std::string& text);

} // namespace simgpt
