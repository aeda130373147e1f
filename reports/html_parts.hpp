#pragma once
// The parts the HTML report and comparison share (internal to limiter::reports): the page,
// verdict colours and badges, the utilisation map and bar charts.
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/rollup.hpp"

namespace limiter {
struct RunSummary;
}

namespace limiter::html {

const char* verdict_fill(const std::optional<Verdict>& verdict);
inline const char* const kFasterFill = "#009e73";
inline const char* const kSlowerFill = "#d55e00";
inline const char* const kNeutralFill = "#8c8c8c";

std::string num(double value);  // one decimal, for SVG coordinates

// ---- labels (html_labels.cpp) ----

// The width a text takes, measured against DejaVu Sans (wider than the usual sans-serifs), so a
// label placed with it fits whichever font the browser picks.
double text_width(const std::string& text, double font_px = 12);
std::string ellipsize(const std::string& text, std::size_t max_characters);
// `text` cut at the end with "…" to fit `width` px.
std::string fit_width(const std::string& text, double width, double font_px = 12);
// `name` in at most `budget` characters, told apart from the other `names`: a long name keeps
// its head and the words where it differs from the others ("sm80_xmma_…nt_n_tiles…split_k_ker…").
std::string distinct_label(const std::string& name, const std::vector<std::string>& names, std::size_t budget);
// Labels still alike (names alike in every word kept) get " #1", " #2"...
void number_alike(std::vector<std::string>& labels);

void write_page_start(std::ostream& out, const std::string& title);
void write_page_end(std::ostream& out);
std::string verdict_badge(const std::optional<Verdict>& verdict, bool balanced = false);

// ---- the utilisation map: memory (x) against compute (y) ----

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

// Points (drawn biggest first), arrows from before to after, and a legend of (fill, text).
void write_utilization_map(std::ostream& out, const Thresholds& thresholds, double axis_max,
                           const std::vector<MapPoint>& points, const std::vector<MapArrow>& arrows,
                           const std::vector<std::pair<std::string, std::string>>& legend);
// Axes run to 100 %, or further in steps of 20 % when a kernel is above (counter noise).
double axis_max_for(const std::vector<double>& values);
std::vector<std::pair<std::string, std::string>> verdict_legend();

// ---- horizontal bar charts ----

struct Bar {
  std::string label;
  std::optional<double> value;  // a fraction 0..1 (or a signed change for diverging bars)
  std::string fill;
  std::string value_text;
  std::string tooltip;
  std::string css_class;
  bool sub_row = false;  // a second bar of the kernel named above: its label says only what it measures
};

inline constexpr std::size_t kChartRows = 14;  // bars per chart; the rest is summed as "other"
inline constexpr std::size_t kMapLabels = 16;  // labelled points on a map: the longest kernels

// Bars from AXIS_MIN (0, or below 0 for bars diverging from 0) to AXIS_MAX, one scale on both
// sides; a value past an end is drawn to it (its text says the value). Ticks at a round step
// whose labels never touch, whatever the range.
void write_bar_chart(std::ostream& out, const std::string& id, const std::vector<Bar>& bars, double axis_min,
                     double axis_max, const std::vector<std::pair<double, std::string>>& markers,
                     const std::string& aria_label);

// The run's time as one stacked bar, by verdict.
void write_verdict_bar(std::ostream& out, const std::vector<VerdictTime>& time_by_verdict);

// The report's charts of the kernel groups (html_report_charts.cpp): the utilisation map, the
// time shares and the LMEM shares; nothing for a record without groups (PC samples alone).
void write_group_charts(std::ostream& out, const RunSummary& summary);

// A kernel's stall reasons as bars and its hottest lines as a table (html_stalls.cpp); ID
// prefixes the chart's id.
void write_stalls(std::ostream& out, const KernelStallAnalysis& stalls, const std::string& id);
// Its hottest lines alone, as a table (nothing without them).
void write_hot_lines(std::ostream& out, const KernelStallAnalysis& stalls);

}  // namespace limiter::html
