// The HTML comparison: warnings, the program verdicts, totals and the gate, the time change per
// matched kernel, where each kernel moved on the utilisation map, and the tables (--top rows of
// each). Self-contained like the report.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <unordered_set>

#include "html_parts.hpp"
#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "comparison_parts.hpp"
#include "render_helpers.hpp"

namespace limiter {
namespace {

using namespace html;
using render::html_escape;
using render::verdict_key;
using render::verdict_label;

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

// The matched kernels' names as shown, each once: what a chart label must be told apart from.
std::vector<std::string> shown_names(const RunComparison& comparison, const render::NameLookup& names) {
  std::vector<std::string> all;
  std::unordered_set<std::string> seen;
  for (const auto& k : comparison.kernels)
    if (seen.insert(names(k.after.name)).second) all.push_back(names(k.after.name));
  return all;
}

// A change's bars run from -100 % (no time left) to +200 % at most (3x slower: the chart is
// for spotting; a larger change's bar stops at the edge and its number says how far).
constexpr double kLargestChangeDrawn = 2.0;

// Returns whether a bar was cut at the edge.
bool write_change_chart(std::ostream& out, const RunComparison& comparison, const std::vector<std::size_t>& order,
                        const render::NameLookup& names) {
  const auto all_names = shown_names(comparison, names);
  std::vector<Bar> bars;
  double largest = 0.1;
  for (std::size_t index : order) {
    if (bars.size() >= kChartRows) break;
    const auto& k = comparison.matched[index];
    const std::string kind = render::change_kind(k);
    // The sequence numbers tell apart two configurations of one kernel.
    bars.push_back(
        {(comparison.launch_rows ? render::row_launches_text(comparison, k, "→")
                                 : "#" + std::to_string(k.before.sequence)) +
             " " + distinct_label(names(k.after.name), all_names, 30),
         k.time.change, change_fill(kind),
         render::change_percent_text(k.time.change) + (kind == "noise" ? " noise" : ""),
         render::precise_duration_text(k.time.before_ns) + " → " + render::precise_duration_text(k.time.after_ns),
         kind});
    if (k.time.change) largest = std::max(largest, std::fabs(*k.time.change));
  }
  std::vector<std::pair<double, std::string>> markers;
  if (comparison.max_slowdown)
    markers.push_back({*comparison.max_slowdown, "+" + format_percent(*comparison.max_slowdown, 0) + " gate"});
  const double axis = std::min(kLargestChangeDrawn,
                               std::ceil(std::max(largest, comparison.max_slowdown.value_or(0)) / 0.1 - 1e-9) * 0.1);
  write_bar_chart(out, "time-change", bars, -std::min(axis, 1.0), axis, markers, "time change per matched kernel");
  return largest > kLargestChangeDrawn;
}

void write_movement_map(std::ostream& out, const RunComparison& comparison, const render::NameLookup& names) {
  const auto all_names = shown_names(comparison, names);
  // The kernels with the most time after get the labels (kMapLabels): the ones a reader looks for.
  std::vector<std::size_t> by_time(comparison.kernels.size());
  for (std::size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
  std::stable_sort(by_time.begin(), by_time.end(), [&](std::size_t a, std::size_t b) {
    return comparison.kernels[a].time.after_ns > comparison.kernels[b].time.after_ns;
  });
  std::vector<bool> labelled(by_time.size(), false);
  for (std::size_t i = 0; i < std::min(by_time.size(), kMapLabels); ++i) labelled[by_time[i]] = true;
  std::vector<MapPoint> points;
  std::vector<MapArrow> arrows;
  std::vector<double> extents;
  for (std::size_t index = 0; index < comparison.kernels.size(); ++index) {
    const auto& k = comparison.kernels[index];
    const auto mb = k.before.utilization.memory, cb = k.before.utilization.compute;
    const auto ma = k.after.utilization.memory, ca = k.after.utilization.compute;
    if (!ma || !ca) continue;
    MapPoint point;
    point.memory = *ma;
    point.compute = *ca;
    point.radius = 6;
    point.fill = verdict_fill(k.after.verdict);
    point.css_class = verdict_key(k.after.verdict);
    if (labelled[index])
      point.label = "#" + std::to_string(k.after.sequence) + " " + distinct_label(names(k.after.name), all_names, 28);
    point.tooltip = std::string(k.after.name) + "\n" + arrow_text(verdict_label(k.before), verdict_label(k.after)) +
                    ", time " + render::change_percent_text(k.time.change);
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
  write_utilization_map(out, comparison.thresholds, axis_max_for(extents), points, arrows, legend);
  out << "<p class=\"note\">Arrows run from a kernel's position before to after; colour of the dot: its verdict "
         "after. Dashed lines: the verdict thresholds.</p>\n";
}

void write_more(std::ostream& out, std::size_t left_out) {
  if (left_out > 0) out << "<p class=\"muted\">" << render::more_rows_text(left_out) << "</p>\n";
}

void write_unmatched_table(std::ostream& out, const std::string& id, const RunComparison& comparison,
                           const std::vector<UnmatchedKernel>& kernels, const render::NameLookup& names,
                           std::size_t top) {
  if (kernels.empty()) {
    out << "<p class=\"muted\">none</p>\n";
    return;
  }
  out << "<table id=\"" << id << "\">\n<thead><tr><th>" << render::row_launches_title(comparison)
      << "</th><th class=\"name\">kernel</th><th class=\"text\">grid × block</th><th>time</th><th "
         "class=\"text\">verdict</th>"
         "</tr></thead>\n<tbody>\n";
  const std::size_t shown = render::shown_rows(kernels.size(), top);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = kernels[i];
    out << "<tr><td>" << (comparison.launch_rows ? std::to_string(k.first.sequence) : render::count_text(k.launches))
        << "</td><td class=\"name\"><code>" << html_escape(names(k.first.name)) << "</code></td><td class=\"text\">"
        << (k.first.block.count() > 0 ? render::dim3_text(k.first.grid) + " × " + render::dim3_text(k.first.block)
                                      : "—")
        << "</td><td>" << render::precise_duration_text(k.total_ns) << "</td><td class=\"text\">"
        << verdict_badge(k.first.verdict, k.first.balanced) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  write_more(out, kernels.size() - shown);
}

void write_samples_table(std::ostream& out, const RunComparison& comparison, const render::NameLookup& names,
                         std::size_t top) {
  if (comparison.samples.empty()) return;
  out << "<h2>PC samples</h2>\n<p class=\"muted\">" << render::count_text(comparison.before_samples) << " → "
      << render::count_text(comparison.after_samples)
      << " samples; each kernel's share of them and its main stall reason.</p>\n<table id=\"samples\">\n<thead><tr>"
         "<th class=\"name\">kernel</th><th>share of samples</th><th class=\"text\">main stall "
         "reason</th></tr></thead>\n<tbody>\n";
  const std::size_t shown = render::shown_rows(comparison.samples.size(), top);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = comparison.samples[i];
    out << "<tr><td class=\"name\"><code>" << html_escape(names(k.name)) << "</code></td><td>"
        << render::sample_share_text(k, " → ") << "</td><td class=\"text\">"
        << html_escape(render::sample_reason_text(k, " → ")) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  write_more(out, comparison.samples.size() - shown);
}

}  // namespace

void write_html_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options) {
  const render::NameLookup names(comparison, options.names);
  write_page_start(out, "limiter compare — " + comparison.before_label + " → " + comparison.after_label);
  const auto& totals = comparison.totals;
  out << "<header>\n<h1>limiter compare</h1>\n<p class=\"meta\">before: <code>" << html_escape(comparison.before_label)
      << "</code> · after: <code>" << html_escape(comparison.after_label) << "</code> · "
      << html_escape(render::device_text(comparison.before_device));
  if (render::device_text(comparison.after_device) != render::device_text(comparison.before_device))
    out << " → " << html_escape(render::device_text(comparison.after_device))
        << " (different GPUs: times are not comparable)";
  out << "</p>\n";
  if (!comparison.cache_warning.empty())
    out << "<p class=\"warning\">Warning: " << html_escape(comparison.cache_warning) << "</p>\n";
  for (const std::string* warning :
       {&comparison.selection_warning, &comparison.program_warning, &comparison.match_warning})
    if (!warning->empty()) out << "<p class=\"warning\">Warning: " << html_escape(*warning) << "</p>\n";
  if (const auto program = render::program_change_text(comparison, " → "); !program.empty())
    out << "<p class=\"meta\">program: " << html_escape(program) << "</p>\n";
  if (comparison.names_matched_by_key > 0)
    out << "<p class=\"meta\">kernel names: " << comparison.names_matched_by_key
        << " matched though spelled differently (ncu and CUPTI)</p>\n";
  if (const auto nothing = render::nothing_timed_text(comparison); !nothing.empty())
    out << "<p class=\"note\">" << html_escape(nothing) << "</p>\n";
  out << "</header>\n";

  out << "<section class=\"summary\">\n<div class=\"stat\"><b>" << render::change_percent_text(totals.all.change)
      << "</b>" << (comparison.per_launch ? "mean per launch: " : "total time: ") << html_escape(total_text(totals.all))
      << "</div>\n<div class=\"stat\"><b>" << comparison.kernels.size() << "</b>matched kernels ("
      << totals.before_launches << " launches before, " << totals.after_launches
      << " after)</div>\n<div class=\"stat\"><b>" << comparison.only_before.size() << " / "
      << comparison.only_after.size() << "</b>only before / only after</div>\n</section>\n";
  if (comparison.max_slowdown) {
    const std::string limit = format_percent(*comparison.max_slowdown, 1);
    if (comparison.failed()) {
      const auto failure = render::gate_failure(comparison);
      out << "<div class=\"gate failed\">Gate failed: slower by more than " << limit << ":";
      if (failure.total) out << " " << render::gate_total_text(comparison);
      for (const KernelComparison* k : failure.named)
        out << " <code>" << html_escape(names(k->before.name)) << "</code> [" << k->before.sequence << "] ("
            << render::change_percent_text(k->time.change) << ")";
      if (failure.more > 0) out << " " << render::gate_more_text(failure.more);
      out << "</div>\n";
    } else {
      out << "<div class=\"gate passed\">Gate passed: no matched kernel and not the total slower by more than " << limit
          << ".</div>\n";
    }
  }

  const auto order = render::comparison_display_order(comparison, options.top);
  out << "<h2>Charts</h2>\n<div class=\"charts\">\n<figure>\n<figcaption>Time change per matched kernel</figcaption>\n";
  const bool cut = write_change_chart(out, comparison, order, names);
  out << "<p class=\"note\">Most changed first. Grey: within the launches' spread (noise) or unchanged."
      << (cut ? " Bars past +" + format_percent(kLargestChangeDrawn, 0) + " stop at the edge; the number is the change."
              : "")
      << "</p>\n</figure>\n"
      << "<figure>\n<figcaption>Where each kernel moved (before ○ → after ●)</figcaption>\n";
  write_movement_map(out, comparison, names);
  out << "</figure>\n</div>\n";

  out << "<h2>Matched kernels</h2>\n<p class=\"muted\">" << html_escape(render::rows_note(comparison)) << ".</p>\n";
  // "n": the launches, narrow enough that the table fits 1,280 px beside long kernel names.
  out << "<table id=\"matched\">\n<thead><tr><th class=\"text\""
      << (comparison.launch_rows ? ">#" : " title=\"launches before → after\">n")
      << "</th><th class=\"name\">kernel</th>"
      << (comparison.launch_rows ? "<th>before</th><th>after</th>" : "<th>before/launch</th><th>after/launch</th>")
      << "<th>change</th><th class=\"text\">speed</th><th class=\"text\">verdict</th>"
         "<th>issue</th><th>L2</th><th>DRAM</th><th>LMEM-L2</th><th>LMEM-inst</th></tr></thead>\n<tbody>\n";
  for (std::size_t index : order) {
    const auto& k = comparison.matched[index];
    const std::string kind = render::change_kind(k);
    const auto percents = [](const std::optional<double>& before, const std::optional<double>& after, int decimals) {
      return arrow_text(format_percent(before, decimals), format_percent(after, decimals));
    };
    out << "<tr><td class=\"text\">" << render::row_launches_text(comparison, k, "→")
        << "</td><td class=\"name\"><code>" << html_escape(names(k.before.name)) << "</code></td><td>"
        << render::precise_duration_text(k.time.before_ns) << "</td><td>"
        << render::precise_duration_text(k.time.after_ns) << "</td><td class=\"" << kind << "\">"
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
  write_more(out, comparison.matched.size() - order.size());
  out << "<p class=\"muted\">" << html_escape(kNoiseRule) << ".</p>\n";
  out << "<h2>Only in before</h2>\n";
  write_unmatched_table(out, "only-before", comparison, comparison.only_before, names, options.top);
  out << "<h2>Only in after</h2>\n";
  write_unmatched_table(out, "only-after", comparison, comparison.only_after, names, options.top);
  write_samples_table(out, comparison, names, options.top);
  write_page_end(out);
}

}  // namespace limiter
