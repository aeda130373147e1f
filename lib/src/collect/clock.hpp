#pragma once
// The collector's one clock, for its timings and its ages (batches, turns, samples).
#include <chrono>

namespace limiter::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace limiter::detail
