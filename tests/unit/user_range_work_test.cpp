// User ranges, the exact session's part (collect/range/user_range_work.hpp), on the fake Range
// Profiler: a range named by its launch's place in the batch, the batch's empty range, the L2
// flush only under --cache-control all, and the shortest empty range's work kept.
#include <gtest/gtest.h>

#include "collect/range/user_range_work.hpp"
#include "fake_range_backend.hpp"
#include "limiter/user_range_time.hpp"

namespace limiter {
namespace {

const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);

// A started user-range profiler on the fake, with its counter-data image.
struct Started {
  explicit Started(test::FakeRangeBackend& backend) : backend_(backend) {
    object = backend.enable(kContext);
    image.assign(backend.counter_data_size(object, {}, 8), 0);
    backend.initialize_image(object, image);
    std::vector<std::uint8_t> config(1, 8);
    detail::RangeConfig range_config;
    range_config.config = &config;
    range_config.image = &image;
    range_config.user_range = true;
    range_config.user_replay = true;
    backend.set_config(object, range_config);
    backend.start(object);
  }
  // The places the decoded ranges were pushed for, in order.
  std::vector<std::size_t> places() {
    backend_.decode(object);
    auto host = backend_.counter_host("GH100", {});
    std::vector<std::size_t> out;
    for (std::size_t range = 0; range < host->range_count(image); ++range)
      if (const auto place = detail::user_range_index(*host, image, range)) out.push_back(*place);
    return out;
  }
  test::FakeRangeBackend& backend_;
  detail::RangeObject* object = nullptr;
  std::vector<std::uint8_t> image;
};

TEST(UserRanges, ARangeIsNamedByItsLaunchsPlaceInTheBatch) {
  test::FakeRangeBackend backend;
  detail::RangeTimings times;
  detail::UserRanges ranges(backend, times, /*flush_caches=*/false, detail::RangeSync::none);
  Started profiler(backend);
  ranges.push(profiler.object, 3);
  backend.run_kernel(kContext);
  ranges.pop(profiler.object, nullptr, false, /*synchronize=*/false);
  ranges.push(profiler.object, 4);
  ranges.pop(profiler.object, nullptr, false, false);
  EXPECT_EQ(profiler.places(), (std::vector<std::size_t>{3, 4}));
  EXPECT_EQ(times.user_ranges, 2u);
}

TEST(UserRanges, TheBatchsEmptyRangeIsMeasuredOnce) {
  test::FakeRangeBackend backend;
  detail::RangeTimings times;
  detail::UserRanges ranges(backend, times, false, detail::RangeSync::none);
  Started profiler(backend);
  std::deque<detail::PendingLaunch> batch(2);
  EXPECT_FALSE(detail::UserRanges::measured(batch));
  batch.push_back(ranges.empty_range(profiler.object, batch.size()));
  EXPECT_TRUE(batch.back().measures_range_work);
  EXPECT_FALSE(batch.back().keep);  // not a launch of the record
  EXPECT_TRUE(detail::UserRanges::measured(batch));
  EXPECT_EQ(backend.pushes.load(), 1);
  EXPECT_EQ(profiler.places(), std::vector<std::size_t>{2});
}

TEST(UserRanges, L2IsFlushedOnlyUnderCacheControlAll) {
  test::FakeRangeBackend backend;
  detail::RangeTimings times;
  detail::UserRanges app_caches(backend, times, /*flush_caches=*/false, detail::RangeSync::none);
  app_caches.flush_caches(kContext, nullptr, false);
  EXPECT_EQ(backend.l2_flushes, 0);
  detail::UserRanges flushed(backend, times, /*flush_caches=*/true, detail::RangeSync::all);
  flushed.flush_caches(kContext, nullptr, false);
  EXPECT_EQ(backend.l2_flushes, 1);
  EXPECT_EQ(times.l2_flushes, 1u);
  EXPECT_TRUE(flushed.syncs_launch_ranges());
  EXPECT_FALSE(app_caches.syncs_graph_ranges());
  EXPECT_TRUE(detail::UserRanges(backend, times, false, detail::RangeSync::graph).syncs_graph_ranges());
}

TEST(UserRanges, TheShortestEmptyRangesWorkIsKept) {
  auto empty = [](double active, double elapsed) {
    KernelLaunch launch;
    launch.counters["gpu__time_duration.sum"] = 4000;
    launch.counters[kEngineActiveCycles] = active;
    launch.counters[kEngineElapsedCycles] = elapsed;
    return launch;
  };
  std::optional<double> work;
  detail::UserRanges::keep_range_work(work, KernelLaunch{});  // no engine counters: nothing kept
  EXPECT_FALSE(work.has_value());
  detail::UserRanges::keep_range_work(work, empty(50, 100));
  ASSERT_TRUE(work.has_value());
  const double first = *work;
  EXPECT_GT(first, 0.0);
  detail::UserRanges::keep_range_work(work, empty(80, 100));  // longer: the shorter stays
  EXPECT_EQ(*work, first);
  detail::UserRanges::keep_range_work(work, empty(10, 100));
  EXPECT_LT(*work, first);
}

}  // namespace
}  // namespace limiter
