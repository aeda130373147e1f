// limiter compare: matching, time changes, noise, the --fail-if-slower gate, and golden files
// of every format for the H200 probe against a copy in which local_array_2k takes 25 % longer
// for the same work (tests/data/compare/scale_ncu_raw.py). Regenerate the goldens with
//   LIMITER_UPDATE_GOLDEN=1 build/tests/limiter_unit_tests --gtest_filter='Compare*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "limiter/analysis.hpp"
#include "test_data.hpp"
#include "limiter/compare.hpp"
#include "limiter/import.hpp"
#include "limiter/reports.hpp"

namespace limiter {
namespace {

using testing::expect_golden;

const std::string kData = LIMITER_TEST_DATA_DIR;
const std::string kProbe = "ncu/h200_probe_raw.csv";
const std::string kProbeSlower = "compare/h200_probe_local_array_slower.csv";

RunAnalysis analysis_of(const std::string& relative_path) {
  std::ifstream in(kData + "/" + relative_path, std::ios::binary);
  return analyze_run(import_ncu_csv(in, relative_path));
}

RunComparison compare_files(const std::string& before, const std::string& after, std::optional<double> max_slowdown = {}) {
  CompareOptions options;
  options.before_label = before;
  options.after_label = after;
  options.max_slowdown = max_slowdown;
  return compare_runs(analysis_of(before), analysis_of(after), options);
}


std::string rendered(const RunComparison& comparison, ReportFormat format) {
  std::ostringstream out;
  write_comparison(comparison, format, out);
  return out.str();
}

KernelAnalysis launch(const std::string& name, std::uint32_t grid_x, std::optional<double> duration_ns,
                      std::optional<Verdict> verdict = Verdict::bandwidth) {
  KernelAnalysis k;  // run_of() numbers the launches
  k.name = name;
  k.grid = {grid_x, 1, 1};
  k.block = {256, 1, 1};
  k.duration_ns = duration_ns;
  k.verdict = verdict;
  return k;
}

RunAnalysis run_of(std::vector<KernelAnalysis> kernels) {
  RunAnalysis run;
  for (std::size_t i = 0; i < kernels.size(); ++i) kernels[i].sequence = i;
  run.kernels = std::move(kernels);
  return run;
}

TEST(Compare, TimeChangeIsRatioMinusOne) {
  const auto slower = time_change(800, 1000);
  EXPECT_DOUBLE_EQ(*slower.ratio, 1.25);
  EXPECT_DOUBLE_EQ(*slower.change, 0.25);
  const auto faster = time_change(1000, 800);
  EXPECT_DOUBLE_EQ(*faster.change, -0.2);
  EXPECT_FALSE(time_change(std::nullopt, 800).change.has_value());
  EXPECT_FALSE(time_change(0, 800).ratio.has_value());
}

TEST(Compare, MatchesByNameConfigurationAndOrderAmongEquals) {
  const auto before = run_of({launch("a", 10, 100), launch("b", 10, 50), launch("a", 10, 110), launch("c", 10, 5)});
  const auto after = run_of({launch("a", 10, 90), launch("c", 20, 5), launch("a", 10, 100), launch("a", 10, 70),
                             launch("d", 10, 1)});
  const auto comparison = compare_runs(before, after);
  ASSERT_EQ(comparison.matched.size(), 2u);
  // The first "a" of BEFORE with the first of AFTER, the second with the second.
  EXPECT_EQ(comparison.matched[0].before.sequence, 0u);
  EXPECT_EQ(comparison.matched[0].after.sequence, 0u);
  EXPECT_EQ(comparison.matched[0].occurrence, 0u);
  EXPECT_EQ(comparison.matched[1].before.sequence, 2u);
  EXPECT_EQ(comparison.matched[1].after.sequence, 2u);
  EXPECT_EQ(comparison.matched[1].occurrence, 1u);
  // b is gone, c changed its grid (so it is a different launch), a's third launch and d are new.
  ASSERT_EQ(comparison.only_before.size(), 2u);
  EXPECT_EQ(comparison.only_before[0].name, "b");
  EXPECT_EQ(comparison.only_before[1].name, "c");
  ASSERT_EQ(comparison.only_after.size(), 3u);
  EXPECT_EQ(comparison.only_after[0].name, "c");
  EXPECT_EQ(comparison.only_after[1].sequence, 3u);
  EXPECT_EQ(comparison.only_after[2].name, "d");
  EXPECT_DOUBLE_EQ(*comparison.totals.all.before_ns, 265);
  EXPECT_DOUBLE_EQ(*comparison.totals.all.after_ns, 266);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.before_ns, 210);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.after_ns, 190);
  EXPECT_EQ(comparison.totals.before_launches, 4u);
  EXPECT_EQ(comparison.totals.after_launches, 5u);
}

