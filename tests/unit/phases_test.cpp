// The phase lists (collect/phases.hpp) with sessions that only record what they are told: the
// hand-over of a record from one phase to the next, and a run that ends before a phase began.
#include <gtest/gtest.h>

#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/modes.hpp"
#include "collect/phases.hpp"
#include "fake_backends.hpp"

namespace limiter {
namespace {

using detail::Phases;
using detail::Session;

struct Script {
  std::vector<std::string> calls;
};

class RecordingSession final : public Session, public detail::SyncPoints, public detail::PhaseEnd {
 public:
  RecordingSession(std::string name, Script& script, std::uint64_t ends_after = 0)
      : name_(std::move(name)), script_(script), ends_after_(ends_after) {}
  const char* name() const override { return name_.c_str(); }
  detail::SessionCapabilities capabilities() override {
    detail::SessionCapabilities takes;
    if (name_ == "exact") takes.sync_points = this;
    takes.phase_end = this;
    return takes;
  }
  void on_sync(detail::SyncKind) override { script_.calls.push_back(name_ + ".on_sync"); }
  void begin_region() override {}
  void end_region() override {}
  void on_launch(const detail::LaunchCall&) override { ++seen_; }
  void on_context_destroy(CUcontext) override {}
  void begin_after(RunRecord before, bool follows) override {
    script_.calls.push_back(name_ + ".begin_after(" + std::to_string(before.launches.size()) + " launches, " +
                            (follows ? "follows" : "never ran") + ")");
    before_ = std::move(before);
  }
  bool phase_over() const override { return ends_after_ > 0 && seen_ >= ends_after_; }
  std::string phase_over_reason() const override { return "ended after " + std::to_string(ends_after_); }
  RunRecord finish() noexcept override {
    script_.calls.push_back(name_ + ".finish");
    RunRecord run = before_;
    for (std::uint64_t i = 0; i < seen_; ++i) run.launches.push_back({});
    return run;
  }
  std::vector<MissedLaunches> missed() const override { return {}; }
  std::uint64_t launches_seen() const override { return seen_; }
  std::string timings() const override { return name_; }

