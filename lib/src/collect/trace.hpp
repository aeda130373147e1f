#pragma once
// The collector's one debug trace (CollectorOptions::debug, LIMITER_DEBUG=1): its steps on
// stderr, each line with the milliseconds since the library was loaded, for reports from new
// platforms.
namespace limiter::detail {

void set_tracing(bool on) noexcept;
bool tracing() noexcept;
void trace_line(const char* format, ...) noexcept __attribute__((format(printf, 1, 2)));

}  // namespace limiter::detail

#define LIMITER_TRACE(...)                                                        \
  do {                                                                            \
    if (::limiter::detail::tracing()) ::limiter::detail::trace_line(__VA_ARGS__); \
  } while (0)
