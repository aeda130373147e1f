// --cache-control all on the fake Range Profiler: L2 is emptied before each profiled launch and
// before nothing else, right before the launch's own range (so the range holds none of it), in
// user-range mode; kernel replay has no moment for it and says so; none (the default) flushes nothing.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "collect/collector_internal.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/range/range_session.hpp"
#include "fake_range_backend.hpp"

namespace limiter {
namespace {

const CUcontext kContext = reinterpret_cast<CUcontext>(0x20);

struct Session {
  explicit Session(const std::string& cache_control, const std::string& kernel_regex = "") {
    char pattern[] = "/tmp/limiter-cache-control-XXXXXX";
    lock_dir = mkdtemp(pattern);
    CollectorOptions options;
    options.always_active = true;
    options.lock_dir = lock_dir;
    options.cache_control = cache_control;
    options.kernel_regex = kernel_regex;
    session = std::make_unique<detail::RangeSession>(options, std::vector<std::string>{"gpu__time_duration.sum"},
                                                     backend, nvtx, nullptr, false);
  }
  ~Session() {
    session.reset();
    std::filesystem::remove_all(lock_dir);
  }
  void launch(const char* kernel) {
    detail::LaunchCall call;
    call.context = kContext;
    call.function = reinterpret_cast<CUfunction>(std::hash<std::string>{}(kernel) | 1);
    call.symbol_name = kernel;
    call.block = {128, 1, 1};
    session->on_launch(call);
    backend.run_kernel(kContext);
    session->on_launch_exit(call);
  }
  RunRecord finish() {
    session->flush();
    return session->finish();
  }

  std::string lock_dir;
  test::FakeRangeBackend backend;
  detail::NvtxTracker nvtx;
  std::unique_ptr<detail::RangeSession> session;
};

TEST(CacheControl, AllFlushesL2RightBeforeEachProfiledLaunchsRange) {
  Session s("all", "^alpha$");
  s.launch("alpha");
  s.launch("beta");  // not selected: runs as the app ran it, no flush
  s.launch("alpha");
  const RunRecord run = s.finish();
  EXPECT_EQ(run.launches.size(), 2u);
  EXPECT_EQ(run.cache_control, "all");  // the record says which caches its counters saw
  EXPECT_EQ(s.backend.l2_flushes, 2);
  EXPECT_EQ(s.backend.pushes_after_flush, 2);  // each flush is followed by its launch's range
  EXPECT_EQ(s.backend.pushes, 3);              // and the batch's empty range, not flushed for
  EXPECT_EQ(s.session->range_timings().l2_flushes, 2u);
  s.session->on_context_destroy(kContext);
  EXPECT_EQ(s.backend.l2_releases, 1);
}

TEST(CacheControl, AllPutsTheExactModeInUserRanges) {
  Session s("all");  // no filter: auto range would range our flush kernel too
  for (int i = 0; i < 3; ++i) s.launch("alpha");
  EXPECT_EQ(s.finish().launches.size(), 3u);
  EXPECT_EQ(s.backend.l2_flushes, 3);
  EXPECT_EQ(s.backend.pushes_after_flush, 3);
}

TEST(CacheControl, NoneFlushesNothing) {
  Session s("none");
  for (int i = 0; i < 3; ++i) s.launch("alpha");
  const RunRecord run = s.finish();
  EXPECT_EQ(run.launches.size(), 3u);
  EXPECT_EQ(run.cache_control, "none");
  EXPECT_EQ(s.backend.l2_flushes, 0);
  EXPECT_EQ(s.backend.pushes, 0);  // auto range, as before
}

TEST(CacheControl, KernelReplayRefusesItAndCountsTheLaunchesAsMissed) {
  Session s("all");
  s.backend.passes = 3;  // a plan of several passes
  s.launch("alpha");
  s.launch("alpha");
  const RunRecord run = s.finish();
  EXPECT_TRUE(run.launches.empty());
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_NE(run.missed[0].reason.find("--cache-control all needs one-pass profiling"), std::string::npos)
      << run.missed[0].reason;
  EXPECT_EQ(s.backend.l2_flushes, 0);
}

}  // namespace
}  // namespace limiter