 private:
  std::string name_;
  Script& script_;
  std::uint64_t ends_after_;
  std::uint64_t seen_ = 0;
  RunRecord before_;
};

Phases two_phases(Script& script) {
  std::vector<std::unique_ptr<Session>> sessions;
  sessions.push_back(std::make_unique<RecordingSession>("sampling", script, /*ends_after=*/3));
  sessions.push_back(std::make_unique<RecordingSession>("exact", script));
  return Phases(std::move(sessions));
}

TEST(Phases, APhaseThatIsOverHandsItsRecordToTheNext) {
  Script script;
  Phases phases = two_phases(script);
  for (int i = 0; i < 5; ++i) {
    if (phases.current_over()) phases.advance();
    phases.on_launch({});
  }
  EXPECT_EQ(phases.index(), 1u);
  const RunRecord run = phases.finish();
  EXPECT_EQ(run.launches.size(), 5u);  // 3 handed over, 2 of the exact phase's own
  EXPECT_EQ(script.calls,
            (std::vector<std::string>{"sampling.finish", "exact.begin_after(3 launches, follows)", "exact.finish"}));
}

TEST(Phases, ARunThatEndsEarlyTellsTheLaterPhasesTheyNeverRan) {
  Script script;
  Phases phases = two_phases(script);
  phases.on_launch({});
  const RunRecord run = phases.finish();
  EXPECT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(script.calls,
            (std::vector<std::string>{"sampling.finish", "exact.begin_after(1 launches, never ran)", "exact.finish"}));
}

// The in-process API takes a single session's record more than once (each time what it holds
// since); a run of phases ends at its first take and the next gives its windows alone.
TEST(Phases, ASingleSessionIsTakenAgainARunOfPhasesOnce) {
  Script script;
  std::vector<std::unique_ptr<Session>> one;
  one.push_back(std::make_unique<RecordingSession>("exact", script));
  Phases single(std::move(one));
  single.on_launch({});
  EXPECT_EQ(single.finish().launches.size(), 1u);
  EXPECT_EQ(single.finish().launches.size(), 1u);  // the session was asked again
  EXPECT_EQ(script.calls, (std::vector<std::string>{"exact.finish", "exact.finish"}));
  script.calls.clear();
  Phases phases = two_phases(script);
  phases.on_launch({});
  EXPECT_EQ(phases.finish().launches.size(), 1u);
  EXPECT_TRUE(phases.finish().launches.empty());
  EXPECT_EQ(script.calls,
            (std::vector<std::string>{"sampling.finish", "exact.begin_after(1 launches, never ran)", "exact.finish"}));
}

TEST(Phases, TheSubscriberEnablesWhatAnyPhaseNeeds) {
  Script script;
  Phases phases = two_phases(script);
  EXPECT_TRUE(phases.callbacks().sync_points);
  EXPECT_FALSE(phases.callbacks().graphs);
}

// A sync goes to the current phase, and only where it opted in (session_capabilities.hpp).
TEST(Phases, AnEventReachesOnlyTheSessionsThatTakeIt) {
  Script script;
  Phases phases = two_phases(script);
  phases.on_sync(detail::SyncKind::wait);  // the sampling phase takes no syncs
  EXPECT_TRUE(script.calls.empty());
  for (int i = 0; i < 3; ++i) phases.on_launch({});
  ASSERT_TRUE(phases.current_over());
  phases.advance();
  phases.on_sync(detail::SyncKind::wait);
  EXPECT_EQ(script.calls.back(), "exact.on_sync");
  const RunRecord run = phases.finish();
  ASSERT_EQ(run.phases.size(), 0u);  // an unnamed list records no windows
}

// What the modes opt into, built as a run builds them: the subscriber enables no more.
TEST(Phases, TheCallbacksAreWhatTheModesSessionsOptInto) {
  test::FakeBackends backends;
  detail::NvtxTracker nvtx;
  CollectorOptions options;
  options.every_launch = true;
  options.timeline = true;
  {
    Phases phases(detail::sessions_for(options, backends, nvtx, nullptr));
    ASSERT_EQ(phases.background_size(), 1u);
    // The timeline beside --every-launch takes no launch EXIT: each holds serialised range work.
    EXPECT_EQ(phases.background(0).capabilities().launch_exits, nullptr);
    EXPECT_TRUE(phases.callbacks().graph_destroy);  // graphs profiled node by node keep the app's graphs
  }
  options.replay = "kernel";
  EXPECT_FALSE(Phases(detail::sessions_for(options, backends, nvtx, nullptr)).callbacks().graph_destroy);
  Phases default_run(detail::sessions_for(CollectorOptions{}, backends, nvtx, nullptr));
  EXPECT_NE(default_run.background(0).capabilities().launch_exits, nullptr);  // its calls on the timeline
  EXPECT_TRUE(default_run.callbacks().modules);                               // PC sampling's source lines
  CollectorOptions sampling;
  sampling.sampling = true;
  const detail::SessionCallbacks none = Phases(detail::sessions_for(sampling, backends, nvtx, nullptr)).callbacks();
  EXPECT_FALSE(none.launch_exit || none.sync_points || none.graphs || none.modules || none.contexts || none.nvtx);
}

// Built for real: no session calls CUDA or CUPTI before its phase's first launch.
std::vector<std::string> phase_names(const CollectorOptions& options) {
  test::FakeBackends backends;
  detail::NvtxTracker nvtx;
  Phases phases(detail::sessions_for(options, backends, nvtx, nullptr));
  std::vector<std::string> names;
  for (std::size_t i = 0; i < phases.size(); ++i) names.push_back(phases.at(i).name());
  return names;
}

TEST(Phases, EveryModeIsAPhaseList) {
  CollectorOptions options;  // the default run
  EXPECT_EQ(phase_names(options), (std::vector<std::string>{"PC sampling", "exact", "timeline"}));
  options.per_kernel_count = 3;  // its budget
  EXPECT_EQ(phase_names(options), (std::vector<std::string>{"PC sampling", "exact", "timeline"}));
  options.every_launch = true;
  EXPECT_EQ(phase_names(options), (std::vector<std::string>{"exact"}));
  options.per_kernel_count = CollectorOptions{}.per_kernel_count;
  EXPECT_EQ(phase_names(options), (std::vector<std::string>{"exact"}));
  options.every_launch = false;
  options.trace = true;
  EXPECT_EQ(phase_names(options), (std::vector<std::string>{"activity"}));
  options.trace = false;
  options.stalls = true;
  EXPECT_EQ(phase_names(options), (std::vector<std::string>{"PC sampling"}));
  options.stalls = false;
  options.per_kernel_count = 3;
  options.sampling = true;  // budgets, then sampling
  EXPECT_EQ(phase_names(options), (std::vector<std::string>{"exact", "PM sampling"}));
  options.per_kernel_count = CollectorOptions{}.per_kernel_count;
  options.exact_undecided_count = 2;  // sampling, then the undecided kernels exactly
  EXPECT_EQ(phase_names(options), (std::vector<std::string>{"PM sampling", "exact"}));
}

}  // namespace
}  // namespace limiter