TEST(Compare, ChangesWithinTheSpreadOfRepeatedLaunchesAreNoise) {
  // BEFORE's launches of k range 100..120: AFTER's 115 (+15 %) and 105 lie inside that range.
  const auto before = run_of({launch("k", 10, 100), launch("k", 10, 120)});
  const auto noisy = compare_runs(before, run_of({launch("k", 10, 115), launch("k", 10, 105)}), {"b", "a", 0.05});
  ASSERT_EQ(noisy.matched.size(), 2u);
  EXPECT_TRUE(noisy.matched[0].within_noise);
  EXPECT_TRUE(noisy.matched[1].within_noise);
  EXPECT_FALSE(noisy.matched[0].slower_than_limit) << "noise does not fail the gate";
  EXPECT_FALSE(noisy.failed());
  EXPECT_EQ(noisy.matched[0].before_launches.timed_launches, 2u);
  EXPECT_DOUBLE_EQ(*noisy.matched[0].after_launches.min_ns, 105);
  EXPECT_DOUBLE_EQ(*noisy.matched[0].after_launches.max_ns, 115);

  // AFTER's launches (120..125) all lie above BEFORE's (100..102): a real slowdown.
  const auto tight = run_of({launch("k", 10, 100), launch("k", 10, 102)});
  const auto slower = compare_runs(tight, run_of({launch("k", 10, 120), launch("k", 10, 125)}), {"b", "a", 0.05});
  EXPECT_FALSE(slower.matched[0].within_noise);
  EXPECT_FALSE(slower.matched[1].within_noise);
  EXPECT_EQ(slower.slower_kernel_count(), 2u);
  EXPECT_TRUE(slower.failed());

  // The other side's spread counts too: BEFORE's 110 lies within AFTER's 100..130.
  const auto widened = compare_runs(run_of({launch("k", 10, 110), launch("k", 10, 110)}),
                                    run_of({launch("k", 10, 130), launch("k", 10, 100)}), {"b", "a", 0.05});
  EXPECT_TRUE(widened.matched[0].within_noise);
}

TEST(Compare, ASingleLaunchIsNeverNoise) {
  const auto comparison = compare_runs(run_of({launch("k", 10, 100)}), run_of({launch("k", 10, 101)}));
  ASSERT_EQ(comparison.matched.size(), 1u);
  EXPECT_FALSE(comparison.matched[0].within_noise);
}

TEST(Compare, GateFailsOnSlowKernelsOrTotalAndPassesOtherwise) {
  const auto before = run_of({launch("a", 10, 1000), launch("b", 10, 1000)});
  // a 25 % slower: fails at 10 %, passes at 30 %; without a limit nothing fails.
  const auto a_slower = run_of({launch("a", 10, 1250), launch("b", 10, 1000)});
  EXPECT_TRUE(compare_runs(before, a_slower, {"b", "a", 0.10}).failed());
  EXPECT_FALSE(compare_runs(before, a_slower, {"b", "a", 0.30}).failed());
  EXPECT_FALSE(compare_runs(before, a_slower, {}).failed());
  // A speed-up passes.
  EXPECT_FALSE(compare_runs(a_slower, before, {"b", "a", 0.10}).failed());
  // No matched kernel is slower, but a new kernel makes the total 20 % slower.
  const auto with_new_kernel = run_of({launch("a", 10, 1000), launch("b", 10, 1000), launch("c", 10, 400)});
  const auto comparison = compare_runs(before, with_new_kernel, {"b", "a", 0.10});
  EXPECT_EQ(comparison.slower_kernel_count(), 0u);
  EXPECT_TRUE(comparison.totals.slower_than_limit);
  EXPECT_TRUE(comparison.failed());
  // Exactly at the limit is not "more than" the limit.
  const auto exactly = run_of({launch("a", 10, 1100), launch("b", 10, 1000)});
  EXPECT_FALSE(compare_runs(before, exactly, {"b", "a", 0.10 + 1e-12}).failed());
}

