// What a comparison says beside its rows: names spelled differently matched, warnings for
// different programs and for few matched launches, the gate's named kernels, the PC samples,
// and the launches of a record's timeline.
#include <gtest/gtest.h>

#include <sstream>

#include "limiter/compare.hpp"
#include "limiter/reports.hpp"

namespace limiter {
namespace {

ComparedRun run_of(const std::vector<std::tuple<std::string, std::uint32_t, double>>& launches,
                   std::vector<std::string> command = {}) {
  ComparedRun run;
  run.command_line = std::move(command);
  for (const auto& [name, grid, ns] : launches) {
    ComparedLaunch launch;
    launch.sequence = run.launches.size();
    launch.name = run.names->intern(name);
    launch.grid = {grid, 1, 1};
    launch.block = {128, 1, 1};
    launch.duration_ns = std::optional<double>(ns);
    run.launches.push_back(launch);
  }
  return run;
}

TEST(CompareContext, NcuAndCuptiSpellingsOfOneKernelAreMatched) {
  const auto cupti = run_of(
      {{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
        "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
        8, 100},
       {"void cudnn::engines_precompiled::nchwToNhwcKernel<float, false, (cudnnKernelDataType_t)2>(float*)", 4, 50},
       {"void cudnn::engines_precompiled::nchwToNhwcKernel<float, false, (cudnnKernelDataType_t)0>(float*)", 4, 60}});
  const auto ncu = run_of(
      {{"void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>, std::array<char *, 1>>(int, T2, T3)", 8, 90},
       {"void cudnn::nchwToNhwcKernel<float, 0, 2>(T1 *)", 4, 45},
       {"void cudnn::nchwToNhwcKernel<float, 0, 0>(T1 *)", 4, 66}});
  const auto comparison = compare_runs(cupti, ncu);
  EXPECT_EQ(comparison.names_matched_by_key, 3u);
  ASSERT_EQ(comparison.matched.size(), 3u);
  EXPECT_NEAR(*comparison.matched[1].time.change, -0.1, 1e-12);  // the (…)2 instantiation with the 2
  EXPECT_TRUE(comparison.only_before.empty());
  EXPECT_TRUE(comparison.match_warning.empty());
}

TEST(CompareContext, AnInstantiationIsToldApartByItsConfigurationWhenNamesCannot) {
  // ncu names the template parameter (T1) where CUPTI names the type: no key undoes that, the
  // grid tells which is which.
  const auto cupti = run_of({{"void at::native::elementwise_kernel<128, add<float> >(int, add<float>)", 64, 100},
                             {"void at::native::elementwise_kernel<128, mul<float> >(int, mul<float>)", 32, 100}});
  const auto ncu = run_of({{"void at::elementwise_kernel<128, add<T1>>(int, T2)", 64, 110},
                           {"void at::elementwise_kernel<128, mul<T1>>(int, T2)", 32, 120}});
  const auto comparison = compare_runs(cupti, ncu);
  EXPECT_EQ(comparison.names_matched_by_key, 2u);
  ASSERT_EQ(comparison.matched.size(), 2u);
  EXPECT_NEAR(*comparison.matched[0].time.change, 0.1, 1e-12);
  EXPECT_NEAR(*comparison.matched[1].time.change, 0.2, 1e-12);
}

TEST(CompareContext, FewMatchedLaunchesAreSaidWithTheCounts) {
  const auto before = run_of({{"a", 1, 1}, {"a", 1, 1}, {"a", 1, 1}, {"b", 1, 1}});
  const auto after = run_of({{"a", 2, 1}, {"a", 2, 1}, {"a", 2, 1}, {"b", 1, 1}});  // a on another grid
  const auto comparison = compare_runs(before, after);
  EXPECT_EQ(
      comparison.match_warning,
      "only 1 of 4 launches before and 1 of 4 after found their kernel and configuration on the other side: check "
      "that both ran the same program and inputs, or compare one kernel with -k");
}

TEST(CompareContext, DifferentProgramsAreWarnedOf) {
  const auto train = run_of({{"gemm", 1, 1}, {"relu", 1, 1}, {"softmax", 1, 1}}, {"python3", "/a/train.py"});
  const auto serve =
      run_of({{"attention", 1, 1}, {"relu", 1, 1}, {"sample", 1, 1}}, {"python3", "serve.py", "--port", "80"});
  EXPECT_EQ(
      compare_runs(train, serve).program_warning,
      "before ran `python3 /a/train.py`, after `python3 serve.py --port 80`; they share 1 of 3 kernel names: they "
      "look like different programs, so their times say little about one change");
  // A changed script running the same kernels is what a comparison is for.
  const auto train_v2 = run_of({{"gemm", 1, 1}, {"relu", 1, 1}, {"softmax", 1, 1}}, {"python3", "train_v2.py"});
  EXPECT_TRUE(compare_runs(train, train_v2).program_warning.empty());
  // The same program on another machine (another folder).
  const auto elsewhere = run_of({{"gemm", 1, 1}, {"relu", 1, 1}, {"softmax", 1, 1}}, {"python3", "/b/train.py"});
  EXPECT_TRUE(compare_runs(train, elsewhere).program_warning.empty());
}

TEST(CompareContext, AFailedGateNamesTenKernelsAndCountsTheRest) {
  std::vector<std::tuple<std::string, std::uint32_t, double>> before, after;
  for (int i = 0; i < 4101; ++i) {
    before.emplace_back("k" + std::to_string(i), 1, 100);
    after.emplace_back("k" + std::to_string(i), 1, 120 + i % 50);
  }
  const auto comparison = compare_runs(run_of(before), run_of(after), {"b", "a", 0.1});
  EXPECT_EQ(comparison.slower_kernel_count(), 4101u);
  const auto named = comparison.slowest_kernels(kGateKernelsNamed);
  ASSERT_EQ(named.size(), 10u);
  EXPECT_NEAR(*named.front()->time.change, 0.69, 1e-12);  // the most slower first
  std::ostringstream text;
  write_text_comparison(comparison, text);
  const std::string out = text.str();
  const auto gate =
      out.substr(out.find("gate FAILED"), out.find('\n', out.find("gate FAILED")) - out.find("gate FAILED"));
  EXPECT_LT(gate.size(), 400u) << gate;
  EXPECT_NE(gate.find("and 4,091 more kernels"), std::string::npos) << gate;
}

TEST(CompareContext, PcSamplesAreComparedPerKernel) {
  ComparedRun before, after;
  before.stalls.emplace();
  before.stalls->samples = 100;
  before.stalls->kernels.push_back({"chase", "", 0, 80, {{"long_scoreboard", 60}, {"selected", 20}}, {}, ""});
  before.stalls->kernels.push_back({"reduce", "", 0, 20, {{"barrier", 15}, {"selected", 5}}, {}, ""});
  after.stalls.emplace();
  after.stalls->samples = 50;
  after.stalls->kernels.push_back({"chase", "", 0, 10, {{"long_scoreboard", 5}, {"selected", 5}}, {}, ""});
  after.stalls->kernels.push_back({"reduce", "", 0, 40, {{"barrier", 30}, {"selected", 10}}, {}, ""});
  const auto comparison = compare_runs(before, after);
  ASSERT_EQ(comparison.samples.size(), 2u);
  EXPECT_EQ(comparison.samples[0].name, "chase");  // the most samples on either side first
  EXPECT_NEAR(*comparison.samples[0].before_share, 0.8, 1e-12);
  EXPECT_NEAR(*comparison.samples[0].after_share, 0.2, 1e-12);
  EXPECT_EQ(comparison.samples[1].after_reason, "barrier");
  EXPECT_NEAR(*comparison.samples[1].after_reason_share, 0.75, 1e-12);
}

TEST(CompareContext, ATimelineGivesTheLaunchesOfARecordWithoutCounters) {
  RunRecord record;
  record.command_line = {"./app"};
  record.timeline.emplace();
  for (std::uint64_t i = 0; i < 3; ++i) {
    TimelineEvent event;
    event.name = "k";
    event.start_ns = i * 1000;
    event.end_ns = i * 1000 + 100 + i;
    event.grid = Dim3{2, 1, 1};
    event.block = Dim3{64, 1, 1};
    record.timeline->events.push_back(event);
  }
  record.timeline->end_ns = 3000;
  ComparedRun run;
  add_record_fields(run, record);
  ASSERT_EQ(run.launches.size(), 3u);
  EXPECT_TRUE(run.from_timeline);
  EXPECT_EQ(run.launches[2].duration_ns, std::optional<double>(102));
  ASSERT_TRUE(run.selection);
  EXPECT_EQ(run.selection->description, "timed every launch on its timeline (3)");
  EXPECT_TRUE(run.program.has_value());
}

}  // namespace
}  // namespace limiter
