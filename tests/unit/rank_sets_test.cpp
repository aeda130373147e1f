// Several records in one report: the ranks of one job only when their rank fields say so, the
// kernel time of `--trace` records from their timelines, the stall reasons of `--stalls` records
// summed over the ranks, and the records read side by side as one at a time would read them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>

#include "limiter/rank_summary.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

namespace fs = std::filesystem;
using testing::kData;

bool has_note(const RankSummary& summary, const std::string& words) {
  return std::any_of(summary.notes.begin(), summary.notes.end(),
                     [&](const std::string& note) { return note.find(words) != std::string::npos; });
}

std::string text_of(const RankSummary& summary) {
  std::ostringstream out;
  write_report(summary, ReportFormat::text, out);
  return out.str();
}

// Two PyTorch programs traced on two H100s of one machine, no rank between them.
TEST(RankSets, RecordsOfUnrelatedRunsAreNotRanks) {
  const RankSummary summary =
      summarize_ranks({kData + "/trace/h100_pytorch_trace.json.gz", kData + "/trace/h100_mlp30_trace.json.gz"}, {});
  EXPECT_FALSE(summary.one_job);
  ASSERT_EQ(summary.ranks.size(), 2u);
  EXPECT_EQ(summary.ranks[0].label, "h100_mlp30_trace.json.gz");  // by path
  EXPECT_TRUE(has_note(summary, "not the ranks of one job (2 records name no rank"));
  EXPECT_FALSE(has_note(summary, "shared one GPU"));
  const std::string text = text_of(summary);
  EXPECT_EQ(text.rfind("limiter report — 2 records on 1 host, ", 0), 0u) << text.substr(0, 200);
  EXPECT_NE(text.find("\nslowest record: "), std::string::npos);
  EXPECT_EQ(text.find("rank h100_"), std::string::npos);
}

