// Kernel durations for user-ranged launches (user_range_kernel_times.hpp).
#include "collect/user_range_kernel_times.hpp"

#include <algorithm>

#include "collect/activity_timestamps.hpp"

namespace limiter::detail {

UserRangeKernelTimes::UserRangeKernelTimes() {
  activity_ = std::make_unique<ActivityTimestamps>([this](KernelSpan&& kernel) {
    std::lock_guard lock(mutex_);
    auto it = spans_.find(static_cast<std::uint32_t>(kernel.launch.sequence));  // the correlation ID
    if (it == spans_.end()) return;  // an unranged launch
    Span& span = it->second;
    span.start = span.end == 0 ? kernel.start_ns : std::min(span.start, kernel.start_ns);
    span.end = std::max(span.end, kernel.end_ns);
  });
}

UserRangeKernelTimes::~UserRangeKernelTimes() { activity_.reset(); }

void UserRangeKernelTimes::expect(std::uint32_t correlation) {
  std::lock_guard lock(mutex_);
  spans_[correlation] = {};
}

void UserRangeKernelTimes::flush() { activity_->flush(false); }

std::optional<double> UserRangeKernelTimes::take(std::uint32_t correlation) {
  std::lock_guard lock(mutex_);
  auto it = spans_.find(correlation);
  if (it == spans_.end()) return std::nullopt;
  const Span span = it->second;
  spans_.erase(it);
  if (span.end <= span.start) {
    ++unmatched_;
    return std::nullopt;
  }
  ++matched_;
  return static_cast<double>(span.end - span.start);
}

}  // namespace limiter::detail
