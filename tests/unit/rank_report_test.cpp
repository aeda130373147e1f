// Reports of a job's ranks: records lined up by rank, per kernel the time of each rank, the
// spread and the slowest rank; and the goldens of a two-rank torchrun job recorded on an H100
// (tests/data/ranks/). After an intended change, regenerate with
//   LIMITER_UPDATE_GOLDEN=1 build/tests/limiter_unit_tests --gtest_filter='RankReport*'
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/rank_summary.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

namespace fs = std::filesystem;
using testing::expect_golden;
using testing::kData;

constexpr const char* kDuration = "gpu__time_duration.sum";

// The committed H200 probe recording (7 distinct kernels) as rank RANK of WORLD, its launches
// FACTOR times as long where the name holds SLOWER, and without the kernels named DROPPED.
std::string probe_as_rank(const fs::path& folder, int rank, int world, double factor = 1.0,
                          const std::string& slower = "", const std::string& dropped = "") {
  RunRecord run = read_run_file(kData + "/cupti/h200_probe_run.json");
  run.rank = RankInfo{rank, world, rank, "torchrun"};
  run.host = "node0";
  run.device.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(rank);
  for (auto& launch : run.launches)
    if (!slower.empty() && launch.name.find(slower) != std::string::npos) launch.counters[kDuration] *= factor;
  if (!dropped.empty())
    std::erase_if(run.launches, [&](const KernelLaunch& l) { return l.name.find(dropped) != std::string::npos; });
  const std::string path = (folder / ("rank" + std::to_string(rank) + ".json")).string();
  write_run_file(run, path);
  return path;
}

