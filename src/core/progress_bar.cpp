#include "core/progress_bar.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <string>

namespace simgpt {

ProgressBar::ProgressBar(int64_t total, bool enabled)
    : total_(total), enabled_(enabled && total > 0), start_(std::chrono::steady_clock::now()), drawn_(start_) {
  if (enabled_)
    draw(true);
}

ProgressBar::~ProgressBar() {
  if (enabled_) {
    draw(true);
    std::fputs("\n", stderr);
  }
}

void ProgressBar::advance() {
  ++done_;
  if (enabled_)
    draw(done_ == total_);
}

void ProgressBar::draw(bool force) {
  using namespace std::chrono;
  const auto now = steady_clock::now();
  if (!force && now - drawn_ < milliseconds(100))
    return;
  drawn_ = now;
  constexpr int width = 30;
  const int filled = static_cast<int>(width * done_ / total_);
  std::string left = "--:--";
  if (done_ > 0) {
    const double elapsed = duration<double>(now - start_).count();
    const auto seconds = static_cast<long>(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_));
    left = fmt::format("{}:{:02}", seconds / 60, seconds % 60);
  }
  fmt::print(stderr, "\r[{}{}] {}/{}  {} left ", std::string(static_cast<size_t>(filled), '#'),
             std::string(static_cast<size_t>(width - filled), '.'), done_, total_, left);
  std::fflush(stderr);
}

} // namespace simgpt
