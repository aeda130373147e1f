// limiter compare: matching, time changes, noise, the --fail-if-slower gate, and golden files
// of every format for the H200 probe against a copy in which local_array_2k takes 25 % longer
// for the same work (tests/data/compare/scale_ncu_raw.py). Regenerate the goldens with
//   LIMITER_UPDATE_GOLDEN=1 build/tests/limiter_unit_tests --gtest_filter='Compare*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
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

// --launches: a row per launch.
const CompareOptions kLaunchRows{"before", "after", std::nullopt, true};

TEST(Compare, GroupsByKernelAndConfigurationByDefault) {
  const auto before = run_of({launch("a", 10, 100), launch("b", 10, 50), launch("a", 10, 110), launch("c", 10, 5)});
  const auto after = run_of({launch("a", 10, 90), launch("c", 20, 5), launch("a", 10, 100), launch("a", 10, 70),
                             launch("d", 10, 1)});
  const auto comparison = compare_runs(before, after);
  EXPECT_FALSE(comparison.launch_rows);
  ASSERT_EQ(comparison.matched.size(), 1u);  // a, with its mean per launch on each side
  EXPECT_EQ(comparison.matched[0].before.name, "a");
  EXPECT_EQ(comparison.before_counts[comparison.matched[0].group], 2u);
  EXPECT_EQ(comparison.after_counts[comparison.matched[0].group], 3u);
  EXPECT_DOUBLE_EQ(*comparison.matched[0].time.before_ns, 105);
  EXPECT_DOUBLE_EQ(*comparison.matched[0].time.after_ns, 260.0 / 3);
  // b and c (another grid) before, c and d after: one entry per kernel and configuration.
  ASSERT_EQ(comparison.only_before.size(), 2u);
  EXPECT_EQ(comparison.only_before[0].first.name, "b");
  ASSERT_EQ(comparison.only_after.size(), 2u);
  EXPECT_EQ(comparison.only_after[1].first.name, "d");
  // The matched total: BEFORE's launches of a, and AFTER's mean at BEFORE's count.
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.before_ns, 210);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.after_ns, 2 * 260.0 / 3);
}

TEST(Compare, LaunchRowsMatchByNameConfigurationAndOrderAmongEquals) {
  const auto before = run_of({launch("a", 10, 100), launch("b", 10, 50), launch("a", 10, 110), launch("c", 10, 5)});
  const auto after = run_of({launch("a", 10, 90), launch("c", 20, 5), launch("a", 10, 100), launch("a", 10, 70),
                             launch("d", 10, 1)});
  const auto comparison = compare_runs(before, after, kLaunchRows);
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
  EXPECT_EQ(comparison.only_before[0].first.name, "b");
  EXPECT_EQ(comparison.only_before[1].first.name, "c");
  ASSERT_EQ(comparison.only_after.size(), 3u);
  EXPECT_EQ(comparison.only_after[0].first.name, "c");
  EXPECT_EQ(comparison.only_after[1].first.sequence, 3u);
  EXPECT_EQ(comparison.only_after[2].first.name, "d");
  EXPECT_DOUBLE_EQ(*comparison.totals.all.before_ns, 265);
  EXPECT_DOUBLE_EQ(*comparison.totals.all.after_ns, 266);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.before_ns, 210);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.after_ns, 190);
  EXPECT_EQ(comparison.totals.before_launches, 4u);
  EXPECT_EQ(comparison.totals.after_launches, 5u);
}

