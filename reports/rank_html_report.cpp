// The HTML report of a job's ranks: one self-contained page (no script, no network) with the
// ranks' kernel time as bars, each rank's time split by verdict, and the two tables of the
// terminal report.
#include <ostream>

#include "html_parts.hpp"
#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "program_render.hpp"
#include "rank_cells.hpp"
#include "render_helpers.hpp"

namespace limiter {
namespace {

using render::html_escape;

void write_table(const std::vector<std::string>& titles, const std::vector<render::Row>& rows, const char* id,
                 std::ostream& out) {
  // Left-aligned cells are text; kernel names, records and ranges may be one long word ("name").
  std::vector<std::string> classes;
  for (std::size_t c = 0; c < titles.size(); ++c) {
    const bool left = !rows.empty() && rows.front()[c].left;
    const bool long_words = titles[c] == "kernel" || titles[c] == "record" || titles[c] == "NVTX ranges";
    classes.push_back(!left ? "" : long_words ? " class=\"name\"" : " class=\"text\"");
  }
  out << "<table id=\"" << id << "\"><thead><tr>";
  for (std::size_t c = 0; c < titles.size(); ++c)
    out << "<th" << classes[c] << ">" << html_escape(titles[c]) << "</th>";
  out << "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    out << "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c)
      out << "<td" << classes[c] << ">" << html_escape(row[c].text) << "</td>";
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

}  // namespace

void write_rank_html_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options) {
  html::write_page_start(out, "limiter report — " + render::rank_job_text(summary));
  out << "<h1>limiter report</h1>\n<p>" << html_escape(render::rank_job_text(summary)) << "</p>\n<p><strong>"
      << html_escape(render::slowest_rank_text(summary)) << "</strong></p>\n";
  if (const auto straggler = render::straggler_text(summary); !straggler.empty())
    out << "<p>" << html_escape(straggler) << "</p>\n";
  for (const auto& note : summary.notes) out << "<p class=\"warning\">Warning: " << html_escape(note) << "</p>\n";
  const double slowest_ns = summary.ranks.empty() ? 0 : summary.ranks[summary.slowest_rank].kernel_ns;
  std::vector<html::Bar> bars;
  for (const auto& r : summary.ranks) {
    html::Bar bar;
    bar.label = summary.member(r);
    if (slowest_ns > 0) bar.value = r.kernel_ns / slowest_ns;
    bar.fill = &r == &summary.ranks[summary.slowest_rank] ? html::kSlowerFill : html::kNeutralFill;
    bar.value_text = format_duration_ns(r.kernel_ns);
    bar.tooltip = summary.member(r) + ": " + format_duration_ns(r.kernel_ns) + " of kernel time";
    bars.push_back(std::move(bar));
  }
  if (slowest_ns > 0) {  // ranks of PC samples alone have no kernel time to chart
    out << (summary.one_job ? "<h2>Kernel time by rank</h2>\n" : "<h2>Kernel time by record</h2>\n");
    html::write_bar_chart(out, "rank-time", bars, 0.0, 1.0, {}, "kernel time of each rank against the slowest");
  }
  out << (summary.one_job ? "<h2>Ranks</h2>\n" : "<h2>Records</h2>\n");
  write_table(render::rank_table_titles(summary), render::rank_table_rows(summary), "ranks", out);
  if (const auto lines = render::rank_program_lines(summary); !lines.empty()) {  // those with a timeline
    out << "<h2>Program per " << (summary.one_job ? "rank" : "record") << "</h2>\n<ul class=\"program-per-rank\">\n";
    for (const auto& line : lines) out << "<li>" << html_escape(line) << "</li>\n";
    out << "</ul>\n";
  }
  for (const auto& r : summary.ranks) {
    if (!render::has_verdict_time(r.summary.time_by_verdict)) continue;  // a rank of a timeline or samples alone
    out << "<h3>" << html_escape(summary.member(r)) << ": time by verdict</h3>\n";
    html::write_verdict_bar(out, r.summary.time_by_verdict);
  }
  const std::size_t shown = render::shown_rank_kernel_count(summary, options.top);
  if (!summary.kernels.empty()) {  // records of PC samples alone have none
    out << "<h2>Kernels over all ranks by time</h2>\n";
    if (shown < summary.kernels.size()) out << "<p>top " << shown << " of " << summary.kernels.size() << "</p>\n";
    write_table(render::rank_kernel_titles(), render::rank_kernel_rows(summary, options.top), "rank-kernels", out);
    if (const auto rest = render::rank_kernels_left_out_text(summary, options.top); !rest.empty())
      out << "<p>" << html_escape(rest) << "</p>\n";
    out << "<p class=\"muted\">" << html_escape(render::kRankKernelLegend) << ". One rank alone: <code>limiter report "
        << "RECORDS --rank N</code>.</p>\n";
  }
  if (const auto lines = render::rank_stall_lines(summary, options.top); !lines.empty()) {
    out << "<h2>Why they wait</h2>\n<p class=\"muted\">" << html_escape(render::kRankStallTitle)
        << "</p>\n<ul class=\"rank-stalls\">\n";
    for (const auto& line : lines) {
      out << "<li>" << html_escape(line.text);
      html::write_hot_lines(out, *line.stalls);
      out << "</li>\n";
    }
    out << "</ul>\n";
  }
  if (!summary.ranges.empty()) {
    out << "<h2>By NVTX range over all ranks</h2>\n";
    write_table(render::rank_range_titles(), render::rank_range_rows(summary), "rank-ranges", out);
    out << "<p class=\"muted\">" << html_escape(render::kRankRangeLegend) << ".</p>\n";
  }
  if (const auto hint = render::rank_no_timeline_hint(summary); !hint.empty())
    out << "<p class=\"note\">" << html_escape(hint) << "</p>\n";
  html::write_page_end(out);
}

}  // namespace limiter