TEST(RankSets, OneRankTwiceIsTwoRecordsNotAJob) {
  const fs::path folder = fs::temp_directory_path() / ("limiter_rank_sets_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  RunRecord run = read_run_file(kData + "/cupti/h200_probe_run.json");
  run.rank = RankInfo{0, 2, 0, "torchrun"};
  run.device.uuid = "GPU-11111111";
  write_run_file(run, (folder / "a.json").string());
  write_run_file(run, (folder / "b.json").string());  // the same GPU, an earlier run of the job
  const RankSummary summary = summarize_ranks({(folder / "b.json").string(), (folder / "a.json").string()}, {});
  EXPECT_FALSE(summary.one_job);
  EXPECT_TRUE(has_note(summary, "rank 0 more than once")) << summary.notes.front();
  EXPECT_FALSE(has_note(summary, "shared one GPU"));
  EXPECT_EQ(summary.ranks[0].label, "a.json");
  fs::remove_all(folder);
}

// `limiter run --trace` on each rank: no launch with counters, every kernel on the timelines.
TEST(RankSets, TraceRanksTakeTheirKernelTimeFromTheTimelines) {
  const RankSummary summary = summarize_ranks(
      {kData + "/ranks/trace/h100_gloo_rank1_trace.json.gz", kData + "/ranks/trace/h100_gloo_rank0_trace.json.gz"}, {});
  EXPECT_TRUE(summary.one_job);
  ASSERT_EQ(summary.ranks.size(), 2u);
  EXPECT_GT(summary.total_ns, 0);
  ASSERT_FALSE(summary.kernels.empty());
  double sum = 0;
  for (const auto& r : summary.ranks) {
    EXPECT_GT(r.launches, 0u);
    ASSERT_TRUE(r.summary.program);  // the program verdict, per rank
    ASSERT_TRUE(r.summary.timeline_kernels);
    EXPECT_NEAR(r.kernel_ns, r.summary.timeline_kernels->kernel_ns, 1e-6);
    sum += r.kernel_ns;
  }
  EXPECT_NEAR(summary.total_ns, sum, 1e-6);
  const std::string text = text_of(summary);
  EXPECT_NE(text.find("rank 0: launch-bound"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.0 ns of kernel time"), std::string::npos) << text;
}

// `limiter run --stalls` on each rank: the reasons' samples summed over the ranks.
TEST(RankSets, StallRanksShowTheStallReasons) {
  const std::string folder = kData + "/ranks/stalls/";
  const RankSummary summary =
      summarize_ranks({folder + "h200_gemm_stalls_rank0.json", folder + "h200_gemm_stalls_rank1.json"}, {});
  EXPECT_TRUE(summary.one_job);
  ASSERT_EQ(summary.stalled_kernels.size(), 2u);
  const RankStalledKernel& gemm = summary.stalled_kernels.front();
  EXPECT_EQ(gemm.display_name, "device_kernel<GemmUniversal>");
  EXPECT_EQ(gemm.ranks, 2u);
  std::uint64_t samples = 0;
  for (const auto& r : summary.ranks)
    for (const auto& k : r.summary.stalled_kernels)
      if (k.name == gemm.name) samples += k.stalls->samples;
  EXPECT_EQ(gemm.stalls->samples, samples);
  ASSERT_FALSE(gemm.stalls->dominant.empty());
  EXPECT_EQ(gemm.stalls->dominant.front().title, "Stall GMMA");
  const std::string text = text_of(summary);
  EXPECT_NE(text.find("  device_kernel<GemmUniversal> (2/2 ranks): Stall GMMA "), std::string::npos) << text;
}

// The hot PCs summed over the ranks: the job's hottest (the HGMMA, 2,400 + 4,500 samples) is not
// rank 0's (the wait, 3,200), a PC of one rank alone is kept, and one without SASS or line too.
TEST(RankSets, StallRanksSumTheHotLines) {
  const std::string folder = kData + "/ranks/stalls/";
  const RankSummary summary =
      summarize_ranks({folder + "h200_gemm_stalls_rank0.json", folder + "h200_gemm_stalls_rank1.json"}, {});
  ASSERT_EQ(summary.stalled_kernels.size(), 2u);
  const auto& gemm = *summary.stalled_kernels.front().stalls;
  ASSERT_EQ(gemm.hot_lines.size(), 4u);
  EXPECT_EQ(gemm.hot_lines[0].pc_offset, 0x1b80u);
  EXPECT_EQ(gemm.hot_lines[0].samples, 6900u);
  EXPECT_EQ(gemm.hot_lines[0].reason, "warpgroup_arrive");
  EXPECT_DOUBLE_EQ(gemm.hot_lines[0].share, 6900.0 / static_cast<double>(gemm.samples));
  EXPECT_EQ(gemm.hot_lines[1].pc_offset, 0x1a40u);
  EXPECT_EQ(gemm.hot_lines[1].samples, 4300u);
  EXPECT_EQ(gemm.hot_lines[2].where(), "cutlass/epilogue/collective/default_epilogue.hpp:151");
  EXPECT_EQ(gemm.hot_lines[3].samples, 450u);
  const auto& copy = *summary.stalled_kernels.back().stalls;
  ASSERT_EQ(copy.hot_lines.size(), 1u);
  EXPECT_EQ(copy.hot_lines[0].where(), "+0x90");
  EXPECT_EQ(copy.hot_lines[0].samples, 3400u);
  const std::string text = text_of(summary);
  EXPECT_NE(text.find("\n    cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp:398  HGMMA"),
            std::string::npos)
      << text;
}

// One record's report keeps its five hottest lines; the merged one too, of every line the ranks kept.
TEST(RankSets, StallRanksKeepTheHotLinesAsOneRecord) {
  RankRun one, two;
  for (RankRun* run : {&one, &two}) {
    KernelStalls kernel{"k", "", 0, 0, {}, {}, ""};
    for (std::uint64_t pc = 0; pc < 8; ++pc) {
      // Rank one's hottest PCs are two's coolest: summed, every PC has 9 samples but PC 7 (10).
      const std::uint64_t samples = run == &one ? pc + 1 : 8 - pc + (pc == 7 ? 1 : 0);
      kernel.hot_pcs.push_back({pc * 16, samples, {{"barrier", samples}}, "", std::nullopt, std::nullopt});
      kernel.reasons["barrier"] += samples;
      kernel.samples += samples;
    }
    StallThresholds all_lines;
    all_lines.hot_lines = 100;
    run->summary.stalled_kernels.push_back(
        {"k",
         "k",
         std::make_shared<const KernelStallAnalysis>(analyze_kernel_stalls(kernel, all_lines)),
         std::nullopt,
         {}});
  }
  const RankSummary summary = merge_ranks({one, two});
  ASSERT_EQ(summary.stalled_kernels.size(), 1u);
  const auto& lines = summary.stalled_kernels.front().stalls->hot_lines;
  ASSERT_EQ(lines.size(), StallThresholds{}.hot_lines);
  EXPECT_EQ(lines.front().pc_offset, 7u * 16);
  EXPECT_EQ(lines.front().samples, 10u);
  EXPECT_EQ(lines[1].samples, 9u);
}

// Read side by side or one at a time, the records make the same report.
TEST(RankSets, ReadingInParallelChangesNothing) {
  const std::vector<std::string> paths = {kData + "/ranks/h100_gloo_rank0.json.gz",
                                          kData + "/ranks/h100_gloo_rank1.json.gz",
                                          kData + "/ranks/h100_gloo_torchrun_agent.json"};
  std::vector<RankRun> one_at_a_time;
  for (const auto& path : paths) {
    RankRun run;
    run.path = path;
    SummaryOptions options;
    options.keep_launches = false;
    run.summary = summarize_run_file(path, {}, options);
    run.rank = run.summary.run.rank;
    run.host = run.summary.run.host;
    one_at_a_time.push_back(std::move(run));
  }
  EXPECT_EQ(text_of(summarize_ranks(paths, {})), text_of(merge_ranks(std::move(one_at_a_time))));
}

}  // namespace
}  // namespace limiter
