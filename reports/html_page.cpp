// The HTML page around every report: one inline style sheet, the header and footer, the
// verdict colours and badges.
#include <ostream>

#include "html_parts.hpp"
#include "limiter/format.hpp"
#include "limiter/record.hpp"
#include "render_helpers.hpp"
#include "verdict_colours.hpp"

namespace limiter::html {

using render::html_escape;
using render::verdict_key;
using render::verdict_label;

const char* verdict_fill(const std::optional<Verdict>& verdict) { return verdict_colour(verdict).fill; }

std::string num(double value) { return format_fixed(value, 1); }

namespace {

// The verdict badges, in the verdicts' colours (verdict_colours.hpp).
std::string verdict_style() {
  struct Badge {
    const char* key;
    std::optional<Verdict> verdict;
  };
  const Badge badges[] = {{"bandwidth", Verdict::bandwidth},
                          {"instruction", Verdict::instruction},
                          {"latency", Verdict::latency},
                          {"none", std::nullopt}};
  std::string css;
  for (const auto& badge : badges) {
    const VerdictColour& colour = verdict_colour(badge.verdict);
    css += std::string(".verdict.") + badge.key + " { background: " + colour.fill + "; color: " + colour.text + "; }\n";
  }
  return css;
}

const char* const kStyle = R"(
:root { --fg: #1b1b1b; --muted: #5c5c5c; --rule: #d9d9d9; --bg: #ffffff; --panel: #f6f7f9; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--fg); background: var(--bg); margin: 0 auto; padding: 24px 32px 48px; max-width: 1600px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 32px 0 10px; border-bottom: 1px solid var(--rule); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.meta { color: var(--muted); margin: 0; }
.warning { color: #b00020; font-weight: 600; margin: .3em 0 0; }
.summary { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
.stat { background: var(--panel); border-radius: 6px; padding: 10px 14px; min-width: 150px; }
.stat b { display: block; font-size: 20px; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.charts > * { min-width: 0; max-width: 100%; }
@media (min-width: 1240px) { .charts { flex-wrap: nowrap; } }  /* side by side, a little smaller if need be */
figure { margin: 0; background: var(--panel); border-radius: 8px; padding: 12px; max-width: 100%; }
svg { max-width: 100%; height: auto; }
code { overflow-wrap: anywhere; }
figcaption { font-weight: 600; margin: 0 0 6px; }
figure p.note { color: var(--muted); margin: 6px 0 0; font-size: 12px; max-width: 580px; }
svg text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; fill: var(--fg); }
svg .axis-title { font-size: 13px; fill: #333; }
svg .tick { font-size: 11px; fill: var(--muted); }
svg .threshold-label { font-size: 11px; fill: #444; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--rule); text-align: right; white-space: nowrap; }
th { background: var(--panel); font-weight: 600; }
td.name, th.name, td.text, th.text { text-align: left; }
td.name, td.text { white-space: normal; }  /* names and words wrap, numbers never do */
td.name { overflow-wrap: anywhere; min-width: 10em; }  /* a kernel name may be one 120-character word */
td.name code { font-size: 13px; }
.verdict { display: inline-block; padding: 0 8px; border-radius: 10px; color: #fff; font-size: 12px; white-space: nowrap; }
.faster { color: #00795a; font-weight: 600; } .slower { color: #b34700; font-weight: 600; }
.noise, .same { color: var(--muted); }
.gate { padding: 10px 14px; border-radius: 6px; margin: 12px 0; font-weight: 600; }
.gate.passed { background: #e3f4ee; color: #00543e; } .gate.failed { background: #fbe7dc; color: #8a3600; }
ol.fix li { margin: 4px 0; }
article.kernel { border-top: 1px solid var(--rule); padding: 8px 0; }
h2 + article.kernel { border-top: 0; }  /* the heading's rule is the first divider */
article.kernel h3 code { font-size: 14px; }
article.kernel ul { margin: 4px 0; padding-left: 22px; }
.muted { color: var(--muted); }
)";

}  // namespace

void write_page_start(std::ostream& out, const std::string& title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << html_escape(title) << "</title>\n<style>" << kStyle << verdict_style()
      << "</style>\n</head>\n<body>\n";
}

void write_page_end(std::ostream& out) {
  out << "<footer class=\"muted\"><p>Written by limiter " << html_escape(tool_version())
      << ". Self-contained: no scripts, nothing loaded from the network.</p></footer>\n</body>\n</html>\n";
}

std::string verdict_badge(const std::optional<Verdict>& verdict, bool balanced) {
  return "<span class=\"verdict " + verdict_key(verdict) + "\">" + html_escape(verdict_label(verdict, balanced)) +
         "</span>";
}

}  // namespace limiter::html
