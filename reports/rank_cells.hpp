#pragma once
// The cells of the multi-rank report's two tables (the ranks; the kernels over the ranks),
// shared by its text, Markdown and HTML forms so the three read alike (internal to
// limiter::reports).
#include <string>
#include <vector>

#include "limiter/rank_summary.hpp"
#include "limiter/reports.hpp"

namespace limiter::render {

// "2 ranks of a torchrun job (world size 2) on 1 host, 1.23 ms of kernel time".
std::string rank_job_text(const RankSummary& summary);
// "slowest rank: 1, 1.54 ms of kernel time, +25.0% over the fastest (rank 0)".
std::string slowest_rank_text(const RankSummary& summary);
// Where the ranks ran NCCL's kernels: the rank the others waited for (empty otherwise).
std::string straggler_text(const RankSummary& summary);
// "GPU-1a2b3c4d": the UUID's first group, enough to tell a host's GPUs apart; "—" when unknown.
std::string short_gpu_uuid(const std::string& uuid);

struct Cell {
  std::string text;
  bool left = false;  // text columns; numbers are right-aligned
};
using Row = std::vector<Cell>;

// The ranks: rank, host, GPU, launches, kernel time, against the slowest, main verdict, record.
std::vector<std::string> rank_table_titles(const RankSummary& summary);
std::vector<Row> rank_table_rows(const RankSummary& summary);

// The kernels over the ranks, the TOP with the most time (0: all); the kernel name last.
std::vector<std::string> rank_kernel_titles();
std::vector<Row> rank_kernel_rows(const RankSummary& summary, std::size_t top);
std::size_t shown_rank_kernel_count(const RankSummary& summary, std::size_t top);
// "... 12 more: 3.1% of the time over all ranks", or "" when every kernel is shown.
std::string rank_kernels_left_out_text(const RankSummary& summary, std::size_t top);
// What the columns mean, under the kernel table.
extern const char* const kRankKernelLegend;

// The NVTX ranges over the ranks (RankSummary::ranges), each row's label last; no rows without.
std::vector<std::string> rank_range_titles();
std::vector<Row> rank_range_rows(const RankSummary& summary);
extern const char* const kRankRangeLegend;

// Why the kernels wait over the ranks (RankSummary::stalled_kernels), the TOP with the most samples
// (0: all): "name (2/2 ranks): Stall Long Scoreboard 41% ... of stalled samples; ...", and the
// hot lines summed over the ranks, which each format shows as it shows one record's.
struct RankStallLine {
  std::string text;
  const KernelStallAnalysis* stalls = nullptr;
};
std::vector<RankStallLine> rank_stall_lines(const RankSummary& summary, std::size_t top);
inline constexpr const char* kRankStallTitle =
    "why they wait (PC samples by stall reason over the ranks, most samples first)";

// The report's last line where no record has a timeline: how to get the program verdict; else empty.
std::string rank_no_timeline_hint(const RankSummary& summary);

// "bandwidth", or where the ranks differ "bandwidth (ranks: 1 bandwidth, 1 latency)".
std::string rank_verdict_text(const RankKernel& kernel);

}  // namespace limiter::render
