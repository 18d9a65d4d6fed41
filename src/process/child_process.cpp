#include "process/child_process.hpp"

#include "process/outcome.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

extern char** environ;

namespace simgpt {

// /proc/self/exe itself is run, so a rebuild of simgpt during a long validate does not mix two
// versions.
std::string simgpt_executable(const std::string& executable) {
  if (!executable.empty())
    return executable;
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).filename().string();
  if (self.ends_with(" (deleted)"))
    self.resize(self.size() - std::strlen(" (deleted)"));
  if (ec || self != "simgpt")
    throw std::runtime_error("this process is not simgpt: name the simgpt executable");
  return "/proc/self/exe";
}

namespace {

// Starts the child with its stdout on `out_fd`; stdin and stderr are this process's.
pid_t spawn(const std::string& executable, const std::vector<std::string>& args, int out_fd) {
  std::vector<char*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0)
    throw ProcessFailure(fmt::format("cannot start {}: {}", executable, std::strerror(err)));
  return pid;
}

struct Finished {
  std::string out;
  int status = 0;
  bool timed_out = false;
};

// Reads the child's stdout to its end, or kills the child when the timeout passes first; then
// reaps it.
Finished collect(pid_t pid, int fd, double timeout_s) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  Finished f;
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      f.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (ready < 0 && errno != EINTR)
      throw ProcessFailure(fmt::format("cannot wait for the simulation process: {}", std::strerror(errno)));
    if (ready <= 0)
      continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    f.out.append(buffer, static_cast<size_t>(n));
  }
  while (::waitpid(pid, &f.status, 0) < 0 && errno == EINTR) {
  }
  return f;
}

// The child's result under the protocol of `simgpt row`: {"ok": result}, {"input_error": message,
// "where": where} or {"error": message}.
nlohmann::ordered_json outcome(const Finished& f, double timeout_s) {
  if (f.timed_out)
    throw ProcessTimeout(fmt::format("the simulation process timed out after {:g} s", timeout_s));
  if (WIFSIGNALED(f.status))
    throw ProcessFailure(fmt::format("the simulation process was killed by signal {}", WTERMSIG(f.status)));
  if (!WIFEXITED(f.status) || WEXITSTATUS(f.status) != 0)
    throw ProcessFailure(fmt::format("the simulation process exited with status {}", WEXITSTATUS(f.status)));
  if (f.out.empty())
    throw ProcessFailure("the simulation process printed no result");
  const auto result = nlohmann::ordered_json::parse(f.out, nullptr, false);
  if (result.is_discarded())
    throw ProcessFailure("the simulation process printed an unreadable result");
  return result_of(result);
}

} // namespace

nlohmann::ordered_json run_simgpt_child(const std::string& executable, const std::vector<std::string>& args,
                                        double timeout_s) {
  // Close-on-exec, so that children spawned at the same time by other threads do not hold this
  // pipe open (the reader would then wait for them too); dup2 onto stdout clears the flag.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw ProcessFailure(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  pid_t pid = 0;
  try {
    pid = spawn(executable, args, fds[1]);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  Finished f;
  try {
    f = collect(pid, fds[0], timeout_s);
  } catch (...) {
    ::close(fds[0]);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    throw;
  }
  ::close(fds[0]);
  return outcome(f, timeout_s);
}

} // namespace simgpt
