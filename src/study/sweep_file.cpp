#include "study/sweep_file.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace simgpt {

std::vector<std::string> read_complete_lines(const std::string& path, size_t& complete_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  complete_bytes = all.rfind('\n') == std::string::npos ? 0 : all.rfind('\n') + 1;
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin < complete_bytes) {
    const size_t end = all.find('\n', begin);
    lines.push_back(all.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

SweepFile::SweepFile(const std::string& path, const std::string& header,
                     const std::function<bool(int64_t, const std::string&)>& expected)
    : path_(path) {
  std::error_code ec;
  std::vector<std::string> lines;
  size_t complete = 0;
  if (std::filesystem::exists(path, ec)) {
    if (!std::filesystem::is_regular_file(path, ec))
      throw InputError(path, "is not a regular file: -o names the file the sweep writes");
    lines = read_complete_lines(path, complete);
  }
  const bool has_header = !header.empty() && !lines.empty();
  if (has_header && lines.front() + "\n" != header)
    throw InputError(path, "holds another sweep's columns: remove it, or write this sweep with another -o");
  for (size_t i = has_header ? 1 : 0; i < lines.size(); ++i, ++kept_)
    if (!expected(kept_, lines[i]))
      throw InputError(fmt::format("{}:{}", path, i + 1),
                       "is not this sweep's next configuration (another grid or shard wrote the file): remove "
                       "it, or write this sweep with another -o");
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0 || ::ftruncate(fd_, static_cast<off_t>(complete)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0) {
    const std::string why = std::strerror(errno);
    if (fd_ >= 0)
      ::close(fd_);
    throw InputError(path, "cannot be written: " + why);
  }
  if (!header.empty() && !has_header)
    append(header);
}

SweepFile::~SweepFile() { ::close(fd_); }

void SweepFile::append(const std::string& line) {
  // One write per line: an interruption leaves whole lines and at most one cut line at the end.
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw InputError(path_, fmt::format("cannot be written: {}", std::strerror(errno)));
    written += static_cast<size_t>(n);
  }
}

} // namespace simgpt
