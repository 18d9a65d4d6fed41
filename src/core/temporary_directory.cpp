#include "core/temporary_directory.hpp"

#include "simgpt/core/error.hpp"
#include "core/interrupt_cleanup.hpp"

#include <fmt/format.h>

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace simgpt {

std::string make_temporary_directory(const std::string& prefix) {
  // std::filesystem::temp_directory_path throws a filesystem_error for a TMPDIR that names
  // nothing; a user's environment is input, so it gets a message that says what to set.
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string base = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string dir = base + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr)
    throw InputError(tmpdir != nullptr && *tmpdir != '\0' ? "TMPDIR " + echo(base) : base,
                     fmt::format("cannot make a scratch directory there ({}): set TMPDIR to a writable directory",
                                 std::strerror(errno)));
  remove_on_interrupt(dir);
  return dir;
}

void remove_temporary_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  keep_on_interrupt(dir); // after: a signal before the removal ends still removes it
}

} // namespace simgpt