class RankReport : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("limiter_rank_report_" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

const RankKernel& kernel_named(const RankSummary& summary, const std::string& part) {
  const auto it = std::find_if(summary.kernels.begin(), summary.kernels.end(),
                               [&](const RankKernel& k) { return k.name.find(part) != std::string::npos; });
  if (it == summary.kernels.end()) throw std::runtime_error("no kernel " + part);
  return *it;
}

TEST_F(RankReport, SlowestRankAndSpreadPerKernel) {
  // Given in reverse: the ranks are put in rank order.
  const std::string rank1 = probe_as_rank(folder_, 1, 2, 1.5, "stream_copy", "spill_pressure");
  const std::string rank0 = probe_as_rank(folder_, 0, 2);
  const RankSummary summary = summarize_ranks({rank1, rank0}, {});
  ASSERT_EQ(summary.ranks.size(), 2u);
  EXPECT_EQ(summary.ranks[0].label, "0");
  EXPECT_EQ(summary.ranks[1].label, "1");
  EXPECT_EQ(summary.ranks[1].host, "node0");

  const RankKernel& copy = kernel_named(summary, "stream_copy");
  EXPECT_EQ(copy.ranks_with_kernel, 2u);
  EXPECT_EQ(summary.ranks[copy.slowest].label, "1");
  EXPECT_EQ(summary.ranks[copy.fastest].label, "0");
  ASSERT_TRUE(copy.spread);
  EXPECT_NEAR(*copy.spread, 0.5, 1e-12);
  EXPECT_NEAR(*copy.max_rank_ns, 1.5 * *copy.min_rank_ns, 1e-6);
  EXPECT_EQ(copy.launches, 2u);

  const RankKernel& spill = kernel_named(summary, "spill_pressure");  // rank 1 dropped it
  EXPECT_EQ(spill.ranks_with_kernel, 1u);
  EXPECT_FALSE(spill.spread);
  EXPECT_EQ(summary.ranks[spill.slowest].label, "0");

  // Rank 0 has the spill kernel (the longest of the probe): it spends more kernel time in all.
  EXPECT_EQ(summary.ranks[summary.slowest_rank].label, "0");
  double sum = 0;
  for (const auto& k : summary.kernels) sum += k.total_ns;
  EXPECT_NEAR(sum, summary.total_ns, 1e-6);
  EXPECT_TRUE(std::is_sorted(summary.kernels.begin(), summary.kernels.end(),
                             [](const RankKernel& a, const RankKernel& b) { return a.total_ns > b.total_ns; }));
  // Two distinct GPUs, a complete world: nothing to warn about.
  EXPECT_TRUE(summary.notes.empty()) << summary.notes.front();
}

TEST_F(RankReport, NotesSayWhatTheSetLacks) {
  const std::string rank0 = probe_as_rank(folder_, 0, 3);
  const std::string rank2 = probe_as_rank(folder_, 2, 3);
  const RankSummary summary = summarize_ranks({rank0, rank2}, {});
  ASSERT_FALSE(summary.notes.empty());
  EXPECT_EQ(summary.notes.front(), "rank 1 of 3 have no record here: figures over ranks leave them out");
}

TEST_F(RankReport, ALaunchersEmptyRecordIsLeftOut) {
  // torchrun's agent initialises CUDA (it counts the GPUs) and so writes a record of its own.
  const std::string agent = (folder_ / "limiter_521.json").string();
  RunRecord empty;
  empty.launches_seen = 0;
  write_run_file(empty, agent);
  const std::string rank0 = probe_as_rank(folder_, 0, 2);
  const std::string rank1 = probe_as_rank(folder_, 1, 2);
  const RankSummary summary = summarize_ranks({agent, rank0, rank1}, {});
  EXPECT_EQ(summary.ranks.size(), 2u);
  ASSERT_EQ(summary.notes.size(), 1u);
  EXPECT_EQ(summary.notes.front(),
            "'" + agent + "' names no rank and holds no launch (a launcher's own process): left out");
  // Alone, records without ranks are all kept, shown by file name.
  const RankSummary unranked = summarize_ranks({agent, kData + "/cupti/h200_probe_run.json"}, {});
  ASSERT_EQ(unranked.ranks.size(), 2u);
  EXPECT_TRUE(std::any_of(unranked.ranks.begin(), unranked.ranks.end(),
                          [](const RankRun& r) { return r.label == "limiter_521.json"; }));
}

TEST_F(RankReport, KernelRegexSelectsOnEveryRank) {
  const std::string rank0 = probe_as_rank(folder_, 0, 2);
  const std::string rank1 = probe_as_rank(folder_, 1, 2);
  SummaryOptions options;
  options.kernel_regex = "stream_copy";
  const RankSummary summary = summarize_ranks({rank0, rank1}, {}, options);
  ASSERT_EQ(summary.kernels.size(), 1u);
  EXPECT_EQ(summary.kernels.front().ranks_with_kernel, 2u);
  EXPECT_NEAR(summary.total_ns, summary.kernels.front().total_ns, 1e-6);
}

// The H100 NVTX recording (train_step/forward, backward, optimizer) as two ranks, rank 1's
// optimizer kernels twice as long: the ranges line up over the ranks, with the spread and
// the slowest rank, in every format that has tables.
TEST_F(RankReport, NvtxRangesLineUpOverTheRanks) {
  std::vector<std::string> paths;
  for (int rank : {0, 1}) {
    RunRecord run = read_run_file(kData + "/cupti/h100_nvtx_budget_limiter.json.gz");
    run.rank = RankInfo{rank, 2, rank, "torchrun"};
    for (auto& launch : run.launches)
      if (rank == 1 && !launch.nvtx.empty() && launch.nvtx.front() == "train_step/optimizer/")
        launch.counters[kDuration] *= 2.0;
    paths.push_back((folder_ / ("nvtx" + std::to_string(rank) + ".json")).string());
    write_run_file(run, paths.back());
  }
  const RankSummary summary = summarize_ranks(paths, {});
  ASSERT_EQ(summary.ranges.size(), 3u);
  const RankRange& optimizer = summary.ranges.front();  // the most time: 59 % on one rank, doubled on the other
  EXPECT_EQ(optimizer.ranges, "train_step/optimizer/");
  EXPECT_EQ(optimizer.ranks_with_range, 2u);
  EXPECT_EQ(optimizer.launches, 14u);
  EXPECT_EQ(summary.ranks[optimizer.slowest].label, "1");
  ASSERT_TRUE(optimizer.spread);
  EXPECT_NEAR(*optimizer.spread, 1.0, 1e-9);
  const auto forward = std::find_if(summary.ranges.begin(), summary.ranges.end(),
                                    [](const RankRange& r) { return r.ranges == "train_step/forward/"; });
  ASSERT_NE(forward, summary.ranges.end());
  ASSERT_TRUE(forward->spread);
  EXPECT_NEAR(*forward->spread, 0.0, 1e-9);
  double ranges_ns = 0;
  for (const auto& r : summary.ranges) ranges_ns += r.total_ns;
  EXPECT_NEAR(ranges_ns, summary.total_ns, 1e-6 * summary.total_ns);  // every launch in one row

  for (ReportFormat format : {ReportFormat::text, ReportFormat::md, ReportFormat::html, ReportFormat::json}) {
    std::ostringstream out;
    write_report(summary, format, out, {});
    EXPECT_NE(out.str().find("train_step/optimizer/"), std::string::npos) << to_string(format);
    const char* spread = format == ReportFormat::json ? "\"spread\": 1.0" : "+100.0%";
    EXPECT_NE(out.str().find(spread), std::string::npos) << to_string(format);
  }
  // Records without ranges: no range table (the recorded torchrun job's goldens stay as they were).
  EXPECT_TRUE(summarize_ranks({probe_as_rank(folder_, 0, 2), probe_as_rank(folder_, 1, 2)}, {}).ranges.empty());
}

// ---- the two-rank torchrun job recorded on an H100 (bench/results/2026-11-23-ranks.md) ----

std::vector<std::string> recorded_ranks() {
  return {kData + "/ranks/h100_gloo_rank0.json.gz", kData + "/ranks/h100_gloo_rank1.json.gz"};
}

// The merged report of the records at PATHS, with file names only (no machine's path in goldens).
std::string render_ranks(const std::vector<std::string>& paths, ReportFormat format, std::size_t top) {
  RankSummary summary = summarize_ranks(paths, {});
  for (auto& r : summary.ranks) r.path = fs::path(r.path).filename().string();
  ReportOptions options;
  options.top = top;
  std::ostringstream out;
  write_report(summary, format, out, options);
  return out.str();
}

std::string render_recorded(ReportFormat format, std::size_t top = 20) {
  return render_ranks(recorded_ranks(), format, top);
}

TEST(RankReportRecorded, TheRecordsCarryRankHostAndGpu) {
  const RankSummary summary = summarize_ranks(recorded_ranks(), {});
  ASSERT_EQ(summary.ranks.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    const RankRun& rank = summary.ranks[static_cast<std::size_t>(r)];
    ASSERT_TRUE(rank.rank);
    EXPECT_EQ(rank.rank->rank, r);
    EXPECT_EQ(rank.rank->world_size, 2);
    EXPECT_EQ(rank.rank->launcher, "torchrun");
    EXPECT_FALSE(rank.host.empty());
    EXPECT_TRUE(rank.summary.run.device.uuid.starts_with("GPU-"));
    EXPECT_GT(rank.summary.launches, 0u);
  }
  // One GPU for both ranks: the same UUID, and the report says so.
  EXPECT_EQ(summary.ranks[0].summary.run.device.uuid, summary.ranks[1].summary.run.device.uuid);
  EXPECT_TRUE(std::any_of(summary.notes.begin(), summary.notes.end(),
                          [](const std::string& note) { return note.find("shared one GPU") != std::string::npos; }));
  // Rank 1 runs its sine twice a step, rank 0 once: twice the launches, and rank 1 the slowest there.
  const RankKernel& sine = kernel_named(summary, "sin_kernel");
  EXPECT_EQ(sine.ranks_with_kernel, 2u);
  EXPECT_EQ(summary.ranks[sine.slowest].label, "1");
  EXPECT_EQ(sine.max_rank_launches, 2 * sine.min_rank_launches);
}

TEST(RankReportRecorded, Text) { expect_golden("h100_ranks_report.txt", render_recorded(ReportFormat::text)); }
TEST(RankReportRecorded, Markdown) { expect_golden("h100_ranks_report.md", render_recorded(ReportFormat::md)); }
TEST(RankReportRecorded, Json) { expect_golden("h100_ranks_report.json", render_recorded(ReportFormat::json, 0)); }
TEST(RankReportRecorded, Csv) { expect_golden("h100_ranks_report.csv", render_recorded(ReportFormat::csv, 0)); }
TEST(RankReportRecorded, Html) { expect_golden("h100_ranks_report.html", render_recorded(ReportFormat::html)); }

// ---- two ranks on two H200s all-reducing through NCCL, with NVTX ranges (bench/results/2026-11-23-ranks-nccl.md) ----

std::vector<std::string> nccl_ranks() {
  const std::string folder = kData + "/ranks/h200x2_nccl/";
  return {folder + "h200x2_nccl_rank0.json.gz", folder + "h200x2_nccl_rank1.json.gz"};
}

std::string render_nccl(ReportFormat format, std::size_t top = 20) { return render_ranks(nccl_ranks(), format, top); }

TEST(RankReportNccl, OneGpuEachAndNcclKernelsJudged) {
  const RankSummary summary = summarize_ranks(nccl_ranks(), {});
  ASSERT_EQ(summary.ranks.size(), 2u);
  EXPECT_NE(summary.ranks[0].summary.run.device.uuid, summary.ranks[1].summary.run.device.uuid);
  EXPECT_TRUE(std::none_of(summary.notes.begin(), summary.notes.end(),
                           [](const std::string& note) { return note.find("shared one GPU") != std::string::npos; }));
  const RankKernel& all_reduce = kernel_named(summary, "ncclDevKernel_AllReduce");
  EXPECT_TRUE(is_collective_kernel(all_reduce.name));
  EXPECT_EQ(all_reduce.ranks_with_kernel, 2u);
  EXPECT_EQ(all_reduce.min_rank_launches, 10u);
  EXPECT_TRUE(all_reduce.slowest_verdict.has_value());
  EXPECT_FALSE(is_collective_kernel(kernel_named(summary, "sin_kernel").name));
}

// Rank 1 runs its sine twice a step and so arrives late at every all-reduce: rank 0 waits for it
// inside NCCL's kernel, which makes rank 0's total the largest. Outside the collectives rank 1
// is the slower one: the straggler.
TEST(RankReportNccl, TheStragglerIsTheRankTheOthersWaitFor) {
  const RankSummary summary = summarize_ranks(nccl_ranks(), {});
  const RankRun& rank0 = summary.ranks[0];
  const RankRun& rank1 = summary.ranks[1];
  EXPECT_GT(rank0.collective_ns, rank1.collective_ns);
  EXPECT_EQ(summary.ranks[summary.slowest_rank].label, "0");
  ASSERT_TRUE(summary.straggler);
  EXPECT_EQ(summary.ranks[*summary.straggler].label, "1");
  EXPECT_GT(rank1.kernel_ns - rank1.collective_ns, rank0.kernel_ns - rank0.collective_ns);
  EXPECT_NE(render_nccl(ReportFormat::text).find("straggler: rank 1, "), std::string::npos);
  // Without NCCL's kernels (the gloo job) there is no straggler line.
  EXPECT_FALSE(summarize_ranks(recorded_ranks(), {}).straggler);
}

TEST(RankReportNccl, NvtxPhasesLineUpWithNcclsOwnRanges) {
  const RankSummary summary = summarize_ranks(nccl_ranks(), {});
  const auto range = [&](const std::string& start) {
    const auto it = std::find_if(summary.ranges.begin(), summary.ranges.end(),
                                 [&](const RankRange& r) { return r.ranges.starts_with(start); });
    if (it == summary.ranges.end()) throw std::runtime_error("no range " + start);
    return *it;
  };
  // NCCL's own domain names the collective beside the program's step/all_reduce/ range.
  EXPECT_NE(range("step/all_reduce/").ranges.find("NCCL@"), std::string::npos);
  const RankRange imbalance = range("step/imbalance/");
  EXPECT_EQ(imbalance.ranks_with_range, 2u);
  EXPECT_EQ(summary.ranks[imbalance.slowest].label, "1");
}

TEST(RankReportNccl, Text) { expect_golden("h200x2_nccl_ranks_report.txt", render_nccl(ReportFormat::text)); }
TEST(RankReportNccl, Markdown) { expect_golden("h200x2_nccl_ranks_report.md", render_nccl(ReportFormat::md)); }
TEST(RankReportNccl, Json) { expect_golden("h200x2_nccl_ranks_report.json", render_nccl(ReportFormat::json, 0)); }

}  // namespace
}  // namespace limiter
