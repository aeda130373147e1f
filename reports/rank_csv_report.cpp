// The CSV report of a job's ranks: one row per kernel (name and launch configuration) and
// rank, kernels most time over all ranks first, ranks in rank order within a kernel.
#include <ostream>

#include "limiter/reports.hpp"
#include "render_helpers.hpp"

namespace limiter {

const std::vector<std::string> kCsvRankReportColumns = {
    "kernel_index", "kernel", "short_name", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
    "rank", "host", "device_uuid", "launches", "total_ns", "mean_ns", "min_ns", "max_ns", "share_of_all_ranks",
    "verdict", "limiting_unit", "issue_utilization", "l2_utilization", "dram_utilization", "lmem_l2_share",
    "lmem_instruction_share", "kernel_spread", "kernel_slowest_rank"};

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
      out << render::csv_row(
          {std::to_string(i + 1), k.name, k.display_name, std::to_string(k.grid.x), std::to_string(k.grid.y),
           std::to_string(k.grid.z), std::to_string(k.block.x), std::to_string(k.block.y), std::to_string(k.block.z),
           rank.label, rank.host, rank.summary.run.device.uuid, std::to_string(g.launches),
           plain_number(g.durations.total_ns), plain_number(g.durations.mean_ns), plain_number(g.durations.min_ns),
           plain_number(g.durations.max_ns), plain_number(summary.share_of_all(g.durations.total_ns)),
           g.main_verdict ? to_string(*g.main_verdict) : "", g.limiting_unit, plain_number(g.issue), plain_number(g.l2),
           plain_number(g.dram), plain_number(g.lmem_l2_share), plain_number(g.lmem_instruction_share),
           plain_number(k.spread), summary.ranks[k.slowest].label});
    }
  }
}

}  // namespace limiter
