// The HTML report's charts of the kernel groups: where each group sits on the utilisation map
// (one point per group, so the page stays light with a hundred thousand launches), each group's
// share of the run's time, and the local memory shares of those with any.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <unordered_map>

#include "html_parts.hpp"
#include "limiter/format.hpp"
#include "render_helpers.hpp"
#include "timeline_render.hpp"

namespace limiter::html {
namespace {

using render::html_escape;
using render::verdict_key;
using render::verdict_label;

// Chart labels, no two alike: names shortened where they agree (html_labels.cpp), and a name
// shared by several launch configurations followed by its configuration.
std::string compact_configuration(const Dim3& grid, const Dim3& block) {
  const auto dims = [](const Dim3& d) {  // trailing 1s dropped: (16,16,1) -> 16,16
    std::string text = std::to_string(d.x);
    if (d.y != 1 || d.z != 1) text += "," + std::to_string(d.y);
    if (d.z != 1) text += "," + std::to_string(d.z);
    return text;
  };
  return "(" + dims(grid) + ")×(" + dims(block) + ")";
}

// Labels for the groups at `indices` (those a chart names), each in `budget` characters, no two
// alike; a name shared by several groups is followed by the group's launch configuration.
std::vector<std::string> group_labels(const RunSummary& summary, const std::vector<std::size_t>& indices,
                                      std::size_t budget) {
  std::vector<std::string> names;
  std::unordered_map<std::string, std::size_t> groups_named;
  for (const auto& group : summary.groups)
    if (groups_named[group.display_name]++ == 0) names.push_back(group.display_name);
  std::vector<std::string> labels;
  for (std::size_t i : indices) {
    const auto& group = summary.groups[i];
    if (groups_named[group.display_name] < 2) {
      labels.push_back(distinct_label(group.display_name, names, budget));
      continue;
    }
    const std::string configuration = compact_configuration(group.grid, group.block);
    const std::size_t room =
        std::max<std::size_t>(budget > configuration.size() ? budget - configuration.size() - 1 : 0, 20);
    labels.push_back(distinct_label(group.display_name, names, room) + " " + configuration);
  }
  number_alike(labels);
  return labels;
}

std::vector<std::size_t> first_indices(std::size_t count) {
  std::vector<std::size_t> indices(count);
  for (std::size_t i = 0; i < count; ++i) indices[i] = i;
  return indices;
}

void write_time_chart(std::ostream& out, const RunSummary& summary) {
  const auto labels = group_labels(summary, first_indices(std::min(kChartRows, summary.groups.size())), 40);
  std::vector<Bar> bars;
  double other_share = 0;
  std::size_t other_groups = 0;
  for (std::size_t i = 0; i < summary.groups.size(); ++i) {
    const auto& group = summary.groups[i];
    if (bars.size() + 1 >= kChartRows && summary.groups.size() > kChartRows) {
      other_share += render::shown_time_share(group).value_or(0);
      ++other_groups;
      continue;
    }
    const auto share = render::shown_time_share(group);  // the timeline's, where the record has one
    const std::size_t launches = render::shown_launches(group);
    bars.push_back({labels[i], share, verdict_fill(group.main_verdict),
                    format_percent(share, 1) + "  " + render::duration_text(render::shown_durations(group).total_ns) +
                        (launches > 1 ? "  ×" + render::count_text(launches) : ""),
                    group.name + ": " + render::count_text(group.launches) + " launches, " +
                        render::verdict_mix_text(group.verdicts),
                    verdict_key(group.main_verdict)});
  }
  if (other_groups > 0) {
    bars.push_back({"other " + std::to_string(other_groups) + " kernels", other_share, kNeutralFill,
                    format_percent(other_share, 1), "", "none"});
  }
  double largest = 0.1;
  for (const auto& bar : bars) largest = std::max(largest, bar.value.value_or(0));
  write_bar_chart(out, "time-share", bars, 0.0, std::min(1.0, std::ceil(largest / 0.1 - 1e-9) * 0.1), {},
                  "share of the run's time per kernel");
}

// Only kernels with local memory get bars (a chart of 0.0 % bars says nothing); with none, one line.
void write_lmem_chart(std::ostream& out, const RunSummary& summary) {
  std::vector<std::size_t> with_lmem;
  std::size_t measured = 0;
  for (std::size_t i = 0; i < summary.groups.size(); ++i) {
    const auto& g = summary.groups[i];
    measured += g.lmem_l2_share || g.lmem_instruction_share;
    // Shown as 0.0 % below 0.05 %: not worth a bar.
    if (g.lmem_l2_share.value_or(0) >= 0.0005 || g.lmem_instruction_share.value_or(0) >= 0.0005) with_lmem.push_back(i);
  }
  const std::vector<std::size_t> shown(
      with_lmem.begin(), with_lmem.begin() + static_cast<std::ptrdiff_t>(std::min(with_lmem.size(), kChartRows / 2)));
  const auto labels = group_labels(summary, shown, 36);
  std::vector<Bar> bars;
  for (std::size_t row = 0; row < shown.size(); ++row) {
    const auto& g = summary.groups[shown[row]];
    const std::string upper = g.lmem_l2_share_is_upper_bound && g.lmem_l2_share ? "≤" : "";
    bars.push_back({labels[row] + " · L2", g.lmem_l2_share, "#3b6e8f", upper + format_percent(g.lmem_l2_share, 1),
                    "LMEM share of L1-L2 traffic", "lmem-l2"});
    bars.push_back({"instructions", g.lmem_instruction_share, "#9fc3d9", format_percent(g.lmem_instruction_share, 1),
                    "LMEM share of issued instructions", "lmem-inst", true});
  }
  if (bars.empty()) {
    out << "<p class=\"note\" id=\"lmem-none\">"
        << (measured == 0 ? "The counters give no local-memory share for any kernel."
                          : "No local memory: 0.0% of L1-L2 traffic and of instructions in every kernel measured (" +
                                std::to_string(measured) + ").")
        << "</p>\n";
    return;
  }
  const auto& thresholds = summary.run.thresholds;
  write_bar_chart(out, "lmem-shares", bars, 0.0, 1.0,
                  {{thresholds.lmem_significant, format_percent(thresholds.lmem_significant, 0) + " significant"}},
                  "local memory share of L2 traffic and of instructions per kernel");
  std::string note = "Kernels with local memory, most expensive first";
  if (with_lmem.size() > shown.size())
    note += " (" + std::to_string(shown.size()) + " of " + std::to_string(with_lmem.size()) + ")";
  if (with_lmem.size() < summary.groups.size())
    note += "; the other " + std::to_string(summary.groups.size() - with_lmem.size()) + " have none";
  out << "<p class=\"note\">" << note << ". Bandwidth-limited kernels: the L2 share matters; instruction-limited: "
      << "the instruction share (seed 001).</p>\n";
}

// One point per group at its time-weighted utilisations: the map of a run of a million
// launches has as many points as kernels.
void write_map(std::ostream& out, const RunSummary& summary) {
  std::vector<std::size_t> plotted;  // the longest plotted groups get labels (kMapLabels)
  for (std::size_t i = 0; i < summary.groups.size() && plotted.size() < kMapLabels; ++i)
    if (summary.groups[i].memory && summary.groups[i].compute) plotted.push_back(i);
  const auto labels = group_labels(summary, plotted, 34);
  std::vector<MapPoint> points;
  std::vector<std::string> not_plotted;
  std::vector<double> extents;
  for (std::size_t i = 0; i < summary.groups.size(); ++i) {
    const auto& g = summary.groups[i];
    if (!g.memory || !g.compute) {
      not_plotted.push_back(g.display_name);
      continue;
    }
    MapPoint point;
    point.memory = *g.memory;
    point.compute = *g.compute;
    point.radius = 5 + 16 * std::sqrt(g.time_share.value_or(0));
    point.fill = verdict_fill(g.main_verdict);
    point.css_class = verdict_key(g.main_verdict);
    const auto labelled = std::find(plotted.begin(), plotted.end(), i);
    if (labelled != plotted.end()) point.label = labels[static_cast<std::size_t>(labelled - plotted.begin())];
    point.tooltip = g.name + "\n" + render::group_verdict_text(g) + ", " + render::count_text(g.launches) +
                    (g.launches == 1 ? " launch" : " launches") + ": " + g.longest.verdict_reason + "\nmemory " +
                    format_percent(g.memory) + ", compute " + format_percent(g.compute) + ", time " +
                    render::duration_text(g.durations.total_ns);
    points.push_back(point);
    extents.push_back(*g.memory);
    extents.push_back(*g.compute);
  }
  const auto& thresholds = summary.run.thresholds;
  write_utilization_map(out, thresholds, axis_max_for(extents), points, {}, verdict_legend());
  out << "<p class=\"note\">One point per kernel and launch configuration, at its utilisations averaged over its "
         "launches by time. Dashed lines: the verdict thresholds. Below "
      << format_percent(thresholds.latency, 0) << " on both axes a kernel is latency-limited; at or above "
      << format_percent(thresholds.high_utilization, 0)
      << " that side limits it; in between, the side that leads. Circle area: share of the run's time.</p>\n";
  if (!not_plotted.empty()) {
    out << "<p class=\"note\">Not plotted (the counters give no utilisation): ";
    for (std::size_t i = 0; i < not_plotted.size(); ++i) out << (i ? ", " : "") << html_escape(not_plotted[i]);
    out << "</p>\n";
  }
}

}  // namespace

void write_group_charts(std::ostream& out, const RunSummary& summary) {
  if (summary.groups.empty()) return;  // PC samples alone: no kernel to chart
  // A timeline alone has no launch with counters: no map, no LMEM shares; its time shares stay.
  // (Launches whose counters give no utilisation keep the map, which says why they are not on it.)
  const bool counters = summary.launches > 0;
  out << "<h2>Charts</h2>\n<div class=\"charts\">\n";
  if (counters) {
    out << "<figure>\n<figcaption>What limits each kernel</figcaption>\n";
    write_map(out, summary);
    out << "</figure>\n";
  }
  out << "<div>\n<figure>\n<figcaption>Share of the run's time per kernel</figcaption>\n";
  write_time_chart(out, summary);
  out << "<p class=\"note\">Colour: the verdict of most of the kernel's time; ×N: launches grouped. The full name "
         "is on hover.</p>\n</figure>\n";
  if (counters) {
    out << "<figure style=\"margin-top: 24px\">\n<figcaption>Local memory (LMEM) share of L1-L2 traffic and of "
           "instructions</figcaption>\n";
    write_lmem_chart(out, summary);
    out << "</figure>\n";
  }
  out << "</div>\n</div>\n";
}

}  // namespace limiter::html
