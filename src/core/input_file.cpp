#include "core/input_file.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace simgpt {

std::string size_limit_text(std::uintmax_t max_bytes) {
  if (max_bytes % (1u << 20) == 0)
    return fmt::format("{} MiB", max_bytes >> 20);
  return fmt::format("{} KiB", max_bytes >> 10);
}

void check_input_file(const std::string& path, const std::string& kind, std::uintmax_t max_bytes) {
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
  if (size > max_bytes)
    throw LimitError(path, fmt::format("is {} bytes; a {} file may be at most {} ({} bytes)", size, kind,
                                       size_limit_text(max_bytes), max_bytes));
}

std::string read_input_file(const std::string& path, const std::string& kind, std::uintmax_t max_bytes) {
  check_input_file(path, kind, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path, fmt::format("cannot read the {} file", kind));
  std::string text;
  char chunk[1 << 16];
  // Stops one chunk past the limit: the file may have grown since it was checked.
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw LimitError(path, fmt::format("a {} file may be at most {} ({} bytes)", kind, size_limit_text(max_bytes),
                                         max_bytes));
  }
  return text;
}

} // namespace simgpt
