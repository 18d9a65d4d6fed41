// Checks on an input file (workload, platform, profile, GPU catalog) before it is opened.
#pragma once

#include <cstdint>
#include <string>

namespace simgpt {

// The largest input file simgpt reads: its own data files are a few kilobytes, and every file is
// read whole into memory (a workload's text, yaml-cpp's node tree, SimGrid's platform parser).
inline constexpr std::uintmax_t kMaxInputFileBytes = 16u << 20;

// Throws InputError unless `path` is a readable regular file ("cannot read the KIND file", "is a
// directory", "is not a regular file"), LimitError when it is larger than kMaxInputFileBytes.
// Checked by status, before opening: opening a FIFO blocks until a writer comes, and a device
// such as /dev/zero never ends.
void check_input_file(const std::string& path, const std::string& kind);

// The whole text of a file that passed check_input_file.
std::string read_input_file(const std::string& path, const std::string& kind);

} // namespace simgpt
