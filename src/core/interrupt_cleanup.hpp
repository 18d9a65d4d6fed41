// Scratch files and directories removed when the process is interrupted (SIGINT, SIGTERM, SIGHUP)
// before its own code removes them: an interrupted validate left its simgpt-validate-XXXXXX
// directory in $TMPDIR, an interrupted write its .NAME.simgpt-XXXXXX file.
#pragma once

#include <string>

namespace simgpt {

// Removes `path` (a file, or a directory with the files and empty directories in it) if one of
// those signals ends the process while it is registered; the signal then ends the process as it
// would have (its status says so). A signal the process ignores (nohup's SIGHUP) stays ignored.
// At most kMaxInterruptCleanups paths at once: those past it are only removed by their owner.
void remove_on_interrupt(const std::string& path);

// Stops removing `path` on a signal: its owner removed it, or keeps it (a committed output).
void keep_on_interrupt(const std::string& path);

inline constexpr int kMaxInterruptCleanups = 64;

} // namespace simgpt
