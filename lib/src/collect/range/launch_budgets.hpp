#pragma once
// Budgets and selection, a part of the exact session (range_session.hpp): which of a launch's
// kernels are profiled (LaunchSelector), when a run of unselected launches pauses the context's
// profiler, and when a session that ends where its budgets are spent is over. Plain values in
// and out, and a clock of its own, so that its rules are tested without a GPU and without waiting.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "collect/clock.hpp"
#include "collect/range/launch_selector.hpp"
#include "collect/range/range_types.hpp"
#include "limiter/collector_options.hpp"

namespace limiter::detail {

class LaunchBudgets {
 public:
  using Now = std::function<Clock::time_point()>;
  // ENDS_WHEN_SPENT: where a budget run would pause, the session's phase is over instead.
  LaunchBudgets(
      const CollectorOptions& options, bool ends_when_spent, Now now = [] { return Clock::now(); });

  // The launch's context: whether its profiler ranges the launch anyway, and in user-range mode.
  struct Context {
    bool running = false;
    bool user_range = false;
  };
  enum class Next {
    run_unprofiled,  // nothing selected and no profiler running: the launch runs at full speed
    profile,         // the selected kernels (or every kernel, in auto range) go to the profiler
    pause,           // a long run of unselected launches: the context's profiler is paused
    end_phase,       // the same where the session ends when its budgets are spent (then spend())
  };
  struct Decision {
    Next next = Next::run_unprofiled;
    std::size_t selected = 0;
    std::uint64_t host_timed = 0;  // kernels not ranged behind a host-timed kernel (RangeTimings)
  };
  // At a launch's ENTER, in launch order (the session's lock held): each kernel's `keep` set.
  Decision decide(std::vector<PendingLaunch>& launches, const NvtxRanges* ranges, Context context);
  // The app waited for the GPU: a host-timed kernel is done, ranging may go on.
  void on_sync() { host_timed_ = false; }
  // Decision::end_phase, once the session retired its profilers: the phase is over.
  void spend(bool profiler_was_running);
  bool spent() const { return spent_.load(); }
  const std::string& spent_reason() const { return spent_reason_; }

  // Launches of these kernels and configurations (name, LaunchSelector::configuration_text) are
  // only counted from now on, never selected.
  void exclude(std::vector<std::pair<std::string, std::string>> kernels) { selector_.exclude(std::move(kernels)); }
  const LaunchSelector& selector() const { return selector_; }
  std::uint64_t unselected_in_a_row() const { return unselected_in_a_row_; }

 private:
  LaunchSelector selector_;
  bool ends_when_spent_;
  Now now_;
  std::uint64_t unselected_in_a_row_ = 0;  // pauses the profiler after kPauseAfterUnselected
  Clock::time_point unselected_since_{};   // when that run began
  bool host_timed_ = false;                // a host-timed kernel launched, no sync since: nothing ranged
  std::atomic<bool> spent_{false};
  std::string spent_reason_ = "budgets spent";
};

}  // namespace limiter::detail
