// libFuzzer target: the platform checks on arbitrary bytes written as a platform file.
// Platform::load, then Cluster (SimGrid loads and seals the platform; check_links, read_gpus,
// the network what-if), check_routes over every GPU, each pair's route bandwidth and latency,
// the rings of the first GPUs, and one replayed transfer each way between the first and last GPU.
// InputError is the answer to a bad platform; anything else escaping, a crash, a sanitizer
// report, a route whose bandwidth is not positive and finite or whose latency is not finite and
// non-negative, or a transfer that does not end at a finite time is a finding.
//
// SimGrid allows one engine per process and cannot reset it (a second Engine aborts when its
// configuration is set again; after SimGrid aborted on a platform, system/simgrid_abort leaves the
// engine as it was, not to be used or destroyed), so every input runs in a
// forked child with a fresh engine; the parent waits for it and aborts (a finding) unless the
// child exits normally. So that libFuzzer still sees the coverage of the checks, the child copies
// its 8-bit coverage counters (the __sancov_cntrs section of this executable, which holds all of
// simgpt's instrumented code) into shared memory before it exits and the parent copies them back
// into its own: the parent's counters then read as if the input had run in it. A hung child is
// caught by libFuzzer's -timeout in the parent; it dies with the parent (PR_SET_PDEATHSIG).
// SIMGPT_FUZZ_VERBOSE=1 prints each input's InputError and how many counters it hit.
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/system/gpu.hpp"
#include "simgpt/system/platform.hpp"
#include "execution/replay.hpp"
#include "execution/task_graph.hpp"
#include "system/cluster.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

// The 8-bit counters: the linker's symbols around their section, read with inline assembly. A
// declaration of the symbols in this file would take the place of those the compiler's coverage
// constructor for this file uses (which then registers no counters, and the link may keep it).
uint8_t* sancov_counters(bool end) {
  uint8_t* p = nullptr;
#if defined(__x86_64__)
  if (end)
    asm("leaq __stop___sancov_cntrs(%%rip), %0" : "=r"(p));
  else
    asm("leaq __start___sancov_cntrs(%%rip), %0" : "=r"(p));
#elif defined(__aarch64__)
  if (end)
    asm("adrp %0, __stop___sancov_cntrs\n add %0, %0, :lo12:__stop___sancov_cntrs" : "=r"(p));
  else
    asm("adrp %0, __start___sancov_cntrs\n add %0, %0, :lo12:__start___sancov_cntrs" : "=r"(p));
#endif
  return p; // nullptr elsewhere: the parent then sees no coverage of the checks
}

struct State {
  std::string path;                 // the platform file each input is written to
  const simgpt::GpuCatalog* catalog = nullptr;
  uint8_t* begin = nullptr;         // this process's counters
  uint8_t* shared = nullptr;        // the child's counters, for the parent
  size_t counters = 0;
};

State& state() {
  static State s = [] {
    State st;
    st.path = "/tmp/simgpt_fuzz_platform_" + std::to_string(::getpid()) + ".xml";
    static const simgpt::GpuCatalog catalog = simgpt::load_catalog(simgpt::default_data_paths());
    st.catalog = &catalog;
    st.begin = sancov_counters(false);
    if (st.begin != nullptr && sancov_counters(true) > st.begin) {
      st.counters = static_cast<size_t>(sancov_counters(true) - st.begin);
      void* m = ::mmap(nullptr, st.counters, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED)
        std::abort();
      st.shared = static_cast<uint8_t*>(m);
    }
    return st;
  }();
  return s;
}

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_platform: %s\n", what);
    std::abort();
  }
}

// In the child: everything simgpt checks about a platform and a little of what it then does.
void check_platform(const State& st) {
  try {
    const simgpt::Platform platform = simgpt::Platform::load(st.path);
    simgpt::NetworkWhatIf network;
    network.delay_s = 1e-3;
    network.bandwidth_Bps = 1.25e8;
    simgpt::Cluster cluster(platform, *st.catalog, network, simgpt::Profile{});
    const auto n = static_cast<int>(cluster.gpus().size());
    cluster.check_routes(n);
    const int m = std::min(n, 16);
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b) {
        if (a == b)
          continue;
        const double bw = cluster.route_bandwidth(a, b);
        require(std::isfinite(bw) && bw > 0, "a checked route's bandwidth is not positive and finite");
        const double latency = cluster.route_latency(a, b);
        require(std::isfinite(latency) && latency >= 0, "a checked route's latency is not finite and non-negative");
      }
    std::vector<int> group;
    for (int i = 0; i < std::min(n, 8); ++i)
      group.push_back(i);
    (void)cluster.rings(group);
    if (n >= 2) {
      simgpt::TaskGraph g;
      simgpt::Task t;
      t.kind = simgpt::Task::Kind::transfer;
      t.bytes = 1e6;
      t.gpu = 0, t.peer = n - 1;
      boost::add_vertex(t, g);
      t.gpu = n - 1, t.peer = 0;
      boost::add_vertex(t, g);
      const double end = simgpt::replay(g, cluster).makespan();
      require(std::isfinite(end) && end >= 0, "a transfer on a checked platform does not end at a finite time");
    }
  } catch (const simgpt::InputError& e) {
    if (std::getenv("SIMGPT_FUZZ_VERBOSE") != nullptr)
      std::fprintf(stderr, "fuzz_platform: input error: %s: %s\n", e.where().c_str(), e.message().c_str());
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  State& st = state();
  {
    std::ofstream out(st.path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out)
      std::abort();
  }
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0)
    std::abort();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(0);
    check_platform(st);
    if (st.shared != nullptr)
      std::memcpy(st.shared, st.begin, st.counters);
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      std::abort();
  std::remove(st.path.c_str()); // libFuzzer leaves without running atexit handlers
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (WIFSIGNALED(status))
      std::fprintf(stderr, "fuzz_platform: the checks' child process died of signal %d\n", WTERMSIG(status));
    else
      std::fprintf(stderr, "fuzz_platform: the checks' child process exited with status %d\n", WEXITSTATUS(status));
    std::abort();
  }
  if (st.shared != nullptr)
    std::memcpy(st.begin, st.shared, st.counters);
  if (std::getenv("SIMGPT_FUZZ_VERBOSE") != nullptr)
    std::fprintf(stderr, "fuzz_platform: %zu of %zu counters hit\n",
                 st.counters - static_cast<size_t>(std::count(st.shared, st.shared + st.counters, 0)), st.counters);
  return 0;
}
