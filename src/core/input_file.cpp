#include "core/input_file.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace simgpt {

std::string size_limit_text(std::uintmax_t max_bytes) {
  if (max_bytes % (1u << 20) == 0)
    return fmt::format("{} MiB", max_bytes >> 20);
  return fmt::format("{} KiB", max_bytes >> 10);
}

namespace {

// "permission denied": the system's reason, as the rest of a message writes it.
std::string reason_text(const std::string& reason) {
  std::string text = reason;
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z')
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return text;
}

// "cannot read the workload file: permission denied", or without a reason when there is none.
std::string cannot_read(const std::string& kind, const std::string& reason) {
  return fmt::format("cannot read the {} file{}", kind, reason.empty() ? "" : ": " + reason_text(reason));
}

// Every input simgpt reads is text: a NUL byte would end the text early for a C parser and is
// read by yaml-cpp as the end of a key or an unknown escape, so the message it leads to says
// nothing of the byte.
void refuse_nul(const std::string& text, const std::string& path) {
  const size_t nul = text.find('\0');
  if (nul == std::string::npos)
    return;
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n') + 1;
  throw InputError(path, fmt::format("contains a NUL byte (line {}, byte {}): expected text", line, nul + 1));
}

} // namespace

void check_input_file(const std::string& path, const std::string& kind, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec); // follows symlinks, never opens
  if (ec || !fs::exists(status))
    throw InputError(path, cannot_read(kind, ec ? ec.message() : std::strerror(ENOENT)));
  if (fs::is_directory(status))
    throw InputError(path, fmt::format("is a directory; expected a {} file", kind));
  if (!fs::is_regular_file(status))
    throw InputError(path, fmt::format("is not a regular file (a FIFO, device or socket); expected a {} file", kind));
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec)
    throw InputError(path, cannot_read(kind, ec.message()));
  if (size > max_bytes)
    throw LimitError(path, fmt::format("is {} bytes; a {} file may be at most {} ({} bytes)", size, kind,
                                       size_limit_text(max_bytes), max_bytes));
}

std::string read_input_file(const std::string& path, const std::string& kind, std::uintmax_t max_bytes) {
  check_input_file(path, kind, max_bytes);
  // open(2) rather than a stream, for its errno: a file without read permission is told from one
  // that vanished since it was checked.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw InputError(path, cannot_read(kind, std::strerror(errno)));
  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      throw InputError(path, cannot_read(kind, reason));
    }
    if (n == 0)
      break;
    text.append(chunk, static_cast<size_t>(n));
    // Stops one chunk past the limit: the file may have grown since it was checked.
    if (text.size() > max_bytes) {
      ::close(fd);
      throw LimitError(path, fmt::format("a {} file may be at most {} ({} bytes)", kind, size_limit_text(max_bytes),
                                         max_bytes));
    }
  }
  ::close(fd);
  refuse_nul(text, path);
  return text;
}

} // namespace simgpt
