// Where simgpt makes its scratch files: $TMPDIR, else /tmp, as POSIX says.
#pragma once

#include <string>

namespace simgpt {

// A new directory in $TMPDIR (or /tmp) named PREFIX-XXXXXX, made with mkdtemp; the caller
// removes it with remove_temporary_directory, and SIGINT, SIGTERM or SIGHUP before then removes it
// too (interrupt_cleanup.hpp). Throws InputError naming TMPDIR when it is not a writable directory.
std::string make_temporary_directory(const std::string& prefix);

// Removes the directory and what it holds, quietly (scratch is not worth an error).
void remove_temporary_directory(const std::string& dir);

} // namespace simgpt
