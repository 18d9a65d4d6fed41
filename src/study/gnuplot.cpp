#include "study/gnuplot.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace simgpt {
namespace {

// gnuplot's error output kept for the message: its first lines say what went wrong.
constexpr size_t kMaxErrorBytes = 64 * 1024;

using Clock = std::chrono::steady_clock;

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

[[noreturn]] void fail_errno(const char* what) {
  throw std::runtime_error(fmt::format("cannot run gnuplot: {}: {}", what, std::strerror(errno)));
}

// The parent's ends of the child's standard input (a socket, so that a write after gnuplot has
// exited fails with EPIPE instead of raising SIGPIPE), output and error.
struct ChildStreams {
  int in = -1, out = -1, err = -1;
};

void close_fd(int& fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

pid_t spawn_gnuplot(const std::string& path, ChildStreams& parent_streams) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
      ::pipe2(err, O_CLOEXEC) != 0) {
    const std::string reason = std::strerror(errno);
    for (int* pair : {in, out, err})
      close_fd(pair[0]), close_fd(pair[1]);
    throw std::runtime_error("cannot run gnuplot: cannot make its pipes: " + reason);
  }
  std::array<char*, 3> argv{const_cast<char*>(path.c_str()), const_cast<char*>("-d"), nullptr};
  // fork and exec rather than posix_spawn, for two settings of the child: a process group of its
  // own, so that a gnuplot past its limits is killed with whatever it started (a wrapper script's
  // children too), and death with this process (PR_SET_PDEATHSIG), so that a gnuplot that does
  // not read its input to the end is not left running when simgpt is killed. Only
  // async-signal-safe calls between fork and exec; plot runs no other thread.
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(127);
    ::dup2(in[1], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execve(path.c_str(), argv.data(), environ);
    ::_exit(127);
  }
  const int spawned = pid < 0 ? errno : 0;
  if (pid > 0)
    ::setpgid(pid, pid); // here too, so that a kill of the group cannot come before the child's own call
  for (int fd : {in[1], out[1], err[1]})
    ::close(fd);
  parent_streams = {in[0], out[0], err[0]};
  if (spawned != 0) {
    close_fd(parent_streams.in), close_fd(parent_streams.out), close_fd(parent_streams.err);
    throw std::runtime_error(fmt::format("cannot start {}: {}", path, std::strerror(spawned)));
  }
  return pid;
}

// Appends what is ready on `fd` to `into` (at most `max` bytes kept); closes `fd` at its end.
void drain(int& fd, std::string& into, size_t max) {
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (n <= 0)
    return close_fd(fd);
  into.append(buffer, static_cast<size_t>(std::min(static_cast<size_t>(n), max - std::min(max, into.size()))));
}

[[noreturn]] void throw_timeout(const GnuplotLimits& limits) {
  throw InputError("gnuplot", fmt::format("did not finish within {:g} s; check the gnuplot on PATH", limits.seconds));
}

// The child's exit status, once it exits; throws at `deadline` (a gnuplot that closed its
// output and went on running).
int wait_exit(pid_t pid, const GnuplotLimits& limits, Clock::time_point deadline) {
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid)
      return status;
    if (done < 0 && errno != EINTR)
      fail_errno("waitpid");
    if (Clock::now() >= deadline)
      throw_timeout(limits);
    ::usleep(2000);
  }
}

// Milliseconds left until `deadline`, for poll(); 0 once it has passed.
int millis_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1000 * 1000));
}

// Feeds `script` to the child while reading its output and error, until both end: reading as
// it writes, so that neither side waits on a full pipe. A gnuplot that runs past the limits
// (one that never exits, or never stops printing) is refused, not waited on.
void exchange(ChildStreams& s, const std::string& script, std::string& out, std::string& err,
              const GnuplotLimits& limits, Clock::time_point deadline) {
  size_t written = 0;
  while (s.out >= 0 || s.err >= 0) {
    std::array<pollfd, 3> fds{{{s.in, POLLOUT, 0}, {s.out, POLLIN, 0}, {s.err, POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), millis_left(deadline));
    if (ready < 0) {
      if (errno == EINTR)
        continue;
      fail_errno("poll");
    }
    if (ready == 0 && Clock::now() >= deadline)
      throw_timeout(limits);
    if (s.in >= 0 && fds[0].revents != 0) {
      const ssize_t n = ::send(s.in, script.data() + written, script.size() - written, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0)
        written += static_cast<size_t>(n);
      if ((n < 0 && errno != EINTR && errno != EAGAIN) || written == script.size())
        close_fd(s.in); // all sent, or gnuplot stopped reading: it ends its input either way
    }
    if (s.out >= 0 && fds[1].revents != 0)
      drain(s.out, out, limits.max_output_bytes + 1);
    if (out.size() > limits.max_output_bytes)
      throw InputError("gnuplot", fmt::format("wrote more than {} bytes; a chart is far smaller: check the gnuplot "
                                              "on PATH",
                                              limits.max_output_bytes));
    if (s.err >= 0 && fds[2].revents != 0)
      drain(s.err, err, kMaxErrorBytes);
  }
  close_fd(s.in);
}

// gnuplot's error output on one line: its lines, trimmed, the empty ones left out.
std::string error_summary(const std::string& text) {
  std::string summary;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    const size_t first = line.find_first_not_of(" \t\r"), last = line.find_last_not_of(" \t\r");
    if (first != std::string::npos)
      summary += (summary.empty() ? "" : "; ") + line.substr(first, last - first + 1);
    start = end + 1;
  }
  return summary.empty() ? "no error message" : summary;
}

} // namespace

std::string find_on_path(const std::string& program) {
  if (program.find('/') != std::string::npos)
    return is_executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end == start ? "." : dirs.substr(start, end - start); // empty: the current directory
    if (is_executable_file(dir + "/" + program))
      return dir + "/" + program;
    start = end + 1;
  }
  return "";
}

std::string run_gnuplot(const std::string& script, const std::string& program, const GnuplotLimits& limits) {
  const std::string path = find_on_path(program);
  if (path.empty())
    throw InputError("", fmt::format("{} not found on PATH: install gnuplot-nox (apt-get install gnuplot-nox)",
                                     program));
  ChildStreams streams;
  const pid_t pid = spawn_gnuplot(path, streams);
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<long long>(limits.seconds * 1000));
  std::string out, err;
  int status = 0;
  try {
    exchange(streams, script, out, err, limits, deadline);
    status = wait_exit(pid, limits, deadline);
  } catch (...) {
    close_fd(streams.in), close_fd(streams.out), close_fd(streams.err);
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    throw;
  }
  // simgpt's scripts are plain gnuplot 5: a failure, or no figure at all, is the gnuplot on PATH.
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw InputError(path, fmt::format("gnuplot failed: {}", one_line(error_summary(err), 200)));
  if (out.empty())
    throw InputError(path, "gnuplot wrote no figure; check the gnuplot on PATH (gnuplot-nox 5)");
  return out;
}

} // namespace simgpt
