#include "core/temporary_directory.hpp"

#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <stdlib.h>

#include <cerrno>
#include <cstring>

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
  return dir;
}

} // namespace simgpt
