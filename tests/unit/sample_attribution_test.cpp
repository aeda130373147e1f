// PM-sampling mode, host side: samples attributed to kernels by time, the sampled record's
// JSON, and the analysis that gives a verdict only where enough samples support it.
#include <gtest/gtest.h>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/sampling.hpp"

namespace limiter {
namespace {

KernelSpan span(const std::string& name, std::uint64_t start, std::uint64_t end) {
  KernelSpan s;
  s.start_ns = start;
  s.end_ns = end;
  s.launch.name = s.launch.mangled_name = name;
  s.launch.grid = {132, 1, 1};
  s.launch.block = {256, 1, 1};
  return s;
}

// Metrics: an activity counter and a clock-like one.
const std::vector<std::string> kMetrics = {"smsp__inst_issued.sum", "sm__cycles_elapsed.avg"};

// The activity counters come from the least-squares fit over all samples (two samples, two
// kernels: exact here, up to the ridge), the clock-like ones are split by wall time.
TEST(SampleAttribution, FitsActivityAcrossSamplesAndSplitsClocksByWallTime) {
  SampleAttributor a(kMetrics, 100);
  // Sample 0..100: A runs 0..50 (idle after); sample 100..200: A 100..130, B 130..190.
  a.add_kernel(span("A", 0, 50));
  a.add_kernel(span("A", 100, 130));
  a.add_kernel(span("B", 130, 190));
  a.add_sample({0, 100, {1000, 200}});
  a.add_sample({100, 200, {900, 200}});
  const auto k = a.aggregates();
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "A");
  // A: 1000 in 50 ns is 20 per ns, so in sample 1 A made 600 and B 300. A busy-time split
  // would have given A 1000 + 900 x 30/90 = 1300.
  EXPECT_NEAR(*k[0].counter("smsp__inst_issued.sum"), 80 * 20.0, 1e-5);
  EXPECT_DOUBLE_EQ(*k[0].counter("sm__cycles_elapsed.avg"), 200 * 0.5 + 200 * 0.3);
  EXPECT_DOUBLE_EQ(*k[0].counter("gpu__time_duration.sum"), 80);
  EXPECT_EQ(k[0].sampled->launches, 2u);
  EXPECT_EQ(k[0].sampled->samples, 2u);
  EXPECT_DOUBLE_EQ(k[0].sampled->purity, (50 * 1.0 + 30 * (30.0 / 90.0)) / 80.0);
  EXPECT_NEAR(*k[1].counter("smsp__inst_issued.sum"), 300, 1e-5);
  EXPECT_EQ(a.info().samples, 2u);
}

// A snapshot while the app runs (the injection's partial file) holds what advance() attributed
// and leaves later samples pending: the final aggregates still count them once.
TEST(SampleAttribution, SnapshotLeavesPendingSamplesPending) {
  SampleAttributor a(kMetrics, 100);
  a.add_kernel(span("A", 0, 100));
  a.add_kernel(span("A", 100, 200));
  a.add_sample({0, 100, {1000, 200}});
  a.add_sample({100, 200, {500, 200}});
  a.advance(100);
  const auto snapshot = a.attributed_so_far();
  ASSERT_EQ(snapshot.size(), 1u);
  EXPECT_EQ(snapshot[0].sampled->samples, 1u);
  EXPECT_EQ(a.pending_samples(), 1u);
  const auto final_aggregates = a.aggregates();
  EXPECT_EQ(final_aggregates[0].sampled->samples, 2u);
  EXPECT_NEAR(*final_aggregates[0].counter("smsp__inst_issued.sum"), 1500, 1e-5);
}

TEST(SampleAttribution, MarksConcurrentKernelsAndScalesToTheirWholeTime) {
  SampleAttributor a(kMetrics, 100);
  a.add_kernel(span("A", 0, 100));
  a.add_kernel(span("B", 50, 100));
  a.add_kernel(span("A", 1000, 1100));  // no sample covers it: counters are scaled to it
  a.add_sample({0, 100, {1500, 200}});
  const auto k = a.aggregates();
  ASSERT_EQ(k.size(), 2u);
  EXPECT_DOUBLE_EQ(k[0].sampled->overlap_share, 0.5);
  EXPECT_DOUBLE_EQ(k[1].sampled->overlap_share, 1.0);
  EXPECT_DOUBLE_EQ(k[0].sampled->kernel_time_ns, 200);
  EXPECT_DOUBLE_EQ(*k[0].counter("smsp__inst_issued.sum"), 1500 * (100.0 / 150.0) * 2.0);
  EXPECT_DOUBLE_EQ(*k[0].counter("gpu__time_duration.sum"), 200);
}

TEST(SampleAttribution, StreamsWithBoundedMemory) {
  SampleAttributor a(kMetrics, 100);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    a.add_kernel(span("A", i * 100 + 10, i * 100 + 60));
    a.add_sample({i * 100, i * 100 + 100, {10, 200}});
    if (i % 10 == 9) a.advance(i * 100 + 100);
  }
  EXPECT_LE(a.pending_kernels(), 1u);
  EXPECT_EQ(a.pending_samples(), 0u);
  const auto k = a.aggregates();
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].sampled->samples, 1000u);
  EXPECT_NEAR(*k[0].counter("smsp__inst_issued.sum"), 10000, 1e-4);
}

