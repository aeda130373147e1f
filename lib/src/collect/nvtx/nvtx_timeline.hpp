#pragma once
// The app's NVTX ranges as timeline events (ActivityKind::nvtx_range), for the activity session:
// without CUPTI, from the plain NvtxEvents the orchestrator stamps (nvtx_event.hpp). A push/pop
// range is named by its path on its thread's stack in its domain, "outer/inner/" ("D@outer/" in
// domain D), as launches' NVTX paths are (nvtx_paths), so the per-range program verdict and the
// by-range kernel tables name the same ranges; a start/end range by its name ("D@name"), on the
// thread that started it. What the app's thread pays: a lock and a push or pop; the closed ranges
// reach the timeline on the session's own thread (take_closed).
//
// Bounded, never silently: past MAX_RANGES ranges (or MAX_OPEN open on one stack, or start/end
// ranges open at once) a range is not kept and is counted in dropped(). A range still open at
// the end is closed at the window's end and counted in unclosed() (the record says how many:
// Timeline::nvtx_ranges_unclosed; its event is otherwise like the others).
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "collect/nvtx/nvtx_event.hpp"
#include "limiter/timeline.hpp"

namespace limiter::detail {

class NvtxTimeline {
 public:
  // About 150 bytes of JSON each: 1,000,000 ranges is a 150 MB record, ~1,000 steps of a PyTorch
  // loop with a range per operator (emit_nvtx).
  static constexpr std::size_t kMaxRanges = 1'000'000;
  static constexpr std::size_t kMaxOpen = 10'000;  // a stack's depth; start/end ranges open at once

  // PROCESS_SCOPE: push/pop ranges on one stack per domain for all threads, as NvtxTracker's
  // (--nvtx-push-pop-scope process); else one per thread and domain.
  explicit NvtxTimeline(bool process_scope = false, std::size_t max_ranges = kMaxRanges,
                        std::size_t max_open = kMaxOpen);

  // Ranges are kept from START_NS on (the session's window opens): one that closes before is only
  // followed (for the nesting), one that began before starts at START_NS.
  void open(std::uint64_t start_ns);
  // One range call: a push or start opens a range, a pop or end closes one.
  void on_event(const NvtxEvent& event);
  // The ranges closed since the last call, oldest close first.
  std::vector<TimelineEvent> take_closed();
  // At the end: every range still open, closed at END_NS (at its start, if that is later), with
  // the closed ones not taken yet; later calls are ignored.
  std::vector<TimelineEvent> close_open(std::uint64_t end_ns);

  std::uint64_t kept() const;       // ranges kept (closed, taken or not)
  std::uint64_t dropped() const;    // over the bounds
  std::uint64_t unclosed() const;   // closed by close_open
  std::uint64_t unmatched() const;  // pops on an empty stack, ends of an unknown id

 private:
  struct Open {
    std::string name;  // the event's name: path or start/end name, with its domain
    std::string path;  // push/pop: the path without the domain, for the ranges inside
    std::uint64_t start_ns = 0;
    std::uint32_t thread_id = 0;
  };
  struct Stack {
    std::vector<Open> open;
    std::size_t overflow = 0;  // pushes past max_open_: their pops only count down
  };
  void close(Open range, std::uint64_t end_ns);  // caller holds mutex_

  bool process_scope_;
  std::size_t max_ranges_, max_open_;
  mutable std::mutex mutex_;
  std::uint64_t window_start_ns_ = 0;  // 0: not open, nothing kept
  bool finished_ = false;
  std::map<std::pair<std::uint32_t, std::string>, Stack> stacks_;  // (thread or 0, domain)
  std::map<std::uint64_t, Open> start_end_;                        // by NVTX range id
  std::vector<TimelineEvent> closed_;
  std::uint64_t kept_ = 0, dropped_ = 0, unclosed_ = 0, unmatched_ = 0;
};

}  // namespace limiter::detail
