#include "core/interrupt_cleanup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace simgpt {
namespace {

constexpr size_t kMaxCleanupPathBytes = 4096; // PATH_MAX
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

// A registered path: written before `used` is set (release), read by the handler once it sees
// `used` (acquire). Fixed storage: the handler may not allocate.
struct CleanupSlot {
  std::atomic<bool> used{false};
  char path[kMaxCleanupPathBytes];
};
CleanupSlot cleanup_slots[kMaxInterruptCleanups];
std::mutex cleanup_slots_mutex; // between registering threads; the handler takes no lock

// Removes the entries of the directory open as `fd`: files, and directories `depth` levels down
// with theirs. Async-signal-safe calls only (getdents64, unlinkat, openat, close): no opendir,
// which allocates. Entries already read may shift when others go, so the directory is read again
// until a pass removes nothing.
void remove_entries(int fd, int depth) {
  alignas(8) char buffer[4096];
  for (int pass = 0; pass < 8; ++pass) {
    bool removed = false;
    ::lseek(fd, 0, SEEK_SET);
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0)
        break;
      // struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), d_name.
      for (long at = 0; at < n;) {
        uint16_t length = 0;
        std::memcpy(&length, buffer + at + 16, sizeof length);
        const char* name = buffer + at + 19;
        at += length;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0)
          continue;
        if (::unlinkat(fd, name, 0) == 0) {
          removed = true;
        } else if ((errno == EISDIR || errno == EPERM) && depth > 0) {
          const int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
          if (sub >= 0) {
            remove_entries(sub, depth - 1);
            ::close(sub);
          }
          removed |= ::unlinkat(fd, name, AT_REMOVEDIR) == 0;
        }
      }
    }
    if (!removed)
      return;
  }
}

void remove_path(const char* path) {
  if (::unlink(path) == 0 || (errno != EISDIR && errno != EPERM))
    return; // a file, now gone; or nothing there
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd >= 0) {
    remove_entries(fd, 4);
    ::close(fd);
  }
  ::rmdir(path);
}

void on_interrupt(int signal) {
  for (CleanupSlot& slot : cleanup_slots)
    if (slot.used.load(std::memory_order_acquire))
      remove_path(slot.path);
  // Then the signal's own effect, so that the parent sees the process ended by it (status 130 for
  // SIGINT in a shell): blocked while this handler runs, it is delivered as it returns.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  ::raise(signal);
}

// Once, at the first registration: only for signals whose action is still the default, so that
// one the process ignores (nohup) or handles itself is left as it is.
void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int s : kCleanupSignals) {
      struct sigaction previous {};
      if (::sigaction(s, nullptr, &previous) != 0 || (previous.sa_flags & SA_SIGINFO) != 0 ||
          previous.sa_handler != SIG_DFL)
        continue;
      struct sigaction action {};
      action.sa_handler = on_interrupt;
      sigemptyset(&action.sa_mask);
      for (const int other : kCleanupSignals)
        sigaddset(&action.sa_mask, other); // one cleanup at a time
      ::sigaction(s, &action, nullptr);
    }
  });
}

} // namespace

void remove_on_interrupt(const std::string& path) {
  if (path.empty() || path.size() >= kMaxCleanupPathBytes)
    return;
  install_handlers();
  const std::lock_guard lock(cleanup_slots_mutex);
  for (CleanupSlot& slot : cleanup_slots)
    if (!slot.used.load(std::memory_order_relaxed)) {
      std::memcpy(slot.path, path.c_str(), path.size() + 1);
      slot.used.store(true, std::memory_order_release);
      return;
    }
}

void keep_on_interrupt(const std::string& path) {
  const std::lock_guard lock(cleanup_slots_mutex);
  for (CleanupSlot& slot : cleanup_slots)
    if (slot.used.load(std::memory_order_relaxed) && path == slot.path) {
      slot.used.store(false, std::memory_order_release);
      return;
    }
}

} // namespace simgpt
