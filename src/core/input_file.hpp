// Checks on an input file (workload, platform, profile, GPU catalog) before it is opened.
#pragma once

#include <cstdint>
#include <string>

namespace simgpt {

// The largest input file simgpt reads: its own data files are a few kilobytes, and every file is
// read whole into memory (a workload's text, SimGrid's platform parser). A platform of 3,072
// GPUs is 6.1 MB.
inline constexpr std::uintmax_t kMaxInputFileBytes = 16u << 20;

// The largest YAML file (workload, profile, GPU catalog, presets, validation table): yaml-cpp
// spends about 1 us and 500 bytes per node, so a 16 MiB list took 27 s and 3.9 GB, and 200,000
// framework_options (4 MB) took 1.2 s only to be parsed and refused. At 256 KiB the worst tree (a
// flow list of 130,000 numbers) parses in about 0.2 s and 80 MB, leaving room for a loaded machine
// or a sanitizer build within 2 s; simgpt's largest YAML file (a validation table) is 19 KB.
inline constexpr std::uintmax_t kMaxYamlFileBytes = 256u << 10;

// Throws InputError unless `path` is a readable regular file ("cannot read the KIND file", "is a
// directory", "is not a regular file"), LimitError when it is larger than `max_bytes`.
// Checked by status, before opening: opening a FIFO blocks until a writer comes, and a device
// such as /dev/zero never ends.
void check_input_file(const std::string& path, const std::string& kind,
                      std::uintmax_t max_bytes = kMaxInputFileBytes);

// The whole text of a file that passed check_input_file with the same `max_bytes`.
std::string read_input_file(const std::string& path, const std::string& kind,
                            std::uintmax_t max_bytes = kMaxInputFileBytes);

// "16 MiB", "256 KiB": a size limit as messages and the README state it.
std::string size_limit_text(std::uintmax_t max_bytes);

} // namespace simgpt