RunRecord sampled_run(std::uint64_t samples, double purity) {
  RunRecord run;
  run.device.name = "NVIDIA H100 80GB HBM3";
  run.device.arch = "sm_90";
  run.device.chip = "GH100";
  run.device.sm_count = 132;
  run.sampling = SamplingInfo{};
  run.sampling->interval_ns = 50000;
  run.sampling->samples = samples;
  run.sampling->metrics = kMetrics;
  KernelLaunch k;
  k.name = "busy";
  k.grid = {264, 1, 1};
  k.block = {256, 1, 1};
  k.registers_per_thread = 32;
  // 90 % of the issue slots: 4 schedulers x 132 SMs per cycle.
  k.counters = {
      {"smsp__inst_issued.sum", 0.9 * 4 * 132 * 1e6}, {"sm__cycles_elapsed.avg", 1e6}, {"gpu__time_duration.sum", 5e5}};
  k.sampled = SampleSupport{10, 5e5, samples, purity, 0.0, std::nullopt, {}, 0, {}};
  run.launches.push_back(k);
  return run;
}

TEST(SampledAnalysis, GivesAVerdictOnlyWithEnoughSamples) {
  const auto enough = analyze_run(sampled_run(200, 0.9));
  ASSERT_TRUE(enough.kernels[0].verdict);
  EXPECT_EQ(*enough.kernels[0].verdict, Verdict::instruction);
  EXPECT_NE(enough.kernels[0].verdict_reason.find("sampled: 200 samples"), std::string::npos);

  const auto few = analyze_run(sampled_run(5, 0.9));
  EXPECT_FALSE(few.kernels[0].verdict);
  EXPECT_TRUE(few.kernels[0].too_few_samples);
  EXPECT_NE(few.kernels[0].verdict_reason.find("fewer than 20 samples"), std::string::npos);

  const auto mixed = analyze_run(sampled_run(200, 0.2));
  EXPECT_FALSE(mixed.kernels[0].verdict);
  EXPECT_NE(mixed.kernels[0].verdict_reason.find("other kernels' work"), std::string::npos);
}

// With the fit's standard errors the gate is the verdict's robustness: 90 % of the issue slots
// stays instruction-limited within two errors and 10 %; 82 % could fall below 80 % and lose to
// an L2 at 75 %, so no verdict, and the reason names both.
TEST(SampledAnalysis, JudgesOnlyWhereTheVerdictHoldsWithinTheFitsErrors) {
  RunRecord clear = sampled_run(200, 0.2);  // purity no longer matters once errors are known
  clear.launches[0].sampled->standard_errors = {{"smsp__inst_issued.sum", 0.002 * 4 * 132 * 1e6}};
  const auto judged = analyze_run(clear);
  ASSERT_TRUE(judged.kernels[0].verdict) << judged.kernels[0].verdict_reason;
  EXPECT_EQ(*judged.kernels[0].verdict, Verdict::instruction);

  RunRecord close = clear;
  auto& k = close.launches[0];
  k.counters["smsp__inst_issued.sum"] = 0.82 * 4 * 132 * 1e6;
  k.counters["lts__t_sectors.avg.pct_of_peak_sustained_elapsed"] = 75.0;
  k.sampled->standard_errors["lts__t_sectors.avg.pct_of_peak_sustained_elapsed"] = 0.5;
  const auto unsure = analyze_run(close);
  EXPECT_FALSE(unsure.kernels[0].verdict);
  EXPECT_NE(unsure.kernels[0].verdict_reason.find("could be instruction or bandwidth"), std::string::npos)
      << unsure.kernels[0].verdict_reason;
}

TEST(SampledRecord, RoundTripsAsSchemaTwoAndExactRecordsStayOne) {
  const RunRecord run = sampled_run(200, 0.9);
  const auto json = to_json(run);
  EXPECT_EQ(json["schema_version"], 2);
  EXPECT_EQ(json["sampling"]["interval_ns"], 50000);
  EXPECT_EQ(json["launches"][0]["sampled"]["samples"], 200);
  RunRecord back = run_from_json(nlohmann::json::parse(json.dump()));
  EXPECT_EQ(back.sampling, run.sampling);
  EXPECT_EQ(back.launches[0].sampled, run.launches[0].sampled);
  RunRecord exact = run;
  exact.sampling.reset();
  exact.launches[0].sampled.reset();
  const auto exact_json = to_json(exact);
  EXPECT_EQ(exact_json["schema_version"], 1);
  EXPECT_FALSE(exact_json.contains("sampling"));
}

}  // namespace
}  // namespace limiter
