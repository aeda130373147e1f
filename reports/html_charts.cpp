// SVG charts for the HTML reports: the utilisation map (memory against compute, with the
// verdict thresholds; labels placed clear of points, other labels and arrows), horizontal bar
// charts, and the run's time as one bar split by verdict.
#include <algorithm>
#include <cmath>
#include <ostream>

#include "html_parts.hpp"
#include "limiter/format.hpp"
#include "render_helpers.hpp"

namespace limiter::html {

using render::html_escape;
using render::verdict_key;
using render::verdict_label;

namespace {

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
      if (p[i] < 0)
        enter = std::max(enter, t);
      else
        leave = std::min(leave, t);
      if (enter > leave) return false;
    }
    return true;
  }
};

class UtilizationMap {
 public:
  UtilizationMap(const Thresholds& thresholds, double axis_max) : thresholds_(thresholds), axis_max_(axis_max) {}

  double sx(double fraction) const { return kLeft + std::min(fraction, axis_max_) / axis_max_ * kPlotWidth; }
  double sy(double fraction) const {
    return kTop + kPlotHeight - std::min(fraction, axis_max_) / axis_max_ * kPlotHeight;
  }

  void write(std::ostream& out, std::vector<MapPoint> points, const std::vector<MapArrow>& arrows,
             const std::vector<std::pair<std::string, std::string>>& legend) const {
    out << "<svg id=\"utilization-map\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\""
        << kHeight << "\" viewBox=\"0 0 " << kWidth << " " << kHeight
        << "\" role=\"img\" aria-label=\"memory against compute utilisation per kernel\">\n";
    write_frame(out);
    out << "<defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
           "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
           "fill=\"#444\"/></marker></defs>\n";
    for (const auto& arrow : arrows) {
      out << "<line class=\"move\" x1=\"" << num(sx(arrow.memory_before)) << "\" y1=\"" << num(sy(arrow.compute_before))
          << "\" x2=\"" << num(sx(arrow.memory_after)) << "\" y2=\"" << num(sy(arrow.compute_after)) << "\" stroke=\""
          << arrow.fill << "\" stroke-width=\"1.6\" marker-end=\"url(#arrowhead)\"/>\n";
      out << "<circle class=\"before\" cx=\"" << num(sx(arrow.memory_before)) << "\" cy=\""
          << num(sy(arrow.compute_before)) << "\" r=\"4\" fill=\"none\" stroke=\"" << arrow.fill << "\"/>\n";
    }
    // Biggest first, so small points are drawn on top and the important labels get the best places.
    std::stable_sort(points.begin(), points.end(),
                     [](const MapPoint& a, const MapPoint& b) { return a.radius > b.radius; });
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
          << "\" text-anchor=\"middle\">" << format_percent(tick, 0) << "</text>";
      if (tick > 0)  // one "0%" in the corner, the x axis's
        out << "<text class=\"tick\" x=\"" << kLeft - 6 << "\" y=\"" << num(sy(tick) + 4) << "\" text-anchor=\"end\">"
            << format_percent(tick, 0) << "</text>";
      out << "\n";
    }
    for (double threshold : {latency, high}) {
      out << "<line class=\"threshold\" x1=\"" << num(sx(threshold)) << "\" y1=\"" << kTop << "\" x2=\""
          << num(sx(threshold)) << "\" y2=\"" << kTop + kPlotHeight << "\" stroke=\"#555\" stroke-dasharray=\"5 4\"/>\n"
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
        << ") rotate(-90)\" text-anchor=\"middle\">compute utilisation: issue slots or busiest pipe (% of "
           "peak)</text>\n";
  }

