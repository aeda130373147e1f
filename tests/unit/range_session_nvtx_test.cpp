// The app's NVTX ranges as the exact session sees them: the NvtxTracker fed by CUPTI's NVTX
// callbacks (the orchestrator's), read on the launching thread at each launch's ENTER. The
// ranges kept with each launch, --nvtx-include / --nvtx-exclude, and --budget-by-range. The
// expressions themselves are nvtx_ranges_test.cpp's; here, the session's use of them.
#include <gtest/gtest.h>

#include "range_session_harness.hpp"

namespace limiter {
namespace {

using test::exact;
using test::finish;
using test::Harness;

CollectorOptions with_nvtx() {
  CollectorOptions options = exact();
  options.nvtx = true;
  return options;
}

TEST(RangeSessionNvtx, EachLaunchKeepsTheRangesAroundItOnlyWhenAsked) {
  Harness h(with_nvtx());
  h.nvtx_push("train");
  h.nvtx_push("step");
  h.launch("alpha");
  h.nvtx_pop();
  h.launch("beta");
  h.nvtx_pop();
  h.launch("gamma");
  const RunRecord run = finish(h);
  ASSERT_EQ(run.launches.size(), 3u);
  EXPECT_EQ(run.launches[0].nvtx, (std::vector<std::string>{"train/step/"}));
  EXPECT_EQ(run.launches[1].nvtx, (std::vector<std::string>{"train/"}));
  EXPECT_TRUE(run.launches[2].nvtx.empty());

  Harness plain(exact());  // without --nvtx the ranges are not read
  plain.nvtx_push("train");
  plain.launch("alpha");
  plain.nvtx_pop();
  const RunRecord unasked = finish(plain);
  ASSERT_EQ(unasked.launches.size(), 1u);
  EXPECT_TRUE(unasked.launches[0].nvtx.empty());
}

TEST(RangeSessionNvtx, IncludeAndExcludeChooseTheLaunchesProfiled) {
  CollectorOptions options = with_nvtx();
  options.nvtx_include = {"train/"};
  options.nvtx_exclude = {"eval/"};
  Harness h(options);
  h.launch("outside");
  h.nvtx_push("train");
  h.launch("inside");
  h.nvtx_push("eval");
  h.launch("excluded");
  h.nvtx_pop();
  h.launch("inside");
  h.nvtx_pop();
  h.launch("outside");
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"inside", "inside"}));
  EXPECT_EQ(run.launches_seen, 5u);  // every launch seen, profiled or not
}

TEST(RangeSessionNvtx, BudgetByRangeGivesEachRangeItsOwnBudget) {
  for (const bool by_range : {false, true}) {
    CollectorOptions options = with_nvtx();
    options.per_kernel_count = 1;
    options.budget_by_range = by_range;
    Harness h(options);
    for (const char* range : {"forward", "backward"}) {
      h.nvtx_push(range);
      h.launch("gemm");
      h.launch("gemm");
      h.nvtx_pop();
    }
    const RunRecord run = finish(h);
    ASSERT_EQ(run.launches.size(), by_range ? 2u : 1u) << "budget_by_range " << by_range;
    EXPECT_EQ(run.launches[0].nvtx, (std::vector<std::string>{"forward/"}));
    if (by_range) {
      EXPECT_EQ(run.launches[1].nvtx, (std::vector<std::string>{"backward/"}));
    }
  }
}

}  // namespace
}  // namespace limiter
