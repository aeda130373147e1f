#pragma once
// The default run's last phase (phases.hpp): nothing of its own to collect. The activity
// session beside the phases records the timeline; this phase only marks its window, the one
// the program verdict is judged on (the counters phase serialises launches and PC sampling
// costs the app time: neither window is the program's own pace).
#include <atomic>

#include "collect/session.hpp"

namespace limiter::detail {

class TimelinePhase final : public Session {
 public:
  const char* name() const override { return "timeline"; }
  void begin_region() override {}
  void end_region() override {}
  void on_launch(const LaunchCall& /*call*/) override { ++launches_seen_; }
  void on_context_destroy(CUcontext /*context*/) override {}
  void begin_after(RunRecord before, bool /*follows*/) override { before_ = std::move(before); }
  RunRecord finish() noexcept override {
    before_.launches_seen = before_.launches_seen.value_or(0) + launches_seen_;
    return std::move(before_);
  }
  std::vector<MissedLaunches> missed() const override { return {}; }
  std::uint64_t launches_seen() const override { return launches_seen_; }
  std::string timings() const override {
    return std::to_string(launches_seen_.load()) + " launches at the app's own pace (the timeline beside)\n";
  }

 private:
  std::atomic<std::uint64_t> launches_seen_{0};  // on the app's launching threads, read at the end
  RunRecord before_;
};

}  // namespace limiter::detail