  // Labels go next to their point, away from other points, labels and arrows; a label pushed
  // away from its point gets a leader line.
  void write_labels(std::ostream& out, const std::vector<MapPoint>& points, const std::vector<MapArrow>& arrows) const {
    const Box plot{kLeft, kTop, kPlotWidth, kPlotHeight};
    std::vector<Box> point_boxes, label_boxes;
    for (const auto& point : points)
      point_boxes.push_back(
          {sx(point.memory) - point.radius, sy(point.compute) - point.radius, 2 * point.radius, 2 * point.radius});
    for (const auto& arrow : arrows)  // the hollow "before" circles
      label_boxes.push_back({sx(arrow.memory_before) - 5, sy(arrow.compute_before) - 5, 10, 10});
    for (double threshold : {thresholds_.latency, thresholds_.high_utilization}) {  // the threshold labels
      const std::string text = format_percent(threshold, 0);
      label_boxes.push_back({sx(threshold) + 2, kTop, text_width(text, 11) + 2, 15});
      label_boxes.push_back(
          {kLeft + kPlotWidth - 5 - text_width(text, 11), sy(threshold) - 16, text_width(text, 11) + 2, 15});
    }
    const auto crosses_an_arrow = [&](const Box& box) {
      return std::any_of(arrows.begin(), arrows.end(), [&](const MapArrow& a) {
        return box.crossed_by(sx(a.memory_before), sy(a.compute_before), sx(a.memory_after), sy(a.compute_after));
      });
    };
    // Only the biggest points that have a label get one (kMapLabels), so a run of hundreds of
    // kernels stays readable; the others have their tooltip and their row in the table.
    std::size_t labelled = 0;
    for (std::size_t index = 0; index < points.size() && labelled < kMapLabels; ++index) {
      const auto& point = points[index];
      if (point.label.empty()) continue;
      const double cx = sx(point.memory), cy = sy(point.compute), r = point.radius;
      const double width = text_width(point.label), height = 15;
      // Candidate boxes: right, left, above, below, then right and left further up and down.
      std::vector<Box> candidates = {{cx + r + 4, cy - height / 2, width, height},
                                     {cx - r - 4 - width, cy - height / 2, width, height},
                                     {cx - width / 2, cy - r - 3 - height, width, height},
                                     {cx - width / 2, cy + r + 3, width, height}};
      for (double step = 1; step <= 10; ++step) {
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
      if (!chosen) continue;  // no free place: the point keeps its tooltip, the kernel its table row
      const Box box = *chosen;
      const double text_y = box.y + height - 3.5;
      const bool far = std::fabs(box.y + height / 2 - cy) > r + 2;
      if (far) {  // a leader line says which point a displaced label belongs to
        const double lx = box.x > cx ? box.x - 1 : box.x + box.width + 1;
        out << "<line class=\"leader\" x1=\"" << num(cx) << "\" y1=\"" << num(cy) << "\" x2=\"" << num(lx) << "\" y2=\""
            << num(box.y + height / 2) << "\" stroke=\"#999\" stroke-width=\"0.8\"/>\n";
      }
      ++labelled;
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
          << fill << "\"/><text x=\"" << num(x + 16) << "\" y=\"" << num(y) << "\" font-size=\"12\">"
          << html_escape(text) << "</text></g>\n";
      x += 28 + text_width(text);
    }
  }

  Thresholds thresholds_;
  double axis_max_;
};

// The smallest round step (1, 2, 2.5 or 5 times a power of ten, in whole percents) whose tick
// labels stand apart at PX_PER_UNIT: each at least its widest label plus a gap from the next, and
// at most five a side. A fixed count of steps put "+150%" on "+200%" on a +-200 % axis.
double tick_step(double axis_min, double axis_max, double px_per_unit) {
  const double widest = std::max(text_width((axis_min < 0 ? "+" : "") + format_percent(axis_max, 0), 11),
                                 text_width(format_percent(axis_min, 0), 11));
  const double side = std::max(axis_max, -axis_min);
  for (double power = 0.01; power < 1e6; power *= 10) {
    for (double mantissa : {1.0, 2.0, 2.5, 5.0}) {
      const double step = mantissa * power;
      if (mantissa == 2.5 && power < 0.1) continue;  // 2.5 % is no whole percent
      if (step * px_per_unit >= widest + 8 && side / step <= 5 + 1e-9) return step;
    }
  }
  return side;  // an axis no round step fits: its ends alone
}

}  // namespace

void write_utilization_map(std::ostream& out, const Thresholds& thresholds, double axis_max,
                           const std::vector<MapPoint>& points, const std::vector<MapArrow>& arrows,
                           const std::vector<std::pair<std::string, std::string>>& legend) {
  UtilizationMap(thresholds, axis_max).write(out, points, arrows, legend);
}

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

