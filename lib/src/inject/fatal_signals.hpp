#pragma once
// Signals that end a profiled process: the record is written before it dies. SIGINT and SIGTERM
// left to their default action, and SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT always: the
// handler writes the record, then puts back the app's own disposition and raises the signal
// again, so the process dies as it would have (core dump, exit status, Python's faulthandler).
// A SIGINT or SIGTERM the app handles itself (Python's KeyboardInterrupt) is only passed on:
// the app then ends normally, and the exit handler writes the record.
#include <string>

namespace limiter::detail {

// ON_SIGNAL gets how the process ends, e.g. "signal SIGTERM"; it runs at most once. With TRACE,
// a fatal signal first prints its thread and a backtrace.
void install_fatal_signal_handlers(void (*on_signal)(const std::string& ended), bool trace = false);

}  // namespace limiter::detail