TEST(Compare, ChangesWithinTheSpreadOfRepeatedLaunchesAreNoise) {
  // BEFORE's launches of k range 100..120, AFTER's 115 (+15 %) and 105: the same mean. Launch
  // rows carry their kernel's noise.
  const auto before = run_of({launch("k", 10, 100), launch("k", 10, 120)});
  const auto noisy = compare_runs(before, run_of({launch("k", 10, 115), launch("k", 10, 105)}),
                                  {"b", "a", 0.05, true});
  ASSERT_EQ(noisy.matched.size(), 2u);
  EXPECT_TRUE(noisy.matched[0].within_noise);
  EXPECT_TRUE(noisy.matched[1].within_noise);
  EXPECT_FALSE(noisy.matched[0].slower_than_limit) << "the launch is +15 %, its kernel is not slower";
  EXPECT_FALSE(noisy.matched[0].slower_than_limit) << "noise does not fail the gate";
  EXPECT_FALSE(noisy.failed());
  EXPECT_EQ(noisy.before_launches(noisy.matched[0]).timed_launches, 2u);
  EXPECT_DOUBLE_EQ(*noisy.after_launches(noisy.matched[0]).min_ns, 105);
  EXPECT_DOUBLE_EQ(*noisy.after_launches(noisy.matched[0]).max_ns, 115);

  // AFTER's launches (120..125) all lie above BEFORE's (100..102): a real slowdown.
  const auto tight = run_of({launch("k", 10, 100), launch("k", 10, 102)});
  const auto slower = compare_runs(tight, run_of({launch("k", 10, 120), launch("k", 10, 125)}), {"b", "a", 0.05});
  ASSERT_EQ(slower.matched.size(), 1u);
  EXPECT_FALSE(slower.matched[0].within_noise);
  EXPECT_EQ(slower.slower_kernel_count(), 1u) << "the gate counts kernels, not launches";
  EXPECT_TRUE(slower.failed());

  // The other side's spread counts too: means 110 and 115, AFTER's launches 100..130.
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
  // copy_kernel's mean 1.51 -> 1.553 us is within 2 standard errors of launches that vary by 0.1 us.
  const auto comparison = compare_files("ncu/synthetic_raw.csv", "compare/synthetic_after_raw.csv", 0.02);
  ASSERT_EQ(comparison.matched.size(), 1u);
  EXPECT_TRUE(comparison.matched[0].within_noise);
  EXPECT_NEAR(*comparison.matched[0].time.change, (4.66 / 3) / 1.51 - 1, 1e-9);
  EXPECT_FALSE(comparison.failed());
  ASSERT_EQ(comparison.only_before.size(), 1u);
  ASSERT_EQ(comparison.only_after.size(), 1u);
  EXPECT_EQ(comparison.only_after[0].first.grid, (Dim3{32, 8, 3}));
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
  EXPECT_EQ(statuses, (std::vector<std::string>{"status", "matched", "only_before", "only_after", "total"}));
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


// ---- scale and selection (issue 30) ----

// The matching as it was (quadratic): the occurrence-th launch of a kernel and configuration.
std::vector<std::pair<std::uint64_t, std::uint64_t>> matched_the_old_way(const RunAnalysis& before, const RunAnalysis& after) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (std::size_t i = 0; i < before.kernels.size(); ++i) {
    std::size_t occurrence = 0, seen = 0;
    for (std::size_t j = 0; j < i; ++j) occurrence += same_kernel_and_configuration(before.kernels[j], before.kernels[i]);
    for (const auto& k : after.kernels)
      if (same_kernel_and_configuration(k, before.kernels[i]) && seen++ == occurrence) pairs.emplace_back(i, k.sequence);
  }
  return pairs;
}

TEST(Compare, HashedMatchingAgreesWithTheQuadraticOne) {
  std::mt19937 random(30);  // 32-bit draws
  for (int round = 0; round < 20; ++round) {
    const auto random_run = [&](std::size_t launches) {
      std::vector<KernelAnalysis> kernels;
      for (std::size_t i = 0; i < launches; ++i)
        kernels.push_back(launch(std::string(1, static_cast<char>('a' + random() % 4)), static_cast<std::uint32_t>(1 + random() % 3),
                                 random() % 5 ? std::optional<double>(static_cast<double>(100 + random() % 50)) : std::nullopt));
      return run_of(std::move(kernels));
    };
    const auto before = random_run(200 + random() % 100), after = random_run(200 + random() % 100);
    const auto comparison = compare_runs(before, after, kLaunchRows);
    const auto expected = matched_the_old_way(before, after);
    ASSERT_EQ(comparison.matched.size(), expected.size());
    for (std::size_t m = 0; m < expected.size(); ++m) {
      const auto& k = comparison.matched[m];
      EXPECT_EQ(k.before.sequence, expected[m].first);
      EXPECT_EQ(k.after.sequence, expected[m].second);
      DurationStats spread;  // every launch like it in BEFORE, as the noise test sees them
      for (const auto& other : before.kernels)
        if (other.name == k.before.name && other.grid == k.before.grid) spread.add(other.duration_ns);
      EXPECT_EQ(comparison.before_launches(k).timed_launches, spread.timed_launches);
      EXPECT_EQ(comparison.before_launches(k).min_ns, spread.min_ns);
    }
    EXPECT_EQ(comparison.only_before.size() + expected.size(), before.kernels.size());
    EXPECT_EQ(comparison.only_after.size() + expected.size(), after.kernels.size());
    EXPECT_FALSE(comparison.per_launch);
  }
}

