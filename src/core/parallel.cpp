#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace simgpt {

void run_parallel(size_t count, unsigned threads, const std::function<void(size_t)>& job) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++)
      job(i);
  };
  std::vector<std::thread> started;
  const size_t wanted = std::clamp<size_t>(threads, 1, std::max<size_t>(1, count));
  try {
    for (size_t t = 1; t < wanted; ++t)
      started.emplace_back(worker);
  } catch (const std::system_error&) {
  }
  worker();
  for (std::thread& t : started)
    t.join();
}

} // namespace simgpt
