// A one-line progress bar on stderr for long runs: done/total and the time left, redrawn at
// most ten times a second. Only for a terminal: logs and pipes stay quiet.
#pragma once

#include <chrono>
#include <cstdint>

namespace simgpt {

class ProgressBar {
public:
  ProgressBar(int64_t total, bool enabled);
  ~ProgressBar(); // ends the line
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void advance(); // one more done; not thread-safe

private:
  void draw(bool force);
  int64_t total_, done_ = 0;
  bool enabled_;
  std::chrono::steady_clock::time_point start_, drawn_;
};

} // namespace simgpt
