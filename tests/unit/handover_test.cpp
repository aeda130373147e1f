// The hand-over to an exact phase (collect/handover.hpp), on the fake Range Profiler: the
// orchestrator's phase rule analyses the record handed over, tells the RangeSession only which
// kernels to leave out, and joins the session's plain record into the one handed over.
#include <gtest/gtest.h>

#include "collect/handover.hpp"
#include "range_session_harness.hpp"

namespace limiter {
namespace {

using test::exact;
using test::finish;
using test::Harness;

// A PM-sampling phase's record: one aggregate per kernel, each with its samples.
RunRecord sampled_phase(std::uint64_t launches_seen) {
  RunRecord sampled;
  sampled.source = "cupti-pm-sampling";
  sampled.launches_seen = launches_seen;
  sampled.sampling = SamplingInfo{};
  return sampled;
}

TEST(ExactHandover, AnExactPhaseThatNeverBeganSaysSo) {
  CollectorOptions options = exact();
  options.sampling_phase_launches = 100;
  Harness h(options);
  detail::ExactHandover handover(*h.session, options);
  RunRecord sampled;
  sampled.source = "cupti-pm-sampling";
  sampled.launches_seen = 40;
  handover.begin(sampled, /*follows=*/false);
  const RunRecord run = handover.join(finish(h));
  EXPECT_EQ(run.source, "cupti-pm-sampling");
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_NE(run.missed[0].reason.find("the exact phase never began"), std::string::npos);
  EXPECT_NE(run.missed[0].reason.find("40 launches"), std::string::npos);
}

TEST(ExactHandover, TheExactLaunchesJoinTheRecordHandedOver) {
  CollectorOptions options = exact();
  options.per_kernel_count = 2;
  Harness h(options);
  detail::ExactHandover handover(*h.session, options);
  handover.begin(sampled_phase(10), /*follows=*/true);
  for (int i = 0; i < 3; ++i) h.launch("alpha");
  const RunRecord plain = finish(h);
  EXPECT_EQ(plain.source, "cupti");  // the session's own record knows no phase before
  EXPECT_EQ(plain.launches.size(), 2u);
  const RunRecord run = handover.join(plain);
  EXPECT_EQ(run.source, "cupti-pm-sampling");
  ASSERT_TRUE(run.sampling.has_value());
  EXPECT_TRUE(run.sampling->exact_after_sampling);
  EXPECT_EQ(run.launches_seen, 13u);  // 10 sampled, 3 exact
  EXPECT_EQ(run.cache_control, "none");
  ASSERT_EQ(run.kernels_seen.size(), 1u);
  EXPECT_EQ(run.kernels_seen[0].launches, 3u);
  EXPECT_NE(handover.timings().find("sampling phase over after 10 launches: 0 kernels judged"), std::string::npos)
      << handover.timings();
  EXPECT_EQ(h.backend.disables, 1);  // the phase ended for good with the run
}

TEST(ExactHandover, AfterAPcSamplingWindowNoKernelIsJudged) {
  CollectorOptions options = exact();
  Harness h(options);
  detail::ExactHandover handover(*h.session, options);
  RunRecord window;  // the default run's: PC samples, no PM sampling
  window.source = "cupti";
  window.launches_seen = 5;
  handover.begin(window, /*follows=*/true);
  h.launch("alpha");
  const RunRecord run = handover.join(finish(h));
  EXPECT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches_seen, 6u);
  EXPECT_FALSE(run.sampling.has_value());
  EXPECT_EQ(handover.timings(), "PC-sampling window over after 5 launches: each kernel's next launches exactly\n");
}

TEST(ExactHandover, WithoutAHandOverTheRecordIsTheSessions) {
  Harness h(exact());
  detail::ExactHandover handover(*h.session, exact());
  h.launch("alpha");
  const RunRecord run = handover.join(finish(h));
  EXPECT_EQ(run.source, "cupti");
  EXPECT_EQ(run.launches.size(), 1u);
}

}  // namespace
}  // namespace limiter
