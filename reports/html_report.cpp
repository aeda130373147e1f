// One self-contained HTML file: inline CSS and SVG, no script, no fonts or images from the
// network, so it can be attached to a CI run or mailed. Charts: every kernel's position by
// memory against compute utilisation (coloured by verdict, with the verdict thresholds), the
// share of time per kernel, and the LMEM shares; then the tables and each kernel's advice.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <ostream>
#include <sstream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "limiter/rollup.hpp"
#include "render_helpers.hpp"

namespace limiter {
namespace {

using render::html_escape;
using render::short_name;
using render::verdict_key;
using render::verdict_label;

// Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
const char* verdict_fill(const std::optional<Verdict>& verdict) {
  if (!verdict) return "#8c8c8c";
  switch (*verdict) {
    case Verdict::bandwidth: return "#0072b2";
    case Verdict::instruction: return "#cc79a7";
    case Verdict::latency: return "#e69f00";
  }
  return "#8c8c8c";
}
const char* const kFasterFill = "#009e73";
const char* const kSlowerFill = "#d55e00";
const char* const kNeutralFill = "#8c8c8c";

std::string num(double value) { return format_fixed(value, 1); }

// Text width estimate for label placement (12 px sans-serif averages ~6.6 px per character).
double text_width(const std::string& text, double font_px = 12) {
  std::size_t characters = 0;
  for (unsigned char byte : text) characters += (byte & 0xC0) != 0x80;
  return static_cast<double>(characters) * font_px * 0.55 + 2;
}

std::string ellipsize(const std::string& text, std::size_t max_characters) {
  return text.size() <= max_characters ? text : text.substr(0, max_characters - 1) + "…";
}

const char* const kStyle = R"(
:root { --fg: #1b1b1b; --muted: #5c5c5c; --rule: #d9d9d9; --bg: #ffffff; --panel: #f6f7f9; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--fg); background: var(--bg); margin: 0 auto; padding: 24px 32px 48px; max-width: 1320px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 32px 0 10px; border-bottom: 1px solid var(--rule); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.meta { color: var(--muted); margin: 0; }
.summary { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
.stat { background: var(--panel); border-radius: 6px; padding: 10px 14px; min-width: 150px; }
.stat b { display: block; font-size: 20px; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
figure { margin: 0; background: var(--panel); border-radius: 8px; padding: 12px; }
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
td.name code { font-size: 13px; }
.verdict { display: inline-block; padding: 0 8px; border-radius: 10px; color: #fff; font-size: 12px; }
.verdict.bandwidth { background: #0072b2; } .verdict.instruction { background: #cc79a7; }
.verdict.latency { background: #e69f00; color: #1b1b1b; } .verdict.none { background: #8c8c8c; }
.faster { color: #00795a; font-weight: 600; } .slower { color: #b34700; font-weight: 600; }
.noise, .same { color: var(--muted); }
.gate { padding: 10px 14px; border-radius: 6px; margin: 12px 0; font-weight: 600; }
.gate.passed { background: #e3f4ee; color: #00543e; } .gate.failed { background: #fbe7dc; color: #8a3600; }
ol.fix li { margin: 4px 0; }
article.kernel { border-top: 1px solid var(--rule); padding: 8px 0; }
article.kernel h3 code { font-size: 14px; }
article.kernel ul { margin: 4px 0; padding-left: 22px; }
.muted { color: var(--muted); }
)";

void write_page_start(std::ostream& out, const std::string& title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << html_escape(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
}

void write_page_end(std::ostream& out) {
  out << "<footer class=\"muted\"><p>Written by limiter " << html_escape(tool_version())
      << ". Self-contained: no scripts, nothing loaded from the network.</p></footer>\n</body>\n</html>\n";
}

std::string verdict_badge(const std::optional<Verdict>& verdict, bool balanced = false) {
  return "<span class=\"verdict " + verdict_key(verdict) + "\">" + html_escape(verdict_label(verdict, balanced)) +
         "</span>";
}

// ---- the utilisation map: memory (x) against compute (y) -------------------------------------

struct MapPoint {
  double memory = 0, compute = 0;
  double radius = 6;
  std::string fill;
  std::string label;
  std::string tooltip;
  std::string css_class;  // verdict key, so tests and styles can find the points
};

struct MapArrow {  // before -> after, for comparisons
  double memory_before = 0, compute_before = 0, memory_after = 0, compute_after = 0;
  std::string fill;
};

struct Box {
  double x = 0, y = 0, width = 0, height = 0;
  bool overlaps(const Box& other) const {
    return x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height;
  }
  bool inside(const Box& area) const {
    return x >= area.x && y >= area.y && x + width <= area.x + area.width && y + height <= area.y + area.height;
  }
  // Whether the segment (x1,y1)-(x2,y2) crosses the box (Liang-Barsky clipping).
  bool crossed_by(double x1, double y1, double x2, double y2) const {
    double enter = 0, leave = 1;
    const double dx = x2 - x1, dy = y2 - y1;
    const double p[] = {-dx, dx, -dy, dy};
    const double q[] = {x1 - x, x + width - x1, y1 - y, y + height - y1};
    for (int i = 0; i < 4; ++i) {
      if (p[i] == 0) {
        if (q[i] < 0) return false;
        continue;
      }
      const double t = q[i] / p[i];
      if (p[i] < 0) enter = std::max(enter, t);
      else leave = std::min(leave, t);
      if (enter > leave) return false;
    }
    return true;
  }
};

class UtilizationMap {
 public:
  UtilizationMap(const Thresholds& thresholds, double axis_max) : thresholds_(thresholds), axis_max_(axis_max) {}

  double sx(double fraction) const { return kLeft + std::min(fraction, axis_max_) / axis_max_ * kPlotWidth; }
  double sy(double fraction) const { return kTop + kPlotHeight - std::min(fraction, axis_max_) / axis_max_ * kPlotHeight; }

  void write(std::ostream& out, std::vector<MapPoint> points, const std::vector<MapArrow>& arrows,
             const std::vector<std::pair<std::string, std::string>>& legend) const {
    out << "<svg id=\"utilization-map\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\""
        << kHeight << "\" viewBox=\"0 0 " << kWidth << " " << kHeight
        << "\" role=\"img\" aria-label=\"memory against compute utilisation per kernel\">\n";
    write_frame(out);
    out << "<defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
           "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#444\"/></marker></defs>\n";
    for (const auto& arrow : arrows) {
      out << "<line class=\"move\" x1=\"" << num(sx(arrow.memory_before)) << "\" y1=\"" << num(sy(arrow.compute_before))
          << "\" x2=\"" << num(sx(arrow.memory_after)) << "\" y2=\"" << num(sy(arrow.compute_after)) << "\" stroke=\""
          << arrow.fill << "\" stroke-width=\"1.6\" marker-end=\"url(#arrowhead)\"/>\n";
      out << "<circle class=\"before\" cx=\"" << num(sx(arrow.memory_before)) << "\" cy=\""
          << num(sy(arrow.compute_before)) << "\" r=\"4\" fill=\"none\" stroke=\"" << arrow.fill << "\"/>\n";
    }
    // Biggest first, so small points are drawn on top and the important labels get the best places.
    std::stable_sort(points.begin(), points.end(), [](const MapPoint& a, const MapPoint& b) { return a.radius > b.radius; });
    for (const auto& point : points) {
      out << "<circle class=\"kernel " << point.css_class << "\" cx=\"" << num(sx(point.memory)) << "\" cy=\""
          << num(sy(point.compute)) << "\" r=\"" << num(point.radius) << "\" fill=\"" << point.fill
          << "\" fill-opacity=\"0.85\" stroke=\"#fff\" stroke-width=\"1.5\"><title>" << html_escape(point.tooltip)
          << "</title></circle>\n";
    }
    write_labels(out, points, arrows);
    write_legend(out, legend);
    out << "</svg>\n";
  }

 private:
  static constexpr double kWidth = 580, kHeight = 504;
  static constexpr double kLeft = 60, kTop = 20, kPlotWidth = 500, kPlotHeight = 400;
  static constexpr std::size_t kMaxLabels = 16;

  void write_frame(std::ostream& out) const {
    const double latency = thresholds_.latency, high = thresholds_.high_utilization;
    const auto rect = [&](double x0, double y0, double x1, double y1, const char* fill, const char* name) {
      out << "<rect class=\"region " << name << "\" x=\"" << num(sx(x0)) << "\" y=\"" << num(sy(y1)) << "\" width=\""
          << num(sx(x1) - sx(x0)) << "\" height=\"" << num(sy(y0) - sy(y1)) << "\" fill=\"" << fill
          << "\" fill-opacity=\"0.10\"/>\n";
    };
    out << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kPlotWidth << "\" height=\"" << kPlotHeight
        << "\" fill=\"#fff\" stroke=\"#bbb\"/>\n";
    rect(0, 0, latency, latency, verdict_fill(Verdict::latency), "latency");
    rect(high, 0, axis_max_, axis_max_, verdict_fill(Verdict::bandwidth), "bandwidth");
    rect(0, high, high, axis_max_, verdict_fill(Verdict::instruction), "instruction");
    for (double tick = 0; tick <= axis_max_ + 1e-9; tick += 0.2) {
      out << "<line x1=\"" << num(sx(tick)) << "\" y1=\"" << kTop << "\" x2=\"" << num(sx(tick)) << "\" y2=\""
          << kTop + kPlotHeight << "\" stroke=\"#eee\"/>"
          << "<line x1=\"" << kLeft << "\" y1=\"" << num(sy(tick)) << "\" x2=\"" << kLeft + kPlotWidth << "\" y2=\""
          << num(sy(tick)) << "\" stroke=\"#eee\"/>\n"
          << "<text class=\"tick\" x=\"" << num(sx(tick)) << "\" y=\"" << kTop + kPlotHeight + 16
          << "\" text-anchor=\"middle\">" << format_percent(tick, 0) << "</text>"
          << "<text class=\"tick\" x=\"" << kLeft - 6 << "\" y=\"" << num(sy(tick) + 4) << "\" text-anchor=\"end\">"
          << format_percent(tick, 0) << "</text>\n";
    }
    for (double threshold : {latency, high}) {
      out << "<line class=\"threshold\" x1=\"" << num(sx(threshold)) << "\" y1=\"" << kTop << "\" x2=\""
          << num(sx(threshold)) << "\" y2=\"" << kTop + kPlotHeight
          << "\" stroke=\"#555\" stroke-dasharray=\"5 4\"/>\n"
          << "<line class=\"threshold\" x1=\"" << kLeft << "\" y1=\"" << num(sy(threshold)) << "\" x2=\""
          << kLeft + kPlotWidth << "\" y2=\"" << num(sy(threshold)) << "\" stroke=\"#555\" stroke-dasharray=\"5 4\"/>\n"
          << "<text class=\"threshold-label\" x=\"" << num(sx(threshold) + 3) << "\" y=\"" << kTop + 12 << "\">"
          << format_percent(threshold, 0) << "</text>"
          << "<text class=\"threshold-label\" x=\"" << kLeft + kPlotWidth - 4 << "\" y=\"" << num(sy(threshold) - 4)
          << "\" text-anchor=\"end\">" << format_percent(threshold, 0) << "</text>\n";
    }
    out << "<text class=\"axis-title\" x=\"" << kLeft + kPlotWidth / 2 << "\" y=\"" << kTop + kPlotHeight + 38
        << "\" text-anchor=\"middle\">memory utilisation: busiest of L2, DRAM, L1 (% of peak)</text>\n"
        << "<text class=\"axis-title\" transform=\"translate(16 " << kTop + kPlotHeight / 2
        << ") rotate(-90)\" text-anchor=\"middle\">compute utilisation: issue slots or busiest pipe (% of peak)</text>\n";
  }

  // Labels go next to their point, away from other points, labels and arrows; a label pushed
  // away from its point gets a leader line.
  void write_labels(std::ostream& out, const std::vector<MapPoint>& points, const std::vector<MapArrow>& arrows) const {
    const Box plot{kLeft, kTop, kPlotWidth, kPlotHeight};
    std::vector<Box> point_boxes, label_boxes;
    for (const auto& point : points)
      point_boxes.push_back({sx(point.memory) - point.radius, sy(point.compute) - point.radius, 2 * point.radius,
                             2 * point.radius});
    for (const auto& arrow : arrows)  // the hollow "before" circles
      label_boxes.push_back({sx(arrow.memory_before) - 5, sy(arrow.compute_before) - 5, 10, 10});
    const auto crosses_an_arrow = [&](const Box& box) {
      return std::any_of(arrows.begin(), arrows.end(), [&](const MapArrow& a) {
        return box.crossed_by(sx(a.memory_before), sy(a.compute_before), sx(a.memory_after), sy(a.compute_after));
      });
    };
    // Only the biggest points get a label, so a run of hundreds of kernels stays readable; the
    // others have their tooltip and their row in the table.
    for (std::size_t index = 0; index < std::min(points.size(), kMaxLabels); ++index) {
      const auto& point = points[index];
      const double cx = sx(point.memory), cy = sy(point.compute), r = point.radius;
      const double width = text_width(point.label), height = 14;
      // Candidate boxes: right, left, above, below, then right and left further up and down.
      std::vector<Box> candidates = {{cx + r + 4, cy - height / 2, width, height},
                                     {cx - r - 4 - width, cy - height / 2, width, height},
                                     {cx - width / 2, cy - r - 3 - height, width, height},
                                     {cx - width / 2, cy + r + 3, width, height}};
      for (double step = 1; step <= 6; ++step) {
        for (double direction : {-1.0, 1.0}) {
          candidates.push_back({cx + r + 4, cy - height / 2 + direction * step * (height + 2), width, height});
          candidates.push_back({cx - r - 4 - width, cy - height / 2 + direction * step * (height + 2), width, height});
        }
      }
      const Box* chosen = nullptr;
      for (const auto& candidate : candidates) {
        if (!candidate.inside(plot)) continue;
        const auto hits = [&](const Box& box) { return box.overlaps(candidate); };
        if (std::any_of(label_boxes.begin(), label_boxes.end(), hits)) continue;
        bool hits_other_point = false;
        for (std::size_t other = 0; other < point_boxes.size(); ++other)
          hits_other_point = hits_other_point || (other != index && hits(point_boxes[other]));
        if (hits_other_point || crosses_an_arrow(candidate)) continue;
        chosen = &candidate;
        break;
      }
      const Box box = chosen ? *chosen : candidates.front();
      const double text_y = box.y + height - 3;
      const bool far = std::fabs(box.y + height / 2 - cy) > r + 2;
      if (far) {  // a leader line says which point a displaced label belongs to
        const double lx = box.x > cx ? box.x - 1 : box.x + box.width + 1;
        out << "<line class=\"leader\" x1=\"" << num(cx) << "\" y1=\"" << num(cy) << "\" x2=\"" << num(lx) << "\" y2=\""
            << num(box.y + height / 2) << "\" stroke=\"#999\" stroke-width=\"0.8\"/>\n";
      }
      out << "<text class=\"point-label\" x=\"" << num(box.x) << "\" y=\"" << num(text_y) << "\" font-size=\"12\">"
          << html_escape(point.label) << "</text>\n";
      label_boxes.push_back(box);
    }
  }

  void write_legend(std::ostream& out, const std::vector<std::pair<std::string, std::string>>& legend) const {
    double x = kLeft;
    double y = kTop + kPlotHeight + 58;
    for (const auto& [fill, text] : legend) {
      if (x + 16 + text_width(text) > kWidth) {  // wrap onto a second row
        x = kLeft;
        y += 18;
      }
      out << "<g class=\"legend-item\"><circle cx=\"" << num(x + 6) << "\" cy=\"" << num(y - 4) << "\" r=\"6\" fill=\""
          << fill << "\"/><text x=\"" << num(x + 16) << "\" y=\"" << num(y) << "\" font-size=\"12\">" << html_escape(text)
          << "</text></g>\n";
      x += 28 + text_width(text);
    }
  }

  Thresholds thresholds_;
  double axis_max_;
};

// Axes run to 100 %, or further in steps of 20 % when a kernel is above (counter noise).
double axis_max_for(const std::vector<double>& values) {
  double largest = 1.0;
  for (double value : values) largest = std::max(largest, value);
  return std::min(2.0, std::ceil(largest / 0.2 - 1e-9) * 0.2);
}

std::vector<std::pair<std::string, std::string>> verdict_legend() {
  return {{verdict_fill(Verdict::bandwidth), "bandwidth-limited"},
          {verdict_fill(Verdict::instruction), "instruction-limited"},
          {verdict_fill(Verdict::latency), "latency-limited"},
          {verdict_fill(std::nullopt), "no verdict"}};
}

std::string kernel_label(const KernelAnalysis& k) { return "#" + std::to_string(k.sequence) + " " + ellipsize(short_name(k.name), 28); }

// ---- horizontal bar charts ---------------------------------------------------------------------

struct Bar {
  std::string label;
  std::optional<double> value;  // a fraction 0..1 (or a signed change for diverging bars)
  std::string fill;
  std::string value_text;
  std::string tooltip;
  std::string css_class;
};

// Bars from 0 to `axis_max`, or diverging from 0 to +-axis_max when `diverging`.
void write_bar_chart(std::ostream& out, const std::string& id, const std::vector<Bar>& bars, double axis_max,
                     bool diverging, const std::vector<std::pair<double, std::string>>& markers,
                     const std::string& aria_label) {
  const double label_width = 200, bar_width = 270, value_width = 110, row = 22, top = 22;
  const double width = label_width + bar_width + value_width;
  const double height = top + row * static_cast<double>(bars.size()) + 26;
  const double zero_x = diverging ? label_width + bar_width / 2 : label_width;
  const double scale = diverging ? bar_width / 2 / axis_max : bar_width / axis_max;
  out << "<svg id=\"" << id << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\"" << html_escape(aria_label)
      << "\">\n";
  // Ticks at a round step that gives at most five per side.
  double step = 0.5;
  for (double candidate : {0.05, 0.1, 0.2, 0.25, 0.5}) {
    if (axis_max / candidate <= 5 + 1e-9) {
      step = candidate;
      break;
    }
  }
  const int ticks_per_side = static_cast<int>(std::floor(axis_max / step + 1e-9));
  for (int tick = diverging ? -ticks_per_side : 0; tick <= ticks_per_side; ++tick) {
    const double value = step * tick;
    const double x = zero_x + value * scale;
    out << "<line x1=\"" << num(x) << "\" y1=\"" << top - 4 << "\" x2=\"" << num(x) << "\" y2=\""
        << num(height - 22) << "\" stroke=\"" << (tick == 0 ? "#888" : "#e4e4e4") << "\"/>"
        << "<text class=\"tick\" x=\"" << num(x) << "\" y=\"" << num(height - 8) << "\" text-anchor=\"middle\">"
        << (diverging && value > 0 ? "+" : "") << format_percent(value, 0) << "</text>\n";
  }
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& bar = bars[i];
    const double y = top + row * static_cast<double>(i);
    out << "<text x=\"" << label_width - 8 << "\" y=\"" << num(y + 15) << "\" text-anchor=\"end\" font-size=\"12\">"
        << html_escape(bar.label) << "</text>\n";
    if (!bar.value) {
      out << "<text class=\"tick\" x=\"" << num(zero_x + 4) << "\" y=\"" << num(y + 15) << "\">n/a</text>\n";
      continue;
    }
    const double clamped = std::clamp(*bar.value, diverging ? -axis_max : 0.0, axis_max);
    const double x0 = std::min(zero_x, zero_x + clamped * scale);
    const double length = std::max(1.0, std::fabs(clamped * scale));
    out << "<rect class=\"bar " << bar.css_class << "\" x=\"" << num(x0) << "\" y=\"" << num(y + 4) << "\" width=\""
        << num(length) << "\" height=\"" << row - 8 << "\" fill=\"" << bar.fill << "\"><title>" << html_escape(bar.tooltip)
        << "</title></rect>\n";
    const double text_x = diverging ? label_width + bar_width + 6 : x0 + length + 6;
    out << "<text x=\"" << num(text_x) << "\" y=\"" << num(y + 15) << "\" font-size=\"12\">" << html_escape(bar.value_text)
        << "</text>\n";
  }
  for (const auto& [value, text] : markers) {
    const double x = zero_x + value * scale;
    out << "<line class=\"threshold\" x1=\"" << num(x) << "\" y1=\"" << top - 6 << "\" x2=\"" << num(x) << "\" y2=\""
        << num(height - 22) << "\" stroke=\"#b33\" stroke-dasharray=\"4 3\"/>"
        << "<text class=\"threshold-label\" x=\"" << num(x + 3) << "\" y=\"" << top - 8 << "\">" << html_escape(text)
        << "</text>\n";
  }
  out << "</svg>\n";
}

// The run's time as one stacked bar, by verdict.
void write_verdict_bar(std::ostream& out, const RunRollup& rollup) {
  const double width = 700, bar_height = 26;
  out << "<svg id=\"time-by-verdict\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"58\" "
      << "viewBox=\"0 0 " << width << " 58\" role=\"img\" aria-label=\"share of time by verdict\">\n";
  double x = 0, legend_x = 0;
  for (const auto& entry : rollup.time_by_verdict) {
    if (entry.launches == 0) continue;
    const double share = entry.time_share.value_or(0);
    out << "<rect class=\"segment " << verdict_key(entry.verdict) << "\" x=\"" << num(x) << "\" y=\"0\" width=\""
        << num(share * width) << "\" height=\"" << bar_height << "\" fill=\"" << verdict_fill(entry.verdict) << "\"><title>"
        << html_escape(verdict_label(entry.verdict) + ": " + format_percent(entry.time_share, 1) + " of the time, " +
                       std::to_string(entry.launches) + " launches")
        << "</title></rect>\n";
    x += share * width;
    const std::string text = verdict_label(entry.verdict) + " " + format_percent(entry.time_share, 0) + " (" +
                             std::to_string(entry.launches) + ")";
    out << "<rect x=\"" << num(legend_x) << "\" y=\"38\" width=\"12\" height=\"12\" fill=\"" << verdict_fill(entry.verdict)
        << "\"/><text x=\"" << num(legend_x + 16) << "\" y=\"49\" font-size=\"12\">" << html_escape(text) << "</text>\n";
    legend_x += 34 + text_width(text);
  }
  out << "</svg>\n";
}

// Labels for roll-up groups; a name shared by several configurations gets its grid size.
std::vector<std::string> group_labels(const RunRollup& rollup) {
  std::map<std::string, int> uses;
  for (const auto& group : rollup.groups) ++uses[short_name(group.name)];
  std::vector<std::string> labels;
  for (const auto& group : rollup.groups) {
    std::string label = ellipsize(short_name(group.name), 30);
    if (uses[short_name(group.name)] > 1 && group.block.count() > 0)
      label += " " + render::dim3_text(group.grid) + "x" + render::dim3_text(group.block);
    labels.push_back(label);
  }
  return labels;
}

constexpr std::size_t kChartRows = 14;  // bars per chart; the rest is summed as "other"

void write_time_chart(std::ostream& out, const RunRollup& rollup) {
  const auto labels = group_labels(rollup);
  std::vector<Bar> bars;
  double other_share = 0;
  std::size_t other_groups = 0;
  for (std::size_t i = 0; i < rollup.groups.size(); ++i) {
    const auto& group = rollup.groups[i];
    if (bars.size() + 1 >= kChartRows && rollup.groups.size() > kChartRows) {
      other_share += group.time_share.value_or(0);
      ++other_groups;
      continue;
    }
    Bar bar;
    bar.label = labels[i] + (group.launches() > 1 ? " ×" + std::to_string(group.launches()) : "");
    bar.value = group.time_share;
    bar.fill = verdict_fill(group.main_verdict);
    bar.css_class = verdict_key(group.main_verdict);
    bar.value_text = format_percent(group.time_share, 1) + "  " + render::duration_text(group.durations.total_ns);
    bar.tooltip = group.name + ": " + std::to_string(group.launches()) + " launches, " +
                  render::verdict_mix_text(group.verdicts);
    bars.push_back(bar);
  }
  if (other_groups > 0) {
    bars.push_back({"other " + std::to_string(other_groups) + " kernels", other_share, kNeutralFill,
                    format_percent(other_share, 1), "", "none"});
  }
  double largest = 0.1;
  for (const auto& bar : bars) largest = std::max(largest, bar.value.value_or(0));
  write_bar_chart(out, "time-share", bars, std::min(1.0, std::ceil(largest / 0.1 - 1e-9) * 0.1), false, {},
                  "share of the run's time per kernel");
}

void write_lmem_chart(std::ostream& out, const RunAnalysis& analysis) {
  std::vector<std::size_t> order(analysis.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return analysis.kernels[a].duration_ns.value_or(-1) > analysis.kernels[b].duration_ns.value_or(-1);
  });
  if (order.size() > kChartRows / 2) order.resize(kChartRows / 2);
  std::vector<Bar> bars;
  for (std::size_t index : order) {
    const auto& k = analysis.kernels[index];
    const std::string upper = k.lmem.l2_share_is_upper_bound ? "≤" : "";
    bars.push_back({kernel_label(k) + " · L2", k.lmem.l2_share, "#3b6e8f", upper + format_percent(k.lmem.l2_share, 1),
                    "LMEM share of L1-L2 traffic", "lmem-l2"});
    bars.push_back({"instructions", k.lmem.instruction_share, "#9fc3d9", format_percent(k.lmem.instruction_share, 1),
                    "LMEM share of issued instructions", "lmem-inst"});
  }
  write_bar_chart(out, "lmem-shares", bars, 1.0, false,
                  {{analysis.thresholds.lmem_significant, format_percent(analysis.thresholds.lmem_significant, 0) +
                                                              " significant"}},
                  "local memory share of L2 traffic and of instructions per kernel");
}

void write_map(std::ostream& out, const RunAnalysis& analysis, const RunRollup& rollup) {
  std::vector<MapPoint> points;
  std::vector<std::string> not_plotted;
  std::vector<double> extents;
  for (const auto& k : analysis.kernels) {
    const auto memory = k.utilization.memory(), compute = k.utilization.compute();
    if (!memory || !compute) {
      not_plotted.push_back(kernel_label(k));
      continue;
    }
    const double share = k.duration_ns && rollup.total_ns > 0 ? *k.duration_ns / rollup.total_ns : 0;
    MapPoint point;
    point.memory = *memory;
    point.compute = *compute;
    point.radius = 5 + 16 * std::sqrt(share);
    point.fill = verdict_fill(k.verdict);
    point.css_class = verdict_key(k.verdict);
    point.label = kernel_label(k);
    point.tooltip = k.name + "\n" + verdict_label(k) + ": " + k.verdict_reason + "\nmemory " + format_percent(memory) +
                    ", compute " + format_percent(compute) + ", time " + render::duration_text(k.duration_ns);
    points.push_back(point);
    extents.push_back(*memory);
    extents.push_back(*compute);
  }
  UtilizationMap(analysis.thresholds, axis_max_for(extents)).write(out, points, {}, verdict_legend());
  out << "<p class=\"note\">Dashed lines: the verdict thresholds. Below " << format_percent(analysis.thresholds.latency, 0)
      << " on both axes a kernel is latency-limited; at or above " << format_percent(analysis.thresholds.high_utilization, 0)
      << " that side limits it; in between, the side that leads. Circle area: share of the run's time.</p>\n";
  if (!not_plotted.empty()) {
    out << "<p class=\"note\">Not plotted (the counters give no utilisation): ";
    for (std::size_t i = 0; i < not_plotted.size(); ++i) out << (i ? ", " : "") << html_escape(not_plotted[i]);
    out << "</p>\n";
  }
}

void write_kernel_table(std::ostream& out, const RunAnalysis& analysis, const RunRollup& rollup) {
  std::vector<std::size_t> order(analysis.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return analysis.kernels[a].duration_ns.value_or(-1) > analysis.kernels[b].duration_ns.value_or(-1);
  });
  out << "<table id=\"kernels\">\n<thead><tr><th>#</th><th class=\"name\">kernel</th><th>time</th><th>time %</th>"
         "<th class=\"text\">verdict</th><th class=\"text\">limiting unit</th><th>issue</th><th>L2</th><th>DRAM</th>"
         "<th>LMEM-L2</th><th>LMEM-inst</th><th>occ.</th></tr></thead>\n<tbody>\n";
  for (std::size_t index : order) {
    const auto& k = analysis.kernels[index];
    const auto occupancy = k.occupancy.theoretical ? std::optional<double>(k.occupancy.theoretical->occupancy)
                                                   : std::nullopt;
    const auto share = k.duration_ns && rollup.total_ns > 0 ? std::optional<double>(*k.duration_ns / rollup.total_ns)
                                                             : std::nullopt;
    out << "<tr><td>" << k.sequence << "</td><td class=\"name\"><a href=\"#kernel-" << k.sequence << "\"><code>"
        << html_escape(short_name(k.name)) << "</code></a></td><td>" << render::duration_text(k.duration_ns) << "</td><td>"
        << format_percent(share, 0) << "</td><td class=\"text\">" << verdict_badge(k.verdict, k.balanced)
        << "</td><td class=\"text\">" << html_escape(k.limiting_unit) << "</td><td>" << format_percent(k.utilization.issue, 0)
        << "</td><td>" << format_percent(k.utilization.l2, 0) << "</td><td>" << format_percent(k.utilization.dram, 0)
        << "</td><td>" << (k.lmem.l2_share_is_upper_bound ? "≤" : "") << format_percent(k.lmem.l2_share, 1) << "</td><td>"
        << format_percent(k.lmem.instruction_share, 1) << "</td><td>" << format_percent(occupancy, 0) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

void write_group_table(std::ostream& out, const RunRollup& rollup) {
  if (!rollup.has_repeated_launches()) {
    out << "<p class=\"muted\">Each kernel and launch configuration was launched once.</p>\n";
    return;
  }
  out << "<table id=\"groups\">\n<thead><tr><th class=\"name\">kernel</th><th class=\"text\">grid × block</th>"
         "<th>launches</th><th>total</th><th>mean</th><th>min</th><th>max</th><th>time %</th>"
         "<th class=\"text\">verdicts</th></tr></thead>\n<tbody>\n";
  for (const auto& group : rollup.groups) {
    out << "<tr><td class=\"name\"><code>" << html_escape(short_name(group.name)) << "</code></td><td class=\"text\">"
        << (group.block.count() > 0 ? render::dim3_text(group.grid) + " × " + render::dim3_text(group.block) : "—")
        << "</td><td>" << group.launches() << "</td><td>" << render::precise_duration_text(group.durations.total_ns)
        << "</td><td>" << render::precise_duration_text(group.durations.mean_ns) << "</td><td>"
        << render::precise_duration_text(group.durations.min_ns) << "</td><td>"
        << render::precise_duration_text(group.durations.max_ns) << "</td><td>"
        << format_percent(group.time_share, 0) << "</td><td class=\"text\">"
        << html_escape(render::verdict_mix_text(group.verdicts)) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

void write_kernel_article(std::ostream& out, const KernelAnalysis& k) {
  out << "<article class=\"kernel\" id=\"kernel-" << k.sequence << "\">\n<h3>[" << k.sequence << "] <code>"
      << html_escape(k.name) << "</code></h3>\n<p>" << verdict_badge(k.verdict, k.balanced) << " ";
  const auto configuration = render::launch_configuration_text(k.grid, k.block);
  if (!configuration.empty()) out << html_escape(configuration);
  if (k.registers_per_thread) out << (configuration.empty() ? "" : ", ") << *k.registers_per_thread << " registers";
  out << "</p>\n<p>" << html_escape(k.verdict_reason) << "</p>\n<ul>\n";
  if (k.lmem.l2_sectors.value_or(0) > 0 || k.lmem.instruction_share.value_or(0) > 0) {
    out << "<li>LMEM: " << format_percent(k.lmem.l2_share) << " of L1-L2 traffic";
    if (k.lmem.l2_share_is_upper_bound)
      out << " (upper bound; at least " << format_percent(k.lmem.l2_share_lower_bound) << ")";
    out << ", seed estimate " << format_percent(k.lmem.l2_share_seed) << "; " << format_percent(k.lmem.instruction_share)
        << " of instructions; L1 hit rate ld " << format_percent(k.lmem.l1_load_hit_rate) << " / st "
        << format_percent(k.lmem.l1_store_hit_rate) << "</li>\n";
  }
  for (const auto& warning : k.lmem.warnings) out << "<li>warning: " << html_escape(warning) << "</li>\n";
  if (k.ncu_verdict) {
    out << "<li>ncu SOL: SM " << format_fixed(*k.ncu_sm_throughput, 1) << "%, memory "
        << format_fixed(*k.ncu_memory_throughput, 1) << "% → " << to_string(*k.ncu_verdict)
        << (k.verdict && *k.verdict == *k.ncu_verdict ? " (agrees)" : " (<b>differs</b>)") << "</li>\n";
  }
  for (const auto& advice : k.advice) out << "<li>" << html_escape(advice) << "</li>\n";
  out << "</ul>\n</article>\n";
}

}  // namespace

void write_html_report(const RunAnalysis& analysis, std::ostream& out) {
  const RunRollup rollup = rollup_run(analysis);
  write_page_start(out, "limiter report — " + render::device_text(analysis.device));
  out << "<header>\n<h1>limiter report — " << html_escape(render::device_text(analysis.device)) << "</h1>\n"
      << "<p class=\"meta\">source: " << html_escape(analysis.source.empty() ? "?" : analysis.source) << ", "
      << html_escape(to_string(analysis.counter_model)) << " counters; peaks: " << html_escape(to_string(analysis.peaks))
      << " (" << html_escape(analysis.peaks_origin) << ")</p>\n</header>\n";

  out << "<section class=\"summary\">\n<div class=\"stat\"><b>" << format_duration_ns(rollup.total_ns)
      << "</b>kernel time</div>\n<div class=\"stat\"><b>" << rollup.launches << "</b>launches of " << rollup.groups.size()
      << " kernel configurations</div>\n</section>\n";
  out << "<h2>Time by verdict</h2>\n";
  write_verdict_bar(out, rollup);

  if (!rollup.fix_first.empty()) {
    out << "<h2>What to fix first</h2>\n<ol class=\"fix\">\n";
    for (const auto& item : rollup.fix_first) {
      const auto& group = rollup.groups[item.group];
      const auto& k = analysis.kernels[item.representative];
      out << "<li><a href=\"#kernel-" << k.sequence << "\"><code>" << html_escape(short_name(group.name)) << "</code> ["
          << k.sequence << "]</a> — " << render::duration_text(group.durations.total_ns) << " ("
          << format_percent(group.time_share, 0) << ") " << verdict_badge(item.verdict) << " "
          << html_escape(item.headline) << "</li>\n";
    }
    out << "</ol>\n";
  }

  out << "<h2>Charts</h2>\n<div class=\"charts\">\n<figure>\n<figcaption>What limits each kernel</figcaption>\n";
  write_map(out, analysis, rollup);
  out << "</figure>\n<div>\n<figure>\n<figcaption>Share of the run's time per kernel</figcaption>\n";
  write_time_chart(out, rollup);
  out << "<p class=\"note\">Colour: the verdict of most of the kernel's time; ×N: launches grouped.</p>\n</figure>\n"
      << "<figure style=\"margin-top: 24px\">\n<figcaption>Local memory (LMEM) share of L1-L2 traffic and of "
         "instructions</figcaption>\n";
  write_lmem_chart(out, analysis);
  out << "<p class=\"note\">Most expensive kernels first. Bandwidth-limited kernels: the L2 share matters; "
         "instruction-limited: the instruction share (seed 001).</p>\n</figure>\n</div>\n</div>\n";

  out << "<h2>Kernels</h2>\n";
  write_kernel_table(out, analysis, rollup);
  out << "<h2>Launches grouped by kernel and configuration</h2>\n";
  write_group_table(out, rollup);

  std::vector<std::size_t> order(analysis.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return analysis.kernels[a].duration_ns.value_or(-1) > analysis.kernels[b].duration_ns.value_or(-1);
  });
  out << "<h2>Reasons and advice per kernel</h2>\n";
  for (std::size_t index : order) write_kernel_article(out, analysis.kernels[index]);
  write_page_end(out);
}

// ---- comparison ---------------------------------------------------------------------------------

namespace {

const char* change_fill(const std::string& kind) {
  if (kind == "faster") return kFasterFill;
  if (kind == "slower") return kSlowerFill;
  return kNeutralFill;
}

std::string arrow_text(const std::string& before, const std::string& after) {
  return render::before_after_text(before, after, " → ");
}

std::string total_text(const TimeChange& time) {
  return render::precise_duration_text(time.before_ns) + " → " + render::precise_duration_text(time.after_ns) + " (" +
         render::change_percent_text(time.change) + ", " + render::speed_factor_text(time.ratio) + ")";
}

void write_change_chart(std::ostream& out, const RunComparison& comparison, const std::vector<std::size_t>& order) {
  std::vector<Bar> bars;
  double largest = 0.1;
  for (std::size_t index : order) {
    if (bars.size() >= kChartRows) break;
    const auto& k = comparison.matched[index];
    const std::string kind = render::change_kind(k);
    bars.push_back({std::to_string(k.before.sequence) + "→" + std::to_string(k.after.sequence) + " " +
                        ellipsize(short_name(k.before.name), 26),
                    k.time.change, change_fill(kind),
                    render::change_percent_text(k.time.change) + (kind == "noise" ? " noise" : ""),
                    render::precise_duration_text(k.time.before_ns) + " → " +
                        render::precise_duration_text(k.time.after_ns),
                    kind});
    if (k.time.change) largest = std::max(largest, std::fabs(*k.time.change));
  }
  std::vector<std::pair<double, std::string>> markers;
  if (comparison.max_slowdown) markers.push_back({*comparison.max_slowdown, "+" + format_percent(*comparison.max_slowdown, 0) + " gate"});
  const double axis = std::min(2.0, std::ceil(std::max(largest, comparison.max_slowdown.value_or(0)) / 0.1 - 1e-9) * 0.1);
  write_bar_chart(out, "time-change", bars, axis, true, markers, "time change per matched kernel");
}

void write_movement_map(std::ostream& out, const RunComparison& comparison) {
  std::vector<MapPoint> points;
  std::vector<MapArrow> arrows;
  std::vector<double> extents;
  for (const auto& k : comparison.matched) {
    const auto mb = k.before.utilization.memory(), cb = k.before.utilization.compute();
    const auto ma = k.after.utilization.memory(), ca = k.after.utilization.compute();
    if (!ma || !ca) continue;
    MapPoint point;
    point.memory = *ma;
    point.compute = *ca;
    point.radius = 6;
    point.fill = verdict_fill(k.after.verdict);
    point.css_class = verdict_key(k.after.verdict);
    point.label = kernel_label(k.after);
    point.tooltip = k.after.name + "\n" + arrow_text(verdict_label(k.before), verdict_label(k.after)) + ", time " +
                    render::change_percent_text(k.time.change);
    points.push_back(point);
    extents.insert(extents.end(), {*ma, *ca});
    if (mb && cb && (std::fabs(*mb - *ma) > 0.005 || std::fabs(*cb - *ca) > 0.005)) {
      arrows.push_back({*mb, *cb, *ma, *ca, change_fill(render::change_kind(k))});
      extents.insert(extents.end(), {*mb, *cb});
    }
  }
  auto legend = verdict_legend();
  legend.push_back({kFasterFill, "moved, faster"});
  legend.push_back({kSlowerFill, "moved, slower"});
  UtilizationMap(comparison.thresholds, axis_max_for(extents)).write(out, points, arrows, legend);
  out << "<p class=\"note\">Arrows run from a kernel's position before to after; colour of the dot: its verdict "
         "after. Dashed lines: the verdict thresholds.</p>\n";
}

void write_unmatched_table(std::ostream& out, const std::string& id, const std::vector<KernelAnalysis>& kernels) {
  if (kernels.empty()) {
    out << "<p class=\"muted\">none</p>\n";
    return;
  }
  out << "<table id=\"" << id << "\">\n<thead><tr><th>#</th><th class=\"name\">kernel</th><th class=\"text\">grid × block</th>"
         "<th>time</th><th class=\"text\">verdict</th></tr></thead>\n<tbody>\n";
  for (const auto& k : kernels) {
    out << "<tr><td>" << k.sequence << "</td><td class=\"name\"><code>" << html_escape(short_name(k.name))
        << "</code></td><td class=\"text\">"
        << (k.block.count() > 0 ? render::dim3_text(k.grid) + " × " + render::dim3_text(k.block) : "—") << "</td><td>"
        << render::precise_duration_text(k.duration_ns) << "</td><td class=\"text\">" << verdict_badge(k.verdict, k.balanced)
        << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

}  // namespace

void write_html_comparison(const RunComparison& comparison, std::ostream& out) {
  write_page_start(out, "limiter compare — " + comparison.before_label + " → " + comparison.after_label);
  const auto& totals = comparison.totals;
  out << "<header>\n<h1>limiter compare</h1>\n<p class=\"meta\">before: <code>" << html_escape(comparison.before_label)
      << "</code> · after: <code>" << html_escape(comparison.after_label) << "</code> · "
      << html_escape(render::device_text(comparison.before_device));
  if (render::device_text(comparison.after_device) != render::device_text(comparison.before_device))
    out << " → " << html_escape(render::device_text(comparison.after_device)) << " (different GPUs: times are not comparable)";
  out << "</p>\n</header>\n";

  out << "<section class=\"summary\">\n<div class=\"stat\"><b>" << render::change_percent_text(totals.all.change)
      << "</b>total time: " << html_escape(total_text(totals.all)) << "</div>\n<div class=\"stat\"><b>"
      << comparison.matched.size() << "</b>matched launches (" << totals.before_launches << " before, "
      << totals.after_launches << " after)</div>\n<div class=\"stat\"><b>" << comparison.only_before.size() << " / "
      << comparison.only_after.size() << "</b>only before / only after</div>\n</section>\n";
  if (comparison.max_slowdown) {
    const std::string limit = format_percent(*comparison.max_slowdown, 1);
    if (comparison.failed()) {
      out << "<div class=\"gate failed\">Gate failed: slower by more than " << limit << ":";
      if (totals.slower_than_limit) out << " the total (" << render::change_percent_text(totals.all.change) << ")";
      for (const auto& k : comparison.matched) {
        if (k.slower_than_limit)
          out << " <code>" << html_escape(short_name(k.before.name)) << "</code> [" << k.before.sequence << "] ("
              << render::change_percent_text(k.time.change) << ")";
      }
      out << "</div>\n";
    } else {
      out << "<div class=\"gate passed\">Gate passed: no matched kernel and not the total slower by more than " << limit
          << ".</div>\n";
    }
  }

  const auto order = render::comparison_display_order(comparison);
  out << "<h2>Charts</h2>\n<div class=\"charts\">\n<figure>\n<figcaption>Time change per matched kernel</figcaption>\n";
  write_change_chart(out, comparison, order);
  out << "<p class=\"note\">Most changed first. Grey: within the launches' spread (noise) or unchanged.</p>\n</figure>\n"
      << "<figure>\n<figcaption>Where each kernel moved (before ○ → after ●)</figcaption>\n";
  write_movement_map(out, comparison);
  out << "</figure>\n</div>\n";

  out << "<h2>Matched kernels</h2>\n<table id=\"matched\">\n<thead><tr><th class=\"text\">#</th><th class=\"name\">kernel</th>"
         "<th>before</th><th>after</th><th>change</th><th class=\"text\">speed</th><th class=\"text\">verdict</th>"
         "<th>issue</th><th>L2</th><th>DRAM</th><th>LMEM-L2</th><th>LMEM-inst</th></tr></thead>\n<tbody>\n";
  for (std::size_t index : order) {
    const auto& k = comparison.matched[index];
    const std::string kind = render::change_kind(k);
    const auto percents = [](const std::optional<double>& before, const std::optional<double>& after, int decimals) {
      return arrow_text(format_percent(before, decimals), format_percent(after, decimals));
    };
    out << "<tr><td class=\"text\">" << k.before.sequence << "→" << k.after.sequence << "</td><td class=\"name\"><code>"
        << html_escape(short_name(k.before.name)) << "</code></td><td>" << render::precise_duration_text(k.time.before_ns)
        << "</td><td>" << render::precise_duration_text(k.time.after_ns) << "</td><td class=\"" << kind << "\">"
        << render::change_percent_text(k.time.change) << (kind == "noise" ? " (noise)" : "")
        << (k.slower_than_limit ? " ✗" : "") << "</td><td class=\"text\">" << render::speed_factor_text(k.time.ratio)
        << "</td><td class=\"text\">" << verdict_badge(k.before.verdict, k.before.balanced);
    if (k.verdict_changed) out << " → " << verdict_badge(k.after.verdict, k.after.balanced);
    out << "</td><td>" << percents(k.before.utilization.issue, k.after.utilization.issue, 0) << "</td><td>"
        << percents(k.before.utilization.l2, k.after.utilization.l2, 0) << "</td><td>"
        << percents(k.before.utilization.dram, k.after.utilization.dram, 0) << "</td><td>"
        << percents(k.before.lmem.l2_share, k.after.lmem.l2_share, 1) << "</td><td>"
        << percents(k.before.lmem.instruction_share, k.after.lmem.instruction_share, 1) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  if (std::any_of(comparison.matched.begin(), comparison.matched.end(),
                  [](const KernelComparison& k) { return k.within_noise; })) {
    out << "<p class=\"muted\">noise: the kernel has several launches and the change lies within their min..max on "
           "one side.</p>\n";
  }
  out << "<h2>Only in before</h2>\n";
  write_unmatched_table(out, "only-before", comparison.only_before);
  out << "<h2>Only in after</h2>\n";
  write_unmatched_table(out, "only-after", comparison.only_after);
  write_page_end(out);
}

}  // namespace limiter
