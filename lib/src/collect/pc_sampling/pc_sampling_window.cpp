// The default run's PC-sampling window (PcSamplingPhase): its period, when it is over, and why, said once.
#include "collect/pc_sampling/pc_sampling_session.hpp"

#include <algorithm>
#include <cmath>

namespace limiter::detail {

std::uint32_t window_period_log2(int sm_count) {
  if (sm_count <= 0) return 0;
  const double cycles = sm_count * 2e9 / kWindowSamplesPerSecond;  // between two samples of one SM
  return std::clamp(static_cast<std::uint32_t>(std::ceil(std::log2(cycles))), 5u, 31u);
}

bool PcSamplingSession::phase_over() const {
  if (over_by_.load(std::memory_order_relaxed) != WindowEnd::open) return true;
  const WindowEnd end = window_end();
  if (end == WindowEnd::open) return false;
  WindowEnd expected = WindowEnd::open;  // the first reason found is the one said
  over_by_.compare_exchange_strong(expected, end);
  return true;
}

PcSamplingSession::WindowEnd PcSamplingSession::window_end() const {
  const Clock::rep started = window_start_.load(std::memory_order_relaxed);
  if (!began_.load(std::memory_order_relaxed) || started == 0) return WindowEnd::open;
  if (phase_.window.count() > 0 && sampling_failed_.load(std::memory_order_relaxed)) return WindowEnd::failed;
  if (phase_.window_samples > 0 && samples_.load(std::memory_order_relaxed) >= phase_.window_samples)
    return WindowEnd::samples;
  const Clock::rep elapsed = Clock::now().time_since_epoch().count() - started;
  if (quiet() && elapsed >= std::chrono::duration_cast<Clock::duration>(phase_.min_window).count())
    return WindowEnd::quiet;
  if (phase_.window.count() > 0 && elapsed >= std::chrono::duration_cast<Clock::duration>(phase_.window).count())
    return WindowEnd::time;
  return WindowEnd::open;
}

bool PcSamplingSession::quiet() const {
  return phase_.quiet_launches > 0 && launches_since_new_.load(std::memory_order_relaxed) >= phase_.quiet_launches;
}

std::string PcSamplingSession::phase_over_reason() const {
  WindowEnd end = over_by_.load();
  if (end == WindowEnd::open) end = window_end();
  switch (end) {
    case WindowEnd::failed:
      return "PC sampling could not start";
    case WindowEnd::samples:
      return std::to_string(samples_.load()) + " samples";
    case WindowEnd::quiet:
      return "no new kernel in " + std::to_string(phase_.quiet_launches) + " launches";
    default:
      return "window of " + std::to_string(phase_.window.count()) + " ms over";
  }
}

}  // namespace limiter::detail