TEST(Compare, UntimedLaunchesAreMatchedButNeverFail) {
  const auto comparison = compare_runs(run_of({launch("a", 10, std::nullopt)}), run_of({launch("a", 10, 100)}),
                                       {"b", "a", 0.0});
  ASSERT_EQ(comparison.matched.size(), 1u);
  EXPECT_FALSE(comparison.matched[0].time.change.has_value());
  EXPECT_FALSE(comparison.failed());
}

TEST(Compare, PlantedSlowdownOfTheProbeFailsAndItsReverseIsASpeedUp) {
  const auto slower = compare_files(kProbe, kProbeSlower, 0.10);
  ASSERT_EQ(slower.matched.size(), 7u);
  EXPECT_TRUE(slower.only_before.empty());
  EXPECT_TRUE(slower.only_after.empty());
  for (const auto& k : slower.matched) {
    const bool planted = k.before.name.rfind("local_array_2k", 0) == 0;
    EXPECT_NEAR(*k.time.change, planted ? 0.25 : 0.0, 1e-9) << k.before.name;
    EXPECT_EQ(k.slower_than_limit, planted) << k.before.name;
    EXPECT_EQ(k.verdict_changed, planted) << k.before.name;
    if (planted) {
      // Same work in 25 % more time: L2 at 68 % / 1.25 = 54 %, below the 60 % latency line.
      EXPECT_EQ(k.before.verdict, Verdict::bandwidth);
      EXPECT_EQ(k.after.verdict, Verdict::latency);
      EXPECT_NEAR(*k.after.utilization.l2, *k.before.utilization.l2 / 1.25, 0.005);
      EXPECT_DOUBLE_EQ(*k.after.lmem.l2_share, *k.before.lmem.l2_share);  // the same traffic
    }
  }
  EXPECT_TRUE(slower.failed());
  EXPECT_FALSE(slower.totals.slower_than_limit);  // +5.9 % in total

  const auto faster = compare_files(kProbeSlower, kProbe, 0.10);
  EXPECT_FALSE(faster.failed());
  const auto& speed_up = faster.matched[5];
  EXPECT_EQ(speed_up.before.name.substr(0, 14), "local_array_2k");
  EXPECT_NEAR(*speed_up.time.change, -0.2, 1e-9);
  EXPECT_EQ(speed_up.before.verdict, Verdict::latency);
  EXPECT_EQ(speed_up.after.verdict, Verdict::bandwidth);
}

TEST(Compare, RepeatedLaunchesInTheSyntheticPair) {
  // synthetic_after_raw.csv: copy_kernel at 1.51, 1.55 and 1.6 us (was 1.52, 1.5 us), and the
  // 3-D kernel relaunched with grid (32,8,3) instead of (16,8,3).
  const auto comparison = compare_files("ncu/synthetic_raw.csv", "compare/synthetic_after_raw.csv", 0.02);
  ASSERT_EQ(comparison.matched.size(), 2u);
  EXPECT_TRUE(comparison.matched[0].within_noise);  // 1.51 lies within 1.50..1.52
  EXPECT_FALSE(comparison.matched[1].within_noise);  // 1.50 -> 1.55 lies outside both spreads
  EXPECT_NEAR(*comparison.matched[1].time.change, 0.05 / 1.5, 1e-9);
  EXPECT_TRUE(comparison.matched[1].slower_than_limit);
  ASSERT_EQ(comparison.only_before.size(), 1u);
  ASSERT_EQ(comparison.only_after.size(), 2u);
  EXPECT_EQ(comparison.only_after[0].grid, (Dim3{32, 8, 3}));
  EXPECT_EQ(comparison.only_after[1].sequence, 3u);
  EXPECT_LT(*comparison.totals.all.change, 0);  // the 3-D kernel got faster: the total did too
}

