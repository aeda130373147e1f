#include <gtest/gtest.h>

#include <algorithm>

#include "collect/range/launch_selector.hpp"
#include "limiter/error.hpp"

namespace limiter::detail {
namespace {

std::string picks(LaunchSelector& selector, const std::vector<std::string>& launches) {
  std::string out;
  for (const auto& name : launches) out += selector.select(name) ? '1' : '0';
  return out;
}

TEST(LaunchSelector, EverythingByDefault) {
  LaunchSelector selector(CollectorOptions{});
  EXPECT_EQ(picks(selector, {"a", "b", "a"}), "111");
}

TEST(LaunchSelector, RegexSkipAndCountLikeNcu) {
  CollectorOptions options;
  options.kernel_regex = "^gemm";
  options.skip = 1;
  options.count = 2;
  LaunchSelector selector(options);
  EXPECT_EQ(picks(selector, {"gemm_a", "copy", "gemm_b", "gemm_c", "gemm_d"}), "00110");
  EXPECT_TRUE(selector.exhausted());
  EXPECT_EQ(selector.profiled(), 2u);
}

TEST(LaunchSelector, SamplingIsPerKernel) {
  CollectorOptions options;
  options.sample_every = 3;
  LaunchSelector selector(options);
  // a: 1st, 4th; b: 1st, 4th — each kernel's own launches are counted.
  EXPECT_EQ(picks(selector, {"a", "b", "a", "a", "b", "b", "a", "b"}), "11000011");
}

// --per-kernel-skip 1 --per-kernel-count 2: per kernel and launch configuration, the 2nd and
// 3rd launches; a kernel in two configurations gets a budget for each.
TEST(LaunchSelector, PerKernelBudgetsCountEachKernelAndConfiguration) {
  CollectorOptions options;
  options.per_kernel_skip = 1;
  options.per_kernel_count = 2;
  LaunchSelector selector(options);
  EXPECT_TRUE(selector.filters());
  std::string out;
  for (const auto& [name, configuration] : std::vector<std::pair<std::string, std::string>>{{"a", "64"},
                                                                                            {"b", "64"},
                                                                                            {"a", "64"},
                                                                                            {"a", "128"},
                                                                                            {"a", "64"},
                                                                                            {"a", "64"},
                                                                                            {"b", "64"},
                                                                                            {"a", "128"},
                                                                                            {"b", "64"},
                                                                                            {"b", "64"},
                                                                                            {"a", "128"},
                                                                                            {"a", "128"}})
    out += selector.select(name, configuration) ? '1' : '0';
  EXPECT_EQ(out, "001010111010");
  EXPECT_FALSE(LaunchSelector(CollectorOptions{}).filters());
}

// Whether a launch moved a budget on: skipped and counted launches do; a spent budget, a kernel
// -k drops, an excluded kernel and a spent -c do not (the counters phase's idle rule).
TEST(LaunchSelector, ALaunchAdvancesABudgetWhileItsSkipOrCountLasts) {
  CollectorOptions options;
  options.per_kernel_skip = 1;
  options.per_kernel_count = 1;
  options.kernel_regex = "gemm";
  options.count = 2;
  LaunchSelector selector(options);
  selector.exclude({{"gemm_judged", "64"}});
  std::string out;
  for (const auto& name : {"gemm", "gemm", "gemm", "relu", "gemm_judged", "gemm2", "gemm2", "gemm3", "gemm3"}) {
    const bool selected = selector.select(name, "64");
    out += std::string(selected ? "S" : "-") + (selector.advanced_a_budget() ? "a " : ". ");
  }
  // gemm: skipped, counted, spent; relu: -k; judged: excluded; gemm2: skipped, counted (-c now 2);
  // gemm3: -c spent.
  EXPECT_EQ(out, "-a Sa -. -. -. -a Sa -. -. ");
}

// Sampling then exact: the kernels the samples judged are only counted; the others, and kernels
// new after the sampling phase, get their budget.
TEST(LaunchSelector, ExcludedKernelsAreCountedNeverSelected) {
  CollectorOptions options;
  options.per_kernel_count = 2;
  LaunchSelector selector(options);
  const std::string wide = LaunchSelector::configuration_text({128, 1, 1}, {256, 1, 1});
  EXPECT_EQ(wide, "128,1,1/256,1,1");
  selector.exclude({{"judged", wide}});
  std::string out;
  for (const auto& [name, configuration] :
       std::vector<std::pair<std::string, std::string>>{{"judged", wide},
                                                        {"undecided", wide},
                                                        {"judged", wide},
                                                        {"judged", "64,1,1/256,1,1"},
                                                        {"undecided", wide},
                                                        {"undecided", wide},
                                                        {"new", wide}})
    out += selector.select(name, configuration) ? '1' : '0';
  EXPECT_EQ(out, "0101101");  // another configuration of a judged kernel is not judged
  std::uint64_t judged = 0;
  for (const auto& k : selector.kernels_seen())
    if (k.name == "judged" && k.grid.x == 128) judged = k.launches;
  EXPECT_EQ(judged, 2u);
}

// The budget counts every launch of each kernel and configuration, profiled or not; the record
// gets those counts (per NVTX range with budget_by_range, summed here over the ranges).
TEST(LaunchSelector, KernelsSeenCountEveryLaunchOfEachKernelAndConfiguration) {
  CollectorOptions options;
  options.per_kernel_count = 1;
  options.budget_by_range = true;
  LaunchSelector selector(options);
  const NvtxRanges forward = nvtx_ranges_from_paths({"forward/"}), backward = nvtx_ranges_from_paths({"backward/"});
  for (int i = 0; i < 5; ++i) selector.select("gemm", "128,1,1/256,1,1", true, &forward);
  for (int i = 0; i < 3; ++i) selector.select("gemm", "128,1,1/256,1,1", true, &backward);
  selector.select("gemm", "64,2,1/128,1,1", true, nullptr);
  const std::vector<KernelSeen> expected = {{"gemm", {128, 1, 1}, {256, 1, 1}, 8},
                                            {"gemm", {64, 2, 1}, {128, 1, 1}, 1}};
  auto seen = selector.kernels_seen();
  std::sort(seen.begin(), seen.end(), [](const KernelSeen& a, const KernelSeen& b) { return a.launches > b.launches; });
  EXPECT_EQ(seen, expected);
  EXPECT_TRUE(LaunchSelector(CollectorOptions{}).kernels_seen().empty());  // no budget, nothing counted
}

// With the profiler paused, kernels that fall due wait for a round: half the sampled kernels
// due. Then the profiler runs, and every due kernel is taken as it comes. A kernel launched
// three times as often as the others no longer resumes the profiler on its own.
TEST(LaunchSelector, SamplingGathersKernelsIntoRounds) {
  CollectorOptions options;
  options.sample_every = 2;
  LaunchSelector selector(options);
  std::string out;
  auto launch = [&](const std::string& name, bool running) { out += selector.select(name, "", running) ? '1' : '0'; };
  for (const char* name : {"a", "b", "c", "f"}) launch(name, true);  // first launches: all sampled
  launch("f", false);                                                // not due yet
  launch("f", false);                                                // due, but 1 of 4 kernels due: waits
  launch("f", false);                                                // still waits (its due count is 1)
  launch("a", false);                                                // a's first launch since: not due
  launch("b", false);
  launch("a", false);  // due: 2 of 4 due, a round starts
  launch("f", true);   // the profiler runs: f, due, is taken
  launch("b", true);   // due and running: taken
  launch("c", true);   // not due (1 launch since)
  EXPECT_EQ(out,
            "1111"
            "000"
            "00"
            "1"
            "11"
            "0");
}

TEST(LaunchSelector, BadRegexIsAnInputError) {
  CollectorOptions options;
  options.kernel_regex = "([";
  EXPECT_THROW(LaunchSelector{options}, InputError);
}

}  // namespace
}  // namespace limiter::detail
