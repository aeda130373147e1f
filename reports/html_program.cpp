// The program verdict as an HTML fragment (html_program.hpp): the verdict and its reason, a bar
// of the window's time by part, the advice, "what to fix first" with the program's fixes ranked
// among the kernels, and the NVTX ranges' verdicts.
#include "limiter/html_program.hpp"

#include <sstream>

#include "limiter/format.hpp"
#include "program_render.hpp"
#include "render_helpers.hpp"
#include "timeline_render.hpp"

namespace limiter::render {
namespace {

const char* part_color(const std::string& label) {
  if (label == "kernels") return "#2e7d32";
  if (label == "copies alone") return "#1565c0";
  if (label == "idle: inside launch calls") return "#f9a825";
  if (label == "idle: synchronising") return "#c62828";
  if (label == "idle: inside copy calls") return "#6a1b9a";
  if (label == "idle: host outside CUDA") return "#ef6c00";
  return "#9e9e9e";
}

}  // namespace

std::string program_html_section(const RunSummary& summary) {
  if (!summary.program) return "";
  const auto& p = *summary.program;
  std::ostringstream out;
  out << "<section class=\"program\" id=\"program\">\n<h2>Program: " << html_escape(std::string(to_string(p.verdict)))
      << "</h2>\n<p>" << html_escape(p.reason) << "</p>\n";
  if (!p.window_note.empty()) out << "<p class=\"note\">" << html_escape(p.window_note) << ".</p>\n";
  // The window as one bar, a segment per part, widths in percent.
  out << "<div style=\"display:flex;width:100%;height:18px;border:1px solid #999\" role=\"img\" aria-label=\"the "
         "window's time by part\">";
  for (const auto& part : split_parts(p.split)) {
    out << "<div style=\"width:" << format_fixed(100 * p.split.share(part.ns), 3)
        << "%;background:" << part_color(part.label) << "\" title=\"" << html_escape(part.label) << ": "
        << format_duration_ns(part.ns) << " (" << format_percent(p.split.share(part.ns)) << ")\"></div>";
  }
  out << "</div>\n<ul class=\"legend\">";
  for (const auto& part : split_parts(p.split))
    out << "<li><span style=\"color:" << part_color(part.label) << "\">&#9632;</span> " << html_escape(part.label)
        << " " << format_duration_ns(part.ns) << " (" << format_percent(p.split.share(part.ns)) << ")</li>";
  out << "</ul>\n<ul class=\"advice\">\n";
  for (const auto& advice : p.advice) out << "<li>" << html_escape(advice) << "</li>\n";
  out << "</ul>\n";
  const auto lines = fix_first_lines(summary);
  if (!lines.empty()) {
    out << "<h3>What to fix first</h3>\n<ol>\n";
    for (const auto& line : lines) {
      if (line.program) {
        out << "<li><strong>program</strong> — " << html_escape(fix_program_text(*line.program)) << ": "
            << html_escape(line.program->headline) << "</li>\n";
        continue;
      }
      const auto& g = summary.groups[line.kernel->group];
      out << "<li><code>" << html_escape(g.display_name) << "</code> [" << g.longest.sequence << "] — "
          << duration_text(shown_durations(g).total_ns) << " (" << format_percent(shown_time_share(g), 0) << "), "
          << html_escape(verdict_label(g.longest.verdict)) << ": " << html_escape(line.kernel->headline) << "</li>\n";
    }
    out << "</ol>\n";
  }
  if (!p.ranges.empty()) {
    out << "<table>\n<thead><tr><th>NVTX range</th><th>wall</th><th>instances</th><th>GPU "
           "busy</th><th>verdict</th></tr></thead>\n<tbody>\n";
    for (const auto& r : p.ranges)
      out << "<tr><td><code>" << html_escape(r.range) << "</code></td><td>" << format_duration_ns(r.split.wall_ns)
          << "</td><td>" << r.instances << "</td><td>" << format_percent(r.split.busy_share(), 0) << "</td><td>"
          << html_escape(std::string(to_string(r.verdict))) << "</td></tr>\n";
    out << "</tbody>\n</table>\n";
  }
  out << "</section>\n";
  return out.str();
}

}  // namespace limiter::render
