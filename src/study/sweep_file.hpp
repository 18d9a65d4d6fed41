// The file a sweep writes: opened for appending after the lines an earlier run of the same sweep
// left (an interrupted last line is cut off), and appended to one whole line per write.
#pragma once

#include "simgpt/study/sweep.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace simgpt {

class SweepFile {
public:
  // `expected(k, line)` says whether the k-th line after the header may stay (it is the line of
  // the k-th configuration this run writes). Throws InputError naming the file when it cannot be
  // written, its header is another sweep's, or a line is not expected.
  SweepFile(const std::string& path, const std::string& header,
            const std::function<bool(int64_t, const std::string&)>& expected);
  ~SweepFile();
  SweepFile(const SweepFile&) = delete;
  SweepFile& operator=(const SweepFile&) = delete;

  int64_t lines_kept() const { return kept_; } // configurations already written
  void append(const std::string& line);        // throws InputError when the write fails

private:
  std::string path_;
  int fd_ = -1;
  int64_t kept_ = 0;
};

// The lines of a file (without their newlines); a last line without a newline is dropped.
std::vector<std::string> read_complete_lines(const std::string& path, size_t& complete_bytes);

} // namespace simgpt
