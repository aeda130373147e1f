// Why a kernel waits, in the HTML report: its stall reasons as bars (shares of the stalled
// samples, the dominant ones in the verdict's colour) and its hottest lines as a table (a job's
// ranks' report shows that table under each kernel's line).
#include <ostream>

#include "html_parts.hpp"
#include "limiter/format.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"

namespace limiter::html {

namespace {

constexpr std::size_t kShownReasons = 6;  // bars per kernel; the rest are in the JSON report

bool is_dominant(const KernelStallAnalysis& stalls, const StallShare& reason) {
  for (const auto& d : stalls.dominant)
    if (d.reason == reason.reason) return true;
  return false;
}

}  // namespace

void write_stalls(std::ostream& out, const KernelStallAnalysis& stalls, const std::string& id) {
  using render::html_escape;
  out << "<div class=\"stalls\">\n<p><b>Why it waits</b> (PC samples): "
      << html_escape(render::why_it_waits_text(stalls)) << "</p>\n";
  std::vector<Bar> bars;
  for (const auto& reason : stalls.reasons) {
    if (reason.reason == kIssuedReason) continue;
    if (bars.size() == kShownReasons) break;
    const bool dominant = is_dominant(stalls, reason);
    bars.push_back({reason.title, reason.stall_share, dominant ? verdict_fill(Verdict::latency) : "#b8c4cc",
                    format_percent(reason.stall_share, 0),
                    render::count_text(static_cast<std::size_t>(reason.samples)) + " samples", "stall"});
  }
  if (!bars.empty())
    write_bar_chart(out, id + "-stalls", bars, 0.0, 1.0, {}, "share of the stalled samples per stall reason");
  write_hot_lines(out, stalls);
  out << "</div>\n";
}

void write_hot_lines(std::ostream& out, const KernelStallAnalysis& stalls) {
  using render::html_escape;
  if (stalls.hot_lines.empty()) return;
  out << "<table class=\"hot-lines\">\n<thead><tr><th class=\"text\">line</th><th class=\"text\">SASS</th>"
         "<th>samples</th><th class=\"text\">reason</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < stalls.hot_lines.size() && i < render::kShownHotLines; ++i) {
    const auto cells = render::hot_line_cells(stalls.hot_lines[i]);
    out << "<tr><td class=\"text\"><code>" << html_escape(cells.where) << "</code></td><td class=\"text\"><code>"
        << html_escape(cells.sass) << "</code></td><td>" << cells.share << "</td><td class=\"text\">"
        << html_escape(cells.reason) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

}  // namespace limiter::html
