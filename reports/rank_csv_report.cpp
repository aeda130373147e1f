// The CSV report of a job's ranks: one row per kernel (name and launch configuration) and
// rank, kernels most time over all ranks first, ranks in rank order within a kernel; the stall
// columns hold the kernel's PC samples summed over the ranks, and a kernel of the samples alone
// (ranks of `limiter run --stalls`) has one row of them, its rank empty.
#include <algorithm>
#include <ostream>

#include "limiter/reports.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"

namespace limiter {

const std::vector<std::string> kCsvRankReportColumns = {
    "kernel_index",
    "kernel",
    "short_name",
    "grid_x",
    "grid_y",
    "grid_z",
    "block_x",
    "block_y",
    "block_z",
    "rank",
    "host",
    "device_uuid",
    "launches",
    "total_ns",
    "mean_ns",
    "min_ns",
    "max_ns",
    "share_of_all_ranks",
    "verdict",
    "limiting_unit",
    "issue_utilization",
    "l2_utilization",
    "dram_utilization",
    "lmem_l2_share",
    "lmem_instruction_share",
    "kernel_spread",
    "kernel_slowest_rank",
    "stall_samples",
    "stall_issued_share",
    "stall_reason_1",
    "stall_share_1",
    "stall_reason_2",
    "stall_share_2",
    "stall_hot_line"};  // the last, render::kCsvStallColumns: the kernel's over all ranks

namespace {

const RankStalledKernel* stalls_of(const RankSummary& summary, const std::string& name) {
  for (const auto& k : summary.stalled_kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace

void write_rank_csv_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options) {
  using render::plain_number;
  out << render::csv_row(kCsvRankReportColumns);
  const std::size_t shown = options.top == 0 ? summary.kernels.size() : std::min(options.top, summary.kernels.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const RankKernel& k = summary.kernels[i];
    for (std::size_t r = 0; r < summary.ranks.size(); ++r) {
      if (!k.groups[r]) continue;
      const RankRun& rank = summary.ranks[r];
      const KernelSummary& g = rank.summary.groups[*k.groups[r]];
      std::vector<std::string> row = {std::to_string(i + 1),
                                      k.name,
                                      k.display_name,
                                      std::to_string(k.grid.x),
                                      std::to_string(k.grid.y),
                                      std::to_string(k.grid.z),
                                      std::to_string(k.block.x),
                                      std::to_string(k.block.y),
                                      std::to_string(k.block.z),
                                      rank.label,
                                      rank.host,
                                      rank.summary.run.device.uuid,
                                      std::to_string(g.launches),
                                      plain_number(g.durations.total_ns),
                                      plain_number(g.durations.mean_ns),
                                      plain_number(g.durations.min_ns),
                                      plain_number(g.durations.max_ns),
                                      plain_number(summary.share_of_all(g.durations.total_ns)),
                                      g.main_verdict ? to_string(*g.main_verdict) : "",
                                      g.limiting_unit,
                                      plain_number(g.issue),
                                      plain_number(g.l2),
                                      plain_number(g.dram),
                                      plain_number(g.lmem_l2_share),
                                      plain_number(g.lmem_instruction_share),
                                      plain_number(k.spread),
                                      summary.ranks[k.slowest].label};
      const RankStalledKernel* stalled = stalls_of(summary, k.name);
      for (auto& cell : render::stall_csv_cells(stalled ? stalled->stalls.get() : nullptr))
        row.push_back(std::move(cell));
      out << render::csv_row(row);
    }
  }
  for (const auto& stalled : summary.stalled_kernels) {
    const bool has_rows = std::any_of(summary.kernels.begin(), summary.kernels.end(),
                                      [&](const RankKernel& k) { return k.name == stalled.name; });
    if (has_rows) continue;
    std::vector<std::string> row(kCsvRankReportColumns.size() - render::kCsvStallColumns.size(), "");
    row[1] = stalled.name;
    row[2] = stalled.display_name;
    for (auto& cell : render::stall_csv_cells(stalled.stalls.get())) row.push_back(std::move(cell));
    out << render::csv_row(row);
  }
}

}  // namespace limiter
