#include "simgpt/process/child_main.hpp"

#include "process/outcome.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

namespace simgpt {

int child_main(pid_t parent_pid, const std::function<std::string()>& simulate) {
  // Die with the parent: the kernel sends SIGKILL when the thread that spawned this process ends.
  // A parent that died before this call has already handed this process to another.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent_pid != 0 && ::getppid() != parent_pid)
    ::_exit(1);
  // Only the result goes to the parent's pipe; anything else printed goes to stderr.
  std::FILE* result = ::fdopen(::dup(STDOUT_FILENO), "w");
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  // The result is parsed, not spliced into the outcome: the parent reads one line whatever the
  // text's layout, and text that is not JSON is an error of the child, not an unreadable outcome.
  const nlohmann::ordered_json out = outcome_of([&] { return nlohmann::ordered_json::parse(simulate()); });
  // A message may hold bytes that are not UTF-8 (a file's name): written as U+FFFD, not refused.
  std::fputs((out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n").c_str(), result);
  return std::fclose(result) == 0 ? 0 : 1;
}

} // namespace simgpt
