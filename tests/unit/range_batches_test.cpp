// Batches, the exact session's part (collect/range/range_batches.hpp), on the fake Range Profiler
// with a recording BatchEvents: a profiler started after its turn, a batch stopped and decoded
// into completed launches, started again only for the next ranged launch, a batch whose decode
// fails lost (its launches missed) and the context paused, a context retired for good.
#include <gtest/gtest.h>

#include "collect/range/range_batches.hpp"
#include "fake_range_backend.hpp"

namespace limiter {
namespace {

const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);

struct Recorder final : detail::BatchEvents {
  bool take_turn(detail::ContextProfiler&, std::size_t) override {
    ++turns_taken;
    return turn_comes;
  }
  void end_turn(detail::ContextProfiler&) override { ++turns_ended; }
  void miss(detail::MissReason reason, std::uint64_t launches, const std::string&) override {
    missed.emplace_back(reason, launches);
  }
  void launch_decoded(detail::ContextProfiler&, KernelLaunch&& launch, std::uint32_t correlation_id,
                      std::size_t range) override {
    decoded.push_back(launch.name + "@" + std::to_string(range) + "#" + std::to_string(correlation_id));
  }
  void batch_decoded() override { ++batches; }
  bool rebuild_config(detail::ContextProfiler&) override { return false; }

  bool turn_comes = true;
  int turns_taken = 0, turns_ended = 0, batches = 0;
  std::vector<std::pair<detail::MissReason, std::uint64_t>> missed;
  std::vector<std::string> decoded;
};

struct BatchesTest : ::testing::Test {
  BatchesTest() {
    profiler.context = kContext;
    profiler.device_uuid = "GPU-fake";
    profiler.host = backend.counter_host("GH100", {});
    profiler.config = profiler.host->config_image(metrics);
    profiler.passes = 1;
    profiler.paused = true;
  }
  // A launch the profiler ranges (auto range): queued, then run.
  void launch(const std::string& kernel, std::uint32_t correlation_id) {
    detail::PendingLaunch pending;
    pending.launch.name = kernel;
    pending.keep = true;
    pending.correlation_id = correlation_id;
    batches.start(profiler);
    profiler.pending.push_back(std::move(pending));
    backend.run_kernel(kContext);
  }

  test::FakeRangeBackend backend;
  std::vector<std::string> metrics = {"gpu__time_duration.sum"};
  detail::RangeTimings times;
  Recorder events;
  detail::RangeBatches batches{backend, metrics, times, events, "auto", /*ranges_selected_only=*/false, ""};
  detail::ContextProfiler profiler;
};

TEST_F(BatchesTest, AStartedBatchIsDecodedIntoItsLaunchesAtAFlush) {
  ASSERT_TRUE(batches.start_profiler(profiler, 2));
  EXPECT_EQ(events.turns_taken, 1);
  EXPECT_TRUE(profiler.user_replay);  // one pass: user replay
  EXPECT_FALSE(profiler.user_range);  // nothing filtered: auto range
  EXPECT_FALSE(profiler.paused);
  launch("alpha", 11);
  launch("beta", 12);
  batches.flush(profiler);
  EXPECT_EQ(events.decoded, (std::vector<std::string>{"alpha@0#11", "beta@1#12"}));
  EXPECT_EQ(events.batches, 1);
  EXPECT_TRUE(profiler.stopped);  // Start waits for the next ranged launch
  EXPECT_EQ(backend.starts.load(), 1);
  batches.flush(profiler);  // nothing pending: no Stop
  EXPECT_EQ(backend.stops.load(), 1);
  launch("gamma", 13);
  EXPECT_EQ(backend.starts.load(), 2);
  EXPECT_EQ(times.batches, 1u);
}

TEST_F(BatchesTest, NoTurnLeavesTheContextPaused) {
  events.turn_comes = false;
  EXPECT_FALSE(batches.start_profiler(profiler, 3));
  EXPECT_TRUE(profiler.paused);
  EXPECT_EQ(backend.enables.load(), 0);
}

TEST_F(BatchesTest, ABatchWhoseDecodeFailsIsLostAndTheContextPaused) {
  ASSERT_TRUE(batches.start_profiler(profiler, 1));
  launch("alpha", 1);
  launch("beta", 2);
  backend.failing_decodes = true;
  EXPECT_THROW(batches.flush(profiler), detail::CuptiError);
  ASSERT_EQ(events.missed.size(), 1u);
  EXPECT_EQ(events.missed[0].first, detail::MissReason::error);
  EXPECT_EQ(events.missed[0].second, 2u);
  EXPECT_TRUE(profiler.paused);
  EXPECT_EQ(profiler.profiler, nullptr);  // disabled: the next launch starts a new object
  EXPECT_EQ(events.turns_ended, 1);
  backend.failing_decodes = false;
  EXPECT_TRUE(batches.resume(profiler, 1));
  EXPECT_EQ(backend.enables.load(), 2);
}

TEST_F(BatchesTest, ARetiredContextIsDisabledForGood) {
  ASSERT_TRUE(batches.start_profiler(profiler, 1));
  launch("alpha", 1);
  batches.retire(profiler);
  EXPECT_TRUE(profiler.retired);
  EXPECT_EQ(events.decoded, std::vector<std::string>{"alpha@0#1"});
  EXPECT_EQ(backend.disables.load(), 1);
  EXPECT_EQ(events.turns_ended, 1);
  batches.pause(profiler);  // nothing more happens to it
  batches.flush(profiler);
  EXPECT_EQ(backend.disables.load(), 1);
  EXPECT_EQ(backend.stops.load(), 1);
}

TEST_F(BatchesTest, SelectionFilteringRangesOnlySelectedLaunches) {
  detail::RangeBatches selective(backend, metrics, times, events, "auto", /*ranges_selected_only=*/true, "");
  ASSERT_TRUE(selective.start_profiler(profiler, 1));
  EXPECT_TRUE(profiler.user_range);
  profiler.passes = 3;
  EXPECT_FALSE(selective.wants_user_replay(profiler));  // several passes: kernel replay
}

}  // namespace
}  // namespace limiter
