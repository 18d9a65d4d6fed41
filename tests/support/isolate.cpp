#include "support/isolate.hpp"

#include "process/outcome.hpp"
#include "simgpt/core/error.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace simgpt {
namespace {

void write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0)
      return;
    done += static_cast<size_t>(n);
  }
}

} // namespace

nlohmann::ordered_json run_isolated(const std::function<nlohmann::ordered_json()>& fn) {
  int fds[2];
  if (::pipe(fds) != 0)
    throw std::runtime_error("cannot create a pipe");
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error("cannot fork");
  if (pid == 0) {
    ::close(fds[0]);
    write_all(fds[1], outcome_of(fn).dump());
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n <= 0)
      break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (text.empty())
    throw std::runtime_error("the simulation process died (status " + std::to_string(status) + ")");
  return result_of(nlohmann::ordered_json::parse(text));
}

} // namespace simgpt
