#pragma once
// Live progress of `limiter run` on the terminal, printed from inside the profiled process:
// launches profiled so far, the current kernel and the time since profiling began, redrawn in
// place on stderr at most five times a second. Off unless `limiter run` saw a terminal and no
// -q (LIMITER_PROGRESS=1). Launches are counted as the collector hands them over, that is
// when their counters are decoded: under user replay in batches of up to 128.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace limiter::detail {

class LaunchProgress {
 public:
  LaunchProgress(int fd, bool enabled);
  void launch(const std::string& kernel_name);  // thread-safe
  void finish();                                // clears the line

  // The line for COUNT launches after SECONDS, the last one of KERNEL (exposed for tests).
  static std::string line(std::uint64_t count, double seconds, const std::string& kernel);

 private:
  int fd_;
  bool enabled_;
  bool drawn_ = false;
  std::uint64_t count_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex mutex_;
};

}  // namespace limiter::detail
