// The phase lists (collect/phases.hpp) with sessions that only record what they are told: the
// hand-over of a record from one phase to the next, and a run that ends before a phase began.
#include <gtest/gtest.h>

#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/phases.hpp"

namespace limiter {
namespace {

using detail::Phases;
using detail::Session;

struct Script {
  std::vector<std::string> calls;
};

class RecordingSession final : public Session {
 public:
  RecordingSession(std::string name, Script& script, std::uint64_t ends_after = 0)
      : name_(std::move(name)), script_(script), ends_after_(ends_after) {}
  const char* name() const override { return name_.c_str(); }
  detail::SessionCallbacks callbacks() const override {
    detail::SessionCallbacks wanted;
    wanted.sync_points = name_ == "exact";
    return wanted;
  }
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
    if (phases.current().phase_over()) phases.advance();
    phases.current().on_launch({});
  }
  EXPECT_EQ(phases.index(), 1u);
  const RunRecord run = phases.finish();
  EXPECT_EQ(run.launches.size(), 5u);  // 3 handed over, 2 of the exact phase's own
  EXPECT_EQ(script.calls, (std::vector<std::string>{"sampling.finish", "exact.begin_after(3 launches, follows)",
                                                    "exact.finish"}));
}

TEST(Phases, ARunThatEndsEarlyTellsTheLaterPhasesTheyNeverRan) {
  Script script;
  Phases phases = two_phases(script);
  phases.current().on_launch({});
  const RunRecord run = phases.finish();
  EXPECT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(script.calls, (std::vector<std::string>{"sampling.finish", "exact.begin_after(1 launches, never ran)",
                                                    "exact.finish"}));
}

// The in-process API takes a single session's record more than once (each time what it holds
// since); a run of phases ends at its first take and the next gives its windows alone.
TEST(Phases, ASingleSessionIsTakenAgainARunOfPhasesOnce) {
  Script script;
  std::vector<std::unique_ptr<Session>> one;
  one.push_back(std::make_unique<RecordingSession>("exact", script));
  Phases single(std::move(one));
  single.current().on_launch({});
  EXPECT_EQ(single.finish().launches.size(), 1u);
  EXPECT_EQ(single.finish().launches.size(), 1u);  // the session was asked again
  EXPECT_EQ(script.calls, (std::vector<std::string>{"exact.finish", "exact.finish"}));
  script.calls.clear();
  Phases phases = two_phases(script);
  phases.current().on_launch({});
  EXPECT_EQ(phases.finish().launches.size(), 1u);
  EXPECT_TRUE(phases.finish().launches.empty());
  EXPECT_EQ(script.calls, (std::vector<std::string>{"sampling.finish", "exact.begin_after(1 launches, never ran)",
                                                    "exact.finish"}));
}

TEST(Phases, TheSubscriberEnablesWhatAnyPhaseNeeds) {
  Script script;
  Phases phases = two_phases(script);
  EXPECT_TRUE(phases.callbacks().sync_points);
  EXPECT_FALSE(phases.callbacks().graphs);
}

// Built for real: no session calls CUDA or CUPTI before its phase's first launch.
std::vector<std::string> phase_names(const CollectorOptions& options) {
  auto backend = detail::cupti_range_backend();
  detail::NvtxTracker nvtx;
  Phases phases(detail::sessions_for(options, *backend, nvtx, nullptr));
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