TEST(Compare, HundredThousandLaunchesMatchInOrder) {
  std::vector<KernelAnalysis> kernels;
  for (std::size_t i = 0; i < 100'000; ++i) kernels.push_back(launch("k" + std::to_string(i % 7), 10, static_cast<double>(100 + i % 13)));
  RunAnalysis before = run_of(kernels);
  kernels.push_back(launch("k0", 10, 1));
  const auto comparison = compare_runs(before, run_of(std::move(kernels)), kLaunchRows);
  ASSERT_EQ(comparison.matched.size(), 100'000u);
  EXPECT_EQ(comparison.matched[99'999].occurrence, 99'999u / 7);
  EXPECT_EQ(comparison.matched[99'999].after.sequence, 99'999u);
  ASSERT_EQ(comparison.only_after.size(), 1u);
  EXPECT_EQ(comparison.only_after[0].first.sequence, 100'000u);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.change, 0.0);
}

// A program of 6 launches of a (100 ns) and 2 of b (1000 ns), recorded whole and with a budget of
// 3 per kernel: the budget keeps a's first 3 and both b's.
RunAnalysis every_launch_run() {
  auto run = run_of({launch("a", 1, 100), launch("a", 1, 100), launch("b", 1, 1000), launch("a", 1, 100),
                     launch("a", 1, 100), launch("b", 1, 1000), launch("a", 1, 100), launch("a", 1, 100)});
  run.launches_seen = 8;
  return run;
}
RunAnalysis budget_run(double a_ns) {
  auto run = run_of({launch("a", 1, a_ns), launch("a", 1, a_ns), launch("b", 1, 1000), launch("a", 1, a_ns),
                     launch("b", 1, 1000)});
  run.launches_seen = 8;
  run.kernels_seen = {{"a", {1, 1, 1}, {256, 1, 1}, 6}, {"b", {1, 1, 1}, {256, 1, 1}, 2}};
  return run;
}

TEST(Compare, EveryLaunchAgainstABudgetIsComparedPerLaunch) {
  const auto comparison = compare_runs(every_launch_run(), budget_run(100), {"b", "a", 0.05});
  EXPECT_TRUE(comparison.per_launch);
  EXPECT_EQ(comparison.before_selection.description, "profiled every launch (8)");
  EXPECT_EQ(comparison.after_selection.description, "profiled 3 per kernel and configuration (5 of 8 seen)");
  EXPECT_EQ(comparison.selection_warning, "before profiled every launch (8); after profiled 3 per kernel and configuration "
                                          "(5 of 8 seen): totals are not comparable, compared per launch");
  // Totals would read 2.6 us -> 2.3 us; per launch, with the budget's kernels weighted by the
  // launches seen of them, nothing changed.
  EXPECT_DOUBLE_EQ(*comparison.totals.all.before_ns, 325);
  EXPECT_DOUBLE_EQ(*comparison.totals.all.after_ns, 325);
  EXPECT_FALSE(comparison.failed());
  ASSERT_EQ(comparison.matched.size(), 2u);  // a kernel and configuration each
  EXPECT_EQ(comparison.before_launches(comparison.matched[0]).timed_launches, 6u);
  EXPECT_EQ(comparison.after_launches(comparison.matched[0]).timed_launches, 3u);
  EXPECT_TRUE(comparison.only_before.empty());
  // a 20 % slower per launch fails the gate, and the mean per launch with it: (6 x 120 + 2 x 1000) / 8.
  const auto slower = compare_runs(every_launch_run(), budget_run(120), {"b", "a", 0.04});
  EXPECT_NEAR(*slower.matched[0].time.change, 0.2, 1e-12);
  EXPECT_TRUE(slower.matched[0].slower_than_limit);
  EXPECT_NEAR(*slower.totals.all.change, 340.0 / 325 - 1, 1e-12);
  EXPECT_TRUE(slower.totals.slower_than_limit);
}

TEST(Compare, SampledAggregatesCountAsTheirLaunches) {
  auto sampled = run_of({launch("a", 1, 660), launch("b", 1, 2200)});
  sampled.kernels[0].sampled.emplace().launches = 6;
  sampled.kernels[1].sampled.emplace().launches = 2;
  sampled.launches_seen = 8;
  const auto comparison = compare_runs(every_launch_run(), sampled);
  EXPECT_TRUE(comparison.per_launch);
  EXPECT_EQ(comparison.after_selection.description, "sampled 8 launches (PM sampling: 2 kernel aggregates)");
  ASSERT_EQ(comparison.matched.size(), 2u);
  EXPECT_NEAR(*comparison.matched[0].time.change, 0.1, 1e-12);  // 660 ns over 6 launches: 110 per launch
  EXPECT_NEAR(*comparison.totals.all.after_ns, (660.0 + 2200.0) / 8, 1e-9);
  // Two sampled runs select alike: their aggregates are matched in order.
  EXPECT_FALSE(compare_runs(sampled, sampled).per_launch);
}

TEST(Compare, SelectionsAlikeOrNot) {
  const auto selection_of = [](std::uint64_t profiled, std::optional<std::uint64_t> seen) {
    std::vector<KernelAnalysis> kernels(profiled, launch("k", 1, 100));
    auto run = run_of(std::move(kernels));
    run.launches_seen = seen;
    return launch_selection(compared_run(run));
  };
  EXPECT_EQ(selection_of(3, std::nullopt).description, "profiled 3 launches");  // an import: as if every launch
  EXPECT_EQ(selection_of(3, 3).kind, LaunchSelection::Kind::every);
  EXPECT_EQ(selection_of(100, 10'000).description, "profiled 100 of 10,000 launches seen");
  EXPECT_TRUE(same_selection(selection_of(3, std::nullopt), selection_of(5, 5)));
  // -c 100 and -c 1000: other selections; a capture range whose program changed a little: alike.
  EXPECT_FALSE(same_selection(selection_of(100, 10'000), selection_of(1000, 10'000)));
  EXPECT_TRUE(same_selection(selection_of(370, 5906), selection_of(360, 5800)));
  EXPECT_FALSE(same_selection(selection_of(100, 10'000), selection_of(5, 5)));
}

TEST(Compare, EveryFormatWarnsWhenTheSelectionsDiffer) {
  const auto comparison = compare_runs(every_launch_run(), budget_run(100));
  const std::string warning = "before profiled every launch (8); after profiled 3 per kernel and configuration (5 of 8 seen)";
  EXPECT_NE(rendered(comparison, ReportFormat::text).find("WARNING: " + warning), std::string::npos);
  EXPECT_NE(rendered(comparison, ReportFormat::text).find("\nmean per launch: 325 ns -> 325 ns"), std::string::npos);
  EXPECT_NE(rendered(comparison, ReportFormat::md).find("> **Warning:** " + warning), std::string::npos);
  EXPECT_NE(rendered(comparison, ReportFormat::html).find("<p class=\"warning\">Warning: " + warning), std::string::npos);
  EXPECT_NE(rendered(comparison, ReportFormat::csv).find("\ntotal_per_launch,\"" + warning), std::string::npos);
  const auto json = comparison_json(comparison);
  EXPECT_EQ(json["selection"]["compared"], "per launch");
  EXPECT_EQ(json["selection"]["after"], "profiled 3 per kernel and configuration (5 of 8 seen)");
  EXPECT_DOUBLE_EQ(json["total"]["after_ns"].get<double>(), 325);
  // The same selection: none of it.
  const auto alike = compare_runs(every_launch_run(), every_launch_run());
  EXPECT_EQ(rendered(alike, ReportFormat::text).find("WARNING"), std::string::npos);
  EXPECT_FALSE(comparison_json(alike).contains("selection"));
}

TEST(Compare, ComparedLaunchesKeepTheFiguresReportsShow) {
  const auto analysis = analysis_of(kProbe);
  const auto run = compared_run(analysis);
  ASSERT_EQ(run.launches.size(), analysis.kernels.size());
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    const auto& k = analysis.kernels[i];
    const auto& c = run.launches[i];
    EXPECT_EQ(c.name, k.name);
    EXPECT_EQ(c.utilization.compute, k.utilization.compute());
    EXPECT_EQ(c.utilization.memory, k.utilization.memory());
    EXPECT_EQ(c.limiting_unit, k.limiting_unit);
    EXPECT_EQ(c.lmem.l2_share, k.lmem.l2_share);
  }
  const auto repeated = compared_run(run_of({launch("a", 1, 1), launch("a", 1, 2)}));
  EXPECT_EQ(repeated.launches[0].name.data(), repeated.launches[1].name.data()) << "a name is kept once";
}

}  // namespace
}  // namespace limiter
