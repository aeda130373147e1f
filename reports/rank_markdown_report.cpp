// The Markdown report of a job's ranks (a pull-request comment): the same two tables as the
// terminal report.
#include <ostream>

#include "limiter/reports.hpp"
#include "program_render.hpp"
#include "rank_cells.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"

namespace limiter {
namespace {

void write_table(const std::vector<std::string>& titles, const std::vector<render::Row>& rows, std::ostream& out,
                 std::size_t code_column) {
  out << "|";
  for (const auto& title : titles) out << " " << render::markdown_escape(title) << " |";
  out << "\n|";
  for (std::size_t c = 0; c < titles.size(); ++c) out << (!rows.empty() && rows.front()[c].left ? ":--|" : "--:|");
  out << "\n";
  for (const auto& row : rows) {
    out << "|";
    for (std::size_t c = 0; c < row.size(); ++c)
      out << " " << (c == code_column ? render::markdown_code(row[c].text) : render::markdown_escape(row[c].text))
          << " |";
    out << "\n";
  }
  out << "\n";
}

}  // namespace

void write_rank_markdown_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options) {
  out << "## limiter report — " << render::markdown_escape(render::rank_job_text(summary)) << "\n\n**"
      << render::markdown_escape(render::slowest_rank_text(summary)) << "**\n\n";
  if (const auto straggler = render::straggler_text(summary); !straggler.empty())
    out << render::markdown_escape(straggler) << "\n\n";
  for (const auto& note : summary.notes) out << "> **Warning:** " << render::markdown_escape(note) << "\n>\n";
  if (!summary.notes.empty()) out << "\n";
  out << (summary.one_job ? "### Ranks\n\n" : "### Records\n\n");
  const auto rank_titles = render::rank_table_titles(summary);
  write_table(rank_titles, render::rank_table_rows(summary), out, rank_titles.size() - 1);
  if (const auto lines = render::rank_program_lines(summary); !lines.empty()) {  // ranks with a timeline
    out << (summary.one_job ? "**Program per rank:**\n\n" : "**Program per record:**\n\n");
    for (const auto& line : lines) out << "- " << render::markdown_escape(line) << "\n";
    out << "\n";
  }
  const std::size_t shown = render::shown_rank_kernel_count(summary, options.top);
  if (!summary.kernels.empty()) {  // records of PC samples alone have none
    out << "### Kernels over all ranks by time, grouped by name and launch configuration";
    if (shown < summary.kernels.size()) out << " (top " << shown << " of " << summary.kernels.size() << ")";
    out << "\n\n";
    const auto kernel_titles = render::rank_kernel_titles();
    write_table(kernel_titles, render::rank_kernel_rows(summary, options.top), out, kernel_titles.size() - 1);
    if (const auto rest = render::rank_kernels_left_out_text(summary, options.top); !rest.empty())
      out << render::markdown_escape(rest) << "\n\n";
    out << "<sub>" << render::markdown_escape(render::kRankKernelLegend)
        << ". One rank alone: `limiter report RECORDS --rank N`.</sub>\n";
  }
  if (const auto lines = render::rank_stall_lines(summary, options.top); !lines.empty()) {
    out << "\n### " << render::markdown_escape(render::kRankStallTitle) << "\n\n";
    for (const auto& line : lines) {
      out << "- " << render::markdown_escape(line.text) << "\n";
      for (std::size_t i = 0; i < line.stalls->hot_lines.size() && i < render::kShownHotLines; ++i)
        out << "  - " << render::markdown_code(render::hot_line_text(line.stalls->hot_lines[i])) << "\n";
    }
  }
  if (!summary.ranges.empty()) {
    out << "\n### By NVTX range over all ranks\n\n";
    const auto range_titles = render::rank_range_titles();
    write_table(range_titles, render::rank_range_rows(summary), out, range_titles.size() - 1);
    out << "<sub>" << render::markdown_escape(render::kRankRangeLegend) << ".</sub>\n";
  }
  if (const auto hint = render::rank_no_timeline_hint(summary); !hint.empty())
    out << "\n> " << render::markdown_escape(hint) << "\n";
}

}  // namespace limiter
