#include "core/input_file.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace simgpt {

void check_input_file(const std::string& path, const std::string& kind) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec); // follows symlinks, never opens
  if (ec || !fs::exists(status))
    throw InputError(path, fmt::format("cannot read the {} file", kind));
  if (fs::is_directory(status))
    throw InputError(path, fmt::format("is a directory; expected a {} file", kind));
  if (!fs::is_regular_file(status))
    throw InputError(path, fmt::format("is not a regular file (a FIFO, device or socket); expected a {} file", kind));
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec)
    throw InputError(path, fmt::format("cannot read the {} file", kind));
  if (size > kMaxInputFileBytes)
    throw LimitError(path, fmt::format("is {} bytes; a {} file may be at most 16 MiB ({} bytes)", size, kind,
                                       kMaxInputFileBytes));
}

std::string read_input_file(const std::string& path, const std::string& kind) {
  check_input_file(path, kind);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path, fmt::format("cannot read the {} file", kind));
  std::string text;
  char chunk[1 << 16];
  // Stops one chunk past the limit: the file may have grown since it was checked.
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxInputFileBytes)
      throw LimitError(path, fmt::format("a {} file may be at most 16 MiB ({} bytes)", kind, kMaxInputFileBytes));
  }
  return text;
}

} // namespace simgpt
