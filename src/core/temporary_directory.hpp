// Where simgpt makes its scratch files: $TMPDIR, else /tmp, as POSIX says.
#pragma once

#include <string>

namespace simgpt {

// A new directory in $TMPDIR (or /tmp) named PREFIX-XXXXXX, made with mkdtemp; the caller
// removes it. Throws InputError naming TMPDIR when it is not a writable directory.
std::string make_temporary_directory(const std::string& prefix);

} // namespace simgpt