TEST(Compare, JsonHasTheDocumentedShape) {
  const auto json = comparison_json(compare_files(kProbe, kProbeSlower, 0.10));
  EXPECT_EQ(json["schema_version"], kComparisonSchemaVersion);
  EXPECT_EQ(json["kind"], "limiter-compare");
  EXPECT_EQ(json["gate"]["failed"], true);
  EXPECT_EQ(json["gate"]["slower_before_sequences"], nlohmann::ordered_json({5}));
  ASSERT_EQ(json["matched"].size(), 7u);
  const auto& planted = json["matched"][5];
  EXPECT_EQ(planted["verdict"]["before"], "bandwidth");
  EXPECT_EQ(planted["verdict"]["after"], "latency");
  EXPECT_EQ(planted["verdict"]["changed"], true);
  EXPECT_NEAR(planted["time"]["change"].get<double>(), 0.25, 1e-9);
  for (const char* key : {"issue", "l2", "dram", "compute", "memory"}) EXPECT_TRUE(planted["utilization"].contains(key));
  EXPECT_TRUE(planted["lmem"]["l2_share"].contains("before"));
  EXPECT_TRUE(json["only_before"].empty());
  EXPECT_TRUE(comparison_json(compare_files(kProbe, kProbe))["gate"].is_null());
}

TEST(Compare, CsvHasOneRowPerKernelAndATotal) {
  const std::string csv = rendered(compare_files("ncu/synthetic_raw.csv", "compare/synthetic_after_raw.csv"), ReportFormat::csv);
  std::istringstream lines(csv);
  std::string line;
  std::vector<std::string> statuses;
  while (std::getline(lines, line)) {
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(line.back(), '\r') << "CRLF rows";
    statuses.push_back(line.substr(0, line.find(',')));
  }
  EXPECT_EQ(statuses, (std::vector<std::string>{"status", "matched", "matched", "only_before", "only_after",
                                                "only_after", "total"}));
}

TEST(Compare, GoldenText) {
  expect_golden("h200_probe_compare.txt", rendered(compare_files(kProbe, kProbeSlower, 0.10), ReportFormat::text));
}
TEST(Compare, GoldenMarkdown) {
  expect_golden("h200_probe_compare.md", rendered(compare_files(kProbe, kProbeSlower, 0.10), ReportFormat::md));
}
TEST(Compare, GoldenCsv) {
  expect_golden("h200_probe_compare.csv", rendered(compare_files(kProbe, kProbeSlower, 0.10), ReportFormat::csv));
}
TEST(Compare, GoldenJson) {
  expect_golden("h200_probe_compare.json", rendered(compare_files(kProbe, kProbeSlower, 0.10), ReportFormat::json));
}
TEST(Compare, GoldenHtml) {
  expect_golden("h200_probe_compare.html", rendered(compare_files(kProbe, kProbeSlower, 0.10), ReportFormat::html));
}
TEST(Compare, GoldenSpeedUpMarkdown) {
  expect_golden("h200_probe_compare_speedup.md", rendered(compare_files(kProbeSlower, kProbe, 0.10), ReportFormat::md));
}
TEST(Compare, GoldenRepeatedLaunchesText) {
  expect_golden("synthetic_compare.txt",
                rendered(compare_files("ncu/synthetic_raw.csv", "compare/synthetic_after_raw.csv", 0.02), ReportFormat::text));
}

}  // namespace
}  // namespace limiter
