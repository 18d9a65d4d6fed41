#include "system/simgrid_abort.hpp"

#include "simgpt/core/error.hpp"

#include <xbt/asserts.h>
#include <xbt/log.h>

#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace simgpt {
namespace {

// SimGrid's CRITICAL messages while `fn` runs (the first kMaxMessage bytes), written by the
// root log category's appender through `capture` into `message`.
constexpr size_t kMaxMessage = 4096;
char message[kMaxMessage + 1];
sigjmp_buf jump;
volatile std::sig_atomic_t armed = 0;
struct sigaction previous;

void on_abort(int) {
  if (armed && message[0] != '\0') {
    armed = 0;
    siglongjmp(jump, 1);
  }
  // Not SimGrid's refusal: the previous handler (or the default action) gets the signal, which
  // is blocked until this handler returns.
  ::sigaction(SIGABRT, &previous, nullptr);
  ::raise(SIGABRT);
}

} // namespace

void catch_simgrid_abort(const std::string& path, const std::function<void()>& fn) {
  std::memset(message, 0, sizeof message);
  std::FILE* capture = ::fmemopen(message, kMaxMessage, "w");
  if (capture == nullptr) {
    fn();
    return;
  }
  std::setvbuf(capture, nullptr, _IONBF, 0);
  // The root category prints every message (the others pass theirs up to it): only the message,
  // into `capture`, and no backtrace after it.
  s_xbt_log_category_t& root = _XBT_LOGV(root);
  const xbt_log_appender_t root_appender = root.appender;
  const xbt_log_layout_t root_layout = root.layout;
  const int no_loc = xbt_log_no_loc;
  const xbt_log_appender_t appender = xbt_log_appender_stream(capture);
  const xbt_log_layout_t layout = xbt_log_layout_format_new("%m%n");
  root.appender = appender;
  root.layout = layout;
  xbt_log_no_loc = 1;
  struct sigaction action {};
  action.sa_handler = on_abort;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGABRT, &action, &previous);

  auto restore = [&] {
    armed = 0;
    ::sigaction(SIGABRT, &previous, nullptr);
    root.appender = root_appender;
    root.layout = root_layout;
    xbt_log_no_loc = no_loc;
    std::fclose(capture);
    // Allocated by SimGrid with malloc; their free_ hooks would close `capture` again.
    std::free(appender);
    std::free(layout);
  };
  if (sigsetjmp(jump, 1) != 0) {
    restore();
    std::string text(message);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
      text.pop_back();
    // The first message is the one that led to the abort, in practice the only one.
    throw InputError(path, "not a valid SimGrid platform: " + text.substr(0, text.find('\n')));
  }
  armed = 1;
  try {
    fn();
  } catch (...) {
    restore();
    throw;
  }
  restore();
  if (message[0] != '\0')
    std::fputs(message, stderr);
}

} // namespace simgpt
