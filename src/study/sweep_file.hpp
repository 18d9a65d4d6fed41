// The file a sweep writes: opened for appending after the lines an earlier run of the same sweep
// left (an interrupted last line is cut off), locked for the whole run, and appended to one whole
// line per write; a failed write is cut back so the file stays a prefix the sweep resumes from.
#pragma once

#include "simgpt/study/sweep.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace simgpt {

// A sweep file, resumed or merged, is read line by line, but its lines are checked one by one:
// bounded so that a wrong -o (a disk image, a log) is refused at once rather than read for
// minutes. 256 MiB holds a million configurations (a line is about 250 bytes).
inline constexpr uint64_t kMaxSweepFileBytes = 256ull << 20;
// The longest line read back: one configuration of 30,000 swept keys is about 300 KB.
inline constexpr size_t kMaxSweepLineBytes = 16u << 20;

// Reads a file's lines through a small buffer, whatever the file's size: memory grows with the
// longest line only (at most kMaxSweepLineBytes, else InputError naming the file and line).
class LineReader {
public:
  LineReader(int fd, std::string source) : fd_(fd), source_(std::move(source)) {}
  // The next complete line (without its newline); false at the end, where rest() holds the bytes
  // after the last newline (a line cut by an interruption).
  bool next(std::string& line);
  const std::string& rest() const { return pending_; }
  uint64_t complete_bytes() const { return complete_; } // up to the last newline returned
  size_t line_number() const { return line_; }           // of the line last returned

private:
  int fd_;
  std::string source_, buffer_, pending_;
  size_t at_ = 0, line_ = 0;
  uint64_t complete_ = 0;
  bool eof_ = false;
};

// What a resumed sweep expects of the file it finds.
struct SweepFileExpectation {
  std::string header;     // the CSV's header lines, its comment and column names (each with its newline); empty for JSON lines
  int64_t max_lines = 0;  // the configurations this run writes
  // Throws InputError (empty `where`) unless `line` may stay as the k-th line after the header.
  std::function<void(int64_t k, std::string_view line)> check_line;
  // The text the k-th line starts with: a cut last line is cut off only if it could be its start.
  std::function<std::string(int64_t k)> line_start;
};

class SweepFile {
public:
  // Refuses (InputError naming -o and the path, or the path and line) an output that cannot be
  // written (check_output_path: a directory, FIFO, device, read-only file, one of `inputs`), that
  // another process holds (a second sweep writing the same file), that is larger than
  // kMaxSweepFileBytes (LimitError), or whose content is not a prefix of this sweep's: its header,
  // any whole line, or a cut last line. Nothing of the file is changed before all of it passed.
  SweepFile(const std::string& path, const std::vector<std::string>& inputs, const SweepFileExpectation& expect);
  ~SweepFile();
  SweepFile(const SweepFile&) = delete;
  SweepFile& operator=(const SweepFile&) = delete;

  int64_t lines_kept() const { return kept_; } // configurations already written
  // Appends a whole line. A failed write (a full disk) is cut back to the lines before it and
  // throws InputError: the file stays a prefix of the sweep, from which a rerun resumes.
  void append(const std::string& line);

private:
  std::string path_;
  int fd_ = -1;
  int64_t kept_ = 0;
  uint64_t size_ = 0; // bytes of whole lines in the file
};

// Opens a sweep file to read (a part of a merge): a readable regular file of at most
// kMaxSweepFileBytes, checked before it is opened. Returns the descriptor; InputError otherwise.
int open_sweep_file(const std::string& path, const std::string& kind);

} // namespace simgpt
