// Runs independent jobs on a few threads: validate's rows and sweep's configurations, each of
// which waits on a simulation process of its own.
#pragma once

#include <cstddef>
#include <functional>

namespace simgpt {

// Calls job(i) for every i in [0, count), `threads` at a time (at least one: the calling
// thread); jobs are taken in order of i. When the system refuses a thread, the threads started
// share the jobs. `job` must not throw.
void run_parallel(size_t count, unsigned threads, const std::function<void(size_t)>& job);

} // namespace simgpt