// Bars from AXIS_MIN to AXIS_MAX; diverging from 0 when AXIS_MIN is below it (a time change: its
// negative side never past -100 %).
void write_bar_chart(std::ostream& out, const std::string& id, const std::vector<Bar>& bars, double axis_min,
                     double axis_max, const std::vector<std::pair<double, std::string>>& markers,
                     const std::string& aria_label) {
  const bool diverging = axis_min < 0;
  // The label and value columns as wide as their longest text (labels cut to 340 px at most), so
  // nothing is clipped at the left edge and no room is wasted.
  double label_width = 60, value_width = 40;
  for (const auto& bar : bars) {
    label_width = std::max(label_width, std::min(text_width(bar.label), 340.0) + 10);
    value_width = std::max(value_width, text_width(bar.value_text) + 10);
  }
  const double bar_width = 270, row = 22, top = 22;
  const double scale = bar_width / (axis_max - axis_min);  // px per unit, the same on both sides
  const double zero_x = label_width - axis_min * scale;
  double width = label_width + bar_width + value_width;
  for (const auto& marker : markers)  // a marker's label must fit too
    width = std::max(width, zero_x + marker.first * scale + 6 + text_width(marker.second, 11));
  width = std::ceil(width);
  const double height = top + row * static_cast<double>(bars.size()) + 26;
  out << "<svg id=\"" << id << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\"" << html_escape(aria_label)
      << "\">\n";
  const double step = tick_step(axis_min, axis_max, scale);
  for (int tick = static_cast<int>(std::ceil(axis_min / step - 1e-9));
       tick <= static_cast<int>(std::floor(axis_max / step + 1e-9)); ++tick) {
    const double value = step * tick;
    const double x = zero_x + value * scale;
    out << "<line x1=\"" << num(x) << "\" y1=\"" << top - 4 << "\" x2=\"" << num(x) << "\" y2=\"" << num(height - 22)
        << "\" stroke=\"" << (tick == 0 ? "#888" : "#e4e4e4") << "\"/>"
        << "<text class=\"tick\" x=\"" << num(x) << "\" y=\"" << num(height - 8) << "\" text-anchor=\"middle\">"
        << (diverging && value > 0 ? "+" : "") << format_percent(value, 0) << "</text>\n";
  }
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& bar = bars[i];
    const double y = top + row * static_cast<double>(i);
    const std::string label = fit_width(bar.label, label_width - 10);
    out << "<text class=\"bar-label" << (bar.sub_row ? " sub" : "") << "\" x=\"" << num(label_width - 8) << "\" y=\""
        << num(y + 15) << "\" text-anchor=\"end\" font-size=\"12\">";
    if (!bar.tooltip.empty()) out << "<title>" << html_escape(bar.tooltip) << "</title>";
    out << html_escape(label) << "</text>\n";
    if (!bar.value) {
      out << "<text class=\"tick\" x=\"" << num(zero_x + 4) << "\" y=\"" << num(y + 15) << "\">n/a</text>\n";
      continue;
    }
    const double clamped = std::clamp(*bar.value, axis_min, axis_max);
    const double x0 = std::min(zero_x, zero_x + clamped * scale);
    const double length = std::max(1.0, std::fabs(clamped * scale));
    out << "<rect class=\"bar " << bar.css_class << "\" x=\"" << num(x0) << "\" y=\"" << num(y + 4) << "\" width=\""
        << num(length) << "\" height=\"" << row - 8 << "\" fill=\"" << bar.fill << "\"><title>"
        << html_escape(bar.tooltip) << "</title></rect>\n";
    const double text_x = diverging ? label_width + bar_width + 6 : x0 + length + 6;
    out << "<text x=\"" << num(text_x) << "\" y=\"" << num(y + 15) << "\" font-size=\"12\">"
        << html_escape(bar.value_text) << "</text>\n";
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

void write_verdict_bar(std::ostream& out, const std::vector<VerdictTime>& time_by_verdict) {
  const double width = 700, bar_height = 26;
  out << "<svg id=\"time-by-verdict\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"58\" "
      << "viewBox=\"0 0 " << width << " 58\" role=\"img\" aria-label=\"share of time by verdict\">\n";
  double x = 0, legend_x = 0;
  for (const auto& entry : time_by_verdict) {
    if (entry.launches == 0) continue;
    const double share = entry.time_share.value_or(0);
    out << "<rect class=\"segment " << verdict_key(entry.verdict) << "\" x=\"" << num(x) << "\" y=\"0\" width=\""
        << num(share * width) << "\" height=\"" << bar_height << "\" fill=\"" << verdict_fill(entry.verdict)
        << "\"><title>"
        << html_escape(verdict_label(entry.verdict) + ": " + format_percent(entry.time_share, 1) + " of the time, " +
                       std::to_string(entry.launches) + " launches")
        << "</title></rect>\n";
    x += share * width;
    const std::string text = verdict_label(entry.verdict) + " " + format_percent(entry.time_share, 0) + " (" +
                             std::to_string(entry.launches) + ")";
    out << "<rect x=\"" << num(legend_x) << "\" y=\"38\" width=\"12\" height=\"12\" fill=\""
        << verdict_fill(entry.verdict) << "\"/><text x=\"" << num(legend_x + 16) << "\" y=\"49\" font-size=\"12\">"
        << html_escape(text) << "</text>\n";
    legend_x += 34 + text_width(text);
  }
  out << "</svg>\n";
}

}  // namespace limiter::html
