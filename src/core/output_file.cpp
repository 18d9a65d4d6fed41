#include "simgpt/core/output_file.hpp"

#include "simgpt/core/error.hpp"
#include "core/interrupt_cleanup.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>

namespace simgpt {
namespace {

std::string where(const std::string& option, const std::string& path) {
  return option.empty() ? echo(path) : option + " " + echo(path);
}

// The directory a file is (or would be) in: "." for a bare name.
std::string directory_of(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// The file a symbolic link finally names, so that the rename replaces that file and not the link.
std::string resolved(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec))
    return path;
  const std::filesystem::path target = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : target.string();
}

bool same_file(const struct stat& a, const std::string& other) {
  struct stat b {};
  return ::stat(other.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The mode a new file gets: the existing file's, or 0666 less the umask, as open(2) would give.
mode_t output_mode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    return st.st_mode & 07777;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

} // namespace

void check_output_path(const std::string& path, const std::string& option, const std::vector<std::string>& inputs) {
  if (path.empty())
    throw InputError(option, "names no file");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw InputError(where(option, path), "is a directory; name the file to write");
    if (!S_ISREG(st.st_mode))
      throw InputError(where(option, path), "is not a regular file (a FIFO, device or socket); name a file to write");
    for (const std::string& input : inputs)
      if (!input.empty() && same_file(st, input))
        throw InputError(where(option, path), fmt::format("is also an input of this command ({}); name another "
                                                          "file to write",
                                                          echo(input)));
    if (::access(path.c_str(), W_OK) != 0)
      throw InputError(where(option, path), "is read-only; make it writable or name another file");
  }
  const std::string dir = directory_of(resolved(path));
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))
    throw InputError(where(option, path), fmt::format("its directory {} does not exist", echo(dir)));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError(where(option, path), fmt::format("its directory {} is not writable", echo(dir)));
}

// A 64 KiB buffer in front of OutputFile::write. A failed write is kept, not thrown through the
// stream (iostreams turn a buffer's exception into their own ios_failure, losing the message):
// the stream goes bad, later writes are dropped at once, and commit() throws the first error.
class OutputFile::Buffer : public std::streambuf {
public:
  explicit Buffer(OutputFile& file) : file_(file), data_(64 * 1024) { setp(data_.data(), data_.data() + data_.size()); }
  void flush_all() {
    const auto size = static_cast<size_t>(pptr() - pbase());
    setp(data_.data(), data_.data() + data_.size());
    if (error_)
      return;
    try {
      file_.write(std::string_view(data_.data(), size));
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (error_)
      std::rethrow_exception(error_);
  }

protected:
  int_type overflow(int_type c) override {
    flush_all();
    if (error_)
      return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    flush_all();
    return error_ ? -1 : 0;
  }

private:
  OutputFile& file_;
  std::vector<char> data_;
  std::exception_ptr error_;
};

OutputFile::OutputFile(std::string path, std::string option, const std::vector<std::string>& inputs)
    : path_(std::move(path)), option_(std::move(option)) {
  check_output_path(path_, option_, inputs);
  const std::string target = resolved(path_);
  const std::filesystem::path name = std::filesystem::path(target).filename();
  // Hidden and beside the target: the rename stays within one file system, so it is atomic.
  temporary_ = directory_of(target) + "/." + name.string() + ".simgpt-XXXXXX";
  fd_ = ::mkostemp(temporary_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    temporary_.clear();
    fail("cannot create a file beside it");
  }
  remove_on_interrupt(temporary_); // an interrupted write leaves the target as it was, and no scratch
  ::fchmod(fd_, output_mode(target));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0)
    ::close(fd_);
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
    keep_on_interrupt(temporary_);
  }
}

void OutputFile::fail(const std::string& what) {
  const std::string reason = std::strerror(errno);
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
    keep_on_interrupt(temporary_);
  }
  temporary_.clear();
  throw InputError(where(option_, path_), fmt::format("{}: {}; the file is left as it was", what, reason));
}

void OutputFile::write(std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = ENOSPC;
      fail("cannot be written");
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
}

std::ostream& OutputFile::stream() {
  if (!stream_) {
    buffer_ = std::make_unique<Buffer>(*this);
    stream_ = std::make_unique<std::ostream>(buffer_.get());
  }
  return *stream_;
}

void OutputFile::commit() {
  if (buffer_) {
    buffer_->flush_all();
    buffer_->rethrow();
  }
  // fsync: on a full or failing disk, write() may succeed and only the flush fail.
  if (::fsync(fd_) != 0 && errno != EINVAL)
    fail("cannot be written");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    fail("cannot be written");
  if (::rename(temporary_.c_str(), resolved(path_).c_str()) != 0)
    fail("cannot be replaced");
  keep_on_interrupt(temporary_);
  temporary_.clear();
}

void write_output_file(const std::string& path, std::string_view text, const std::string& option,
                       const std::vector<std::string>& inputs) {
  OutputFile file(path, option, inputs);
  file.write(text);
  file.commit();
}

void flush_stdout() {
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
    throw InputError("stdout", fmt::format("cannot be written: {}", std::strerror(errno ? errno : EIO)));
}

} // namespace simgpt
