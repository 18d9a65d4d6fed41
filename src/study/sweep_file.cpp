#include "study/sweep_file.hpp"

#include "core/input_file.hpp"
#include "simgpt/core/output_file.hpp"
#include "simgpt/core/error.hpp"
#include "study/sweep_output.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <cstring>

namespace simgpt {

bool LineReader::next(std::string& line) {
  for (;;) {
    const size_t newline = buffer_.find('\n', at_);
    if (newline != std::string::npos) {
      pending_.append(buffer_, at_, newline - at_);
      at_ = newline + 1;
      complete_ += pending_.size() + 1;
      line.swap(pending_);
      pending_.clear();
      ++line_;
      return true;
    }
    pending_.append(buffer_, at_, std::string::npos);
    buffer_.clear();
    at_ = 0;
    if (pending_.size() > kMaxSweepLineBytes)
      throw InputError(fmt::format("{}:{}", source_, line_ + 1),
                       fmt::format("is longer than {} MiB: not a line simgpt sweep writes", kMaxSweepLineBytes >> 20));
    if (eof_)
      return false;
    buffer_.resize(1 << 16);
    ssize_t n = 0;
    do
      n = ::read(fd_, buffer_.data(), buffer_.size());
    while (n < 0 && errno == EINTR);
    if (n < 0)
      throw InputError(source_, fmt::format("cannot be read: {}", std::strerror(errno)));
    buffer_.resize(static_cast<size_t>(n));
    eof_ = n == 0;
  }
}

int open_sweep_file(const std::string& path, const std::string& kind) {
  check_input_file(path, kind, kMaxSweepFileBytes); // by status: never opens a FIFO or reads /dev/zero
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string why = std::strerror(errno ? errno : EINVAL);
    if (fd >= 0)
      ::close(fd);
    throw InputError(path, fmt::format("cannot read the {} file: {}", kind, why));
  }
  return fd;
}

SweepFile::SweepFile(const std::string& path, const std::vector<std::string>& inputs,
                     const SweepFileExpectation& expect)
    : path_(path) {
  const std::string where = "-o " + echo(path);
  check_output_path(path, "-o", inputs);
  // O_NONBLOCK: should the path have become a FIFO since it was checked, open returns at once.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
  struct stat st {};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string why = fd_ < 0 ? std::strerror(errno) : "not a regular file";
    if (fd_ >= 0)
      ::close(fd_);
    throw InputError(where, "cannot be written: " + why);
  }
  try {
    // Held until the sweep ends (the descriptor closes): two sweeps writing one file would
    // interleave their lines. The simulations' processes do not inherit it (O_CLOEXEC).
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
      throw InputError(where, errno == EWOULDBLOCK
                                  ? "is being written by another simgpt sweep (it holds the file's lock): wait for it "
                                    "to end, or give each sweep or shard its own -o"
                                  : fmt::format("cannot be locked: {}", std::strerror(errno)));
    if (static_cast<uint64_t>(st.st_size) > kMaxSweepFileBytes)
      throw LimitError(where, fmt::format("is {} bytes; a sweep file to resume may be at most {}: is it this "
                                          "sweep's? remove it or name another -o",
                                          st.st_size, size_limit_text(kMaxSweepFileBytes)));
    const std::string not_ours = "simgpt sweep resumes its own files only and does not overwrite others: remove it, "
                                 "or name another -o";
    LineReader reader(fd_, path);
    std::string line;
    // The header's lines (a CSV's comment and column names) read whole, each as expected. A
    // comment that differs is refused after the lines, whose digests say more precisely what
    // changed (another --set, another file's content).
    size_t header_read = 0; // bytes of expect.header the file's whole lines match
    std::optional<size_t> other_comment; // the line of a comment that is not this sweep's
    while (header_read < expect.header.size() && reader.next(line)) {
      const size_t end = expect.header.find('\n', header_read);
      const std::string expected = expect.header.substr(header_read, end + 1 - header_read);
      if (line + "\n" != expected) {
        if (line.starts_with('#') && expected.starts_with('#')) {
          other_comment = reader.line_number();
          header_read += expected.size();
          continue;
        }
        bool a_sweep = true;
        try {
          sweep_header_columns(line);
        } catch (const InputError&) {
          a_sweep = false;
        }
        throw InputError(fmt::format("{}:{}", path, reader.line_number()),
                         a_sweep ? "holds another sweep's columns: remove it, or write this sweep with another -o"
                                 : "is not a sweep's CSV header; " + not_ours);
      }
      header_read += expected.size();
    }
    const bool has_header = header_read == expect.header.size();
    while (reader.next(line)) {
      const std::string at = fmt::format("{}:{}", path, reader.line_number());
      if (kept_ >= expect.max_lines)
        throw InputError(at, fmt::format("is one line more than this sweep's {} configurations (another grid or "
                                         "shard wrote the file): remove it, or write this sweep with another -o",
                                         expect.max_lines));
      try {
        expect.check_line(kept_, line);
      } catch (const InputError& e) {
        throw InputError(at, e.message());
      }
      ++kept_;
    }
    if (other_comment)
      throw InputError(fmt::format("{}:{}", path, *other_comment),
                       "is another sweep's header comment (written by another simgpt version, or its data files "
                       "changed): remove the file, or write this sweep with another -o");
    // A last line without its newline: what an interruption leaves, if it could start the next
    // line (or the header); anything else is not this sweep's and is not cut.
    const std::string& cut = reader.rest();
    if (!cut.empty()) {
      const std::string start = !has_header ? expect.header.substr(header_read)
                                : kept_ < expect.max_lines         ? expect.line_start(kept_)
                                                                   : std::string();
      if (start.empty() || !(start.starts_with(cut) || cut.starts_with(start)))
        throw InputError(fmt::format("{}:{}", path, reader.line_number() + 1),
                         "is a last line without its newline that is not the start of this sweep's next line; " +
                             not_ours);
    }
    size_ = reader.complete_bytes();
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
      throw InputError(where, fmt::format("cannot be written: {}", std::strerror(errno)));
    if (!has_header)
      append(expect.header.substr(header_read));
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

SweepFile::~SweepFile() { ::close(fd_); }

void SweepFile::append(const std::string& line) {
  // One write per line: an interruption leaves whole lines and at most one cut line at the end.
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const int error = n == 0 ? ENOSPC : errno;
      // Cut back what part of the line was written: the file ends with a whole line.
      if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
        throw InputError("-o " + echo(path_), fmt::format("cannot be written: {}; and its cut last line cannot be "
                                                          "removed: {}",
                                                          std::strerror(error), std::strerror(errno)));
      throw InputError("-o " + echo(path_), fmt::format("cannot be written: {}; the sweep stopped, the file keeps "
                                                        "the lines written before and a rerun resumes from them",
                                                        std::strerror(error)));
    }
    written += static_cast<size_t>(n);
  }
  size_ += line.size();
}

} // namespace simgpt
