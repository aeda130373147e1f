#include "inject/fatal_signals.hpp"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "collect/forked_child.hpp"
#include "limiter/record.hpp"

namespace limiter::detail {
namespace {

// Catching a signal is not free of risk (the handler allocates, writes files and calls CUDA):
// if it hangs, SIGALRM ends the process after this long, and `limiter run` recovers the
// partial file as for a kill.
constexpr unsigned kHandlerDeadlineSeconds = 20;

constexpr int kTerminating[] = {SIGINT, SIGTERM};
constexpr int kFatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

struct sigaction previous[NSIG];
void (*callback)(const std::string&) = nullptr;
volatile sig_atomic_t handling = 0;

bool app_handles(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) ? action.sa_sigaction != nullptr
                                        : action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
}

void pass_on(int signal, siginfo_t* info, void* context) {
  const struct sigaction& action = previous[signal];
  if (action.sa_flags & SA_SIGINFO)
    action.sa_sigaction(signal, info, context);
  else
    action.sa_handler(signal);
}

bool debug = false;  // CollectorOptions::debug: where a fatal signal hit, before anything else runs

void on_signal(int signal, siginfo_t* info, void* context) {
  const bool terminating = signal == SIGINT || signal == SIGTERM;
  if (debug && !terminating) {
    char line[96];
    const int length = std::snprintf(line, sizeof line, "limiter: signal %d on thread %ld; backtrace:\n", signal,
                                     static_cast<long>(gettid()));
    if (length > 0) (void)!write(STDERR_FILENO, line, static_cast<std::size_t>(length));
    void* frames[64];
    backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  }
  if (terminating && app_handles(previous[signal])) {
    pass_on(signal, info, context);  // the app decides; if it exits, the exit handler writes the record
    return;
  }
  const bool forked_child = in_forked_child_by_pid();  // its parent's record is none of its business
  if (forked_child && app_handles(previous[signal])) {
    pass_on(signal, info, context);
    return;
  }
  if (!handling && !forked_child) {
    handling = 1;
    alarm(kHandlerDeadlineSeconds);
    callback(ended_by_signal(signal));
    alarm(0);
  }
  // Die as the app would have: its own disposition, the same signal. Blocked until we return.
  sigaction(signal, &previous[signal], nullptr);
  raise(signal);
}

void install(int signal) {
  struct sigaction action {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(signal, &action, &previous[signal]) != 0) return;
  // An ignored SIGINT/SIGTERM stays ignored (nohup, a parent that shields the app).
  if (previous[signal].sa_handler == SIG_IGN && !(previous[signal].sa_flags & SA_SIGINFO))
    sigaction(signal, &previous[signal], nullptr);
}

}  // namespace

void install_fatal_signal_handlers(void (*on_end)(const std::string& ended), bool trace) {
  callback = on_end;
  debug = trace;
  if (debug) {
    void* frame[1];
    backtrace(frame, 1);  // loads the unwinder now, not inside a handler
  }
  for (int signal : kTerminating) install(signal);
  for (int signal : kFatal) install(signal);
}

}  // namespace limiter::detail
