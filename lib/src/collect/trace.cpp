#include "collect/trace.hpp"

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>

namespace limiter::detail {
namespace {

std::atomic<bool> enabled{false};
const auto epoch = std::chrono::steady_clock::now();

}  // namespace

void set_tracing(bool on) noexcept { enabled.store(on, std::memory_order_relaxed); }

bool tracing() noexcept { return enabled.load(std::memory_order_relaxed); }

void trace_line(const char* format, ...) noexcept {
  char line[1024];
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - epoch).count();
  int length = std::snprintf(line, sizeof line, "limiter: [%.3f] ", ms);
  va_list args;
  va_start(args, format);
  if (length >= 0 && static_cast<std::size_t>(length) < sizeof line)
    length += std::vsnprintf(line + length, sizeof line - static_cast<std::size_t>(length), format, args);
  va_end(args);
  std::fprintf(stderr, "%s\n", line);  // one call: lines of several threads do not interleave
}

}  // namespace limiter::detail
