// One window of a timeline (timeline.hpp): what happened in one phase of a run of several.
#include <algorithm>

#include "limiter/timeline.hpp"

namespace limiter {

Timeline timeline_between(const Timeline& timeline, std::uint64_t start_ns, std::uint64_t end_ns) {
  Timeline window;
  window.start_ns = start_ns;
  window.end_ns = std::max(start_ns, end_ns);
  // Not the window's own: every figure drawn from it is a lower bound all the same.
  window.dropped_records = timeline.dropped_records;
  window.nvtx_ranges_dropped = timeline.nvtx_ranges_dropped;
  window.nvtx_ranges_unclosed = timeline.nvtx_ranges_unclosed;
  for (const auto& e : timeline.events) {
    const bool overlaps = e.start_ns < window.end_ns && e.end_ns > window.start_ns;
    const bool instant_inside = e.start_ns == e.end_ns && e.start_ns >= window.start_ns && e.start_ns < window.end_ns;
    if (!overlaps && !instant_inside) continue;
    TimelineEvent clipped = e;
    clipped.start_ns = std::max(e.start_ns, window.start_ns);
    clipped.end_ns = std::min(e.end_ns, window.end_ns);
    window.events.push_back(std::move(clipped));
  }
  // Clipping moves starts only up to the window's start: the order stays, but ties may not.
  std::stable_sort(window.events.begin(), window.events.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
  });
  return window;
}

}  // namespace limiter
