// The terminal report of a job's ranks: the ranks side by side (which one is slowest), then
// the kernels over all ranks with the spread between the ranks and the slowest rank.
#include <ostream>

#include "limiter/reports.hpp"
#include "program_render.hpp"
#include "rank_cells.hpp"
#include "stall_render.hpp"
#include "text_table.hpp"

namespace limiter {
namespace {

using render::TextTable;

TextTable table_of(const std::vector<std::string>& titles, const std::vector<render::Row>& rows) {
  std::vector<TextTable::Column> columns;
  for (std::size_t c = 0; c < titles.size(); ++c) {
    const bool left = !rows.empty() && rows.front()[c].left;
    columns.push_back({titles[c], left ? TextTable::Align::left : TextTable::Align::right});
  }
  TextTable table(std::move(columns));
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& cell : row) cells.push_back(cell.text);
    table.add_row(std::move(cells));
  }
  return table;
}

}  // namespace

void write_rank_text_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options) {
  out << "limiter report — " << render::rank_job_text(summary) << "\n" << render::slowest_rank_text(summary) << "\n";
  if (const auto straggler = render::straggler_text(summary); !straggler.empty()) out << straggler << "\n";
  for (const auto& note : summary.notes) out << "WARNING: " << note << "\n";
  out << (summary.one_job ? "\nranks:\n" : "\nrecords:\n");
  table_of(render::rank_table_titles(summary), render::rank_table_rows(summary)).write(out);
  if (const auto lines = render::rank_program_lines(summary); !lines.empty()) {  // ranks with a timeline
    out << "\nprogram per " << (summary.one_job ? "rank" : "record") << " (is the GPU the bottleneck at all?):\n";
    for (const auto& line : lines) out << "  " << line << "\n";
  }
  const std::size_t shown = render::shown_rank_kernel_count(summary, options.top);
  if (!summary.kernels.empty()) {  // records of PC samples alone have none
    out << "\nkernels over all ranks by time, grouped by name and launch configuration";
    if (shown < summary.kernels.size())
      out << " (top " << shown << " of " << summary.kernels.size() << "; --top N for more)";
    out << ":\n";
    table_of(render::rank_kernel_titles(), render::rank_kernel_rows(summary, options.top)).write(out);
    if (const auto rest = render::rank_kernels_left_out_text(summary, options.top); !rest.empty()) out << rest << "\n";
    out << render::kRankKernelLegend << "\n";
  }
  if (const auto lines = render::rank_stall_lines(summary, options.top); !lines.empty()) {
    out << "\n" << render::kRankStallTitle << ":\n";
    for (const auto& line : lines) {
      out << "  " << line.text << "\n";
      for (std::size_t i = 0; i < line.stalls->hot_lines.size() && i < render::kShownHotLines; ++i)
        out << "    " << render::hot_line_text(line.stalls->hot_lines[i]) << "\n";
    }
  }
  if (!summary.ranges.empty()) {
    out << "\nby NVTX range over all ranks:\n";
    table_of(render::rank_range_titles(), render::rank_range_rows(summary)).write(out);
    out << render::kRankRangeLegend << "\n";
  }
  out << "one rank alone, with its advice: limiter report RECORDS --rank N\n";
  if (const auto hint = render::rank_no_timeline_hint(summary); !hint.empty()) out << hint << "\n";
}

}  // namespace limiter
