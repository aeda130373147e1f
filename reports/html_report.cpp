// The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched),
// opening on the same summary as the text: time by verdict, what to fix first, then charts of
// the kernels grouped by name and launch configuration (one point per group, so the page
// stays light with a hundred thousand launches), the groups table, the launches table with
// --launches, and the reason and advice of each group's longest launch. Short names are shown;
// the full demangled name is on hover.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <unordered_map>

#include "html_parts.hpp"
#include "limiter/format.hpp"
#include "limiter/html_program.hpp"
#include "limiter/reports.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"
#include "timeline_render.hpp"

namespace limiter {
namespace {

using namespace html;
using render::html_escape;
using render::verdict_key;
using render::verdict_label;

// A name to read, with the full demangled name on hover.
std::string name_html(const std::string& shown, const std::string& full) {
  return "<code title=\"" + html_escape(full) + "\">" + html_escape(shown) + "</code>";
}

std::string group_anchor(std::size_t index) { return "group-" + std::to_string(index + 1); }

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
    const std::size_t room = std::max<std::size_t>(budget > configuration.size() ? budget - configuration.size() - 1 : 0, 20);
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
  const std::vector<std::size_t> shown(with_lmem.begin(),
                                       with_lmem.begin() + static_cast<std::ptrdiff_t>(std::min(with_lmem.size(), kChartRows / 2)));
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
         "launches by time. Dashed lines: the verdict thresholds. Below " << format_percent(thresholds.latency, 0)
      << " on both axes a kernel is latency-limited; at or above " << format_percent(thresholds.high_utilization, 0)
      << " that side limits it; in between, the side that leads. Circle area: share of the run's time.</p>\n";
  if (!not_plotted.empty()) {
    out << "<p class=\"note\">Not plotted (the counters give no utilisation): ";
    for (std::size_t i = 0; i < not_plotted.size(); ++i) out << (i ? ", " : "") << html_escape(not_plotted[i]);
    out << "</p>\n";
  }
}

void write_group_table(std::ostream& out, const RunSummary& summary, std::size_t shown) {
  // With a timeline that holds kernels, the time columns are the timeline's and "profiled" counts the counters' launches.
  const bool timeline = render::shows_timeline_time(summary);
  out << "<table id=\"groups\">\n<thead><tr><th>#</th><th class=\"name\">kernel</th><th>time %</th><th>total</th>"
         "<th>launches</th><th>mean</th><th>min</th><th>max</th>"
      << (timeline ? "<th>profiled</th>" : "")
      << "<th class=\"text\">verdict</th>"
         "<th class=\"text\">unit</th><th>LMEM-L2</th><th>LMEM-inst</th><th class=\"text\">grid × block</th>"
         "</tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& g = summary.groups[i];
    const auto& d = render::shown_durations(g);
    std::string verdict = g.no_counters.empty() ? verdict_badge(g.main_verdict)
                                                : "<span class=\"muted\" title=\"" + html_escape(g.no_counters) +
                                                      "\">no counters</span>";
    if (g.verdicts_differ()) verdict += " <span class=\"muted\">" + html_escape(render::verdict_mix_text(g.verdicts)) + "</span>";
    out << "<tr><td>" << i + 1 << "</td><td class=\"name\"><a href=\"#" << group_anchor(i) << "\">"
        << name_html(g.display_name, g.name) << "</a></td><td>" << format_percent(render::shown_time_share(g), 0)
        << "</td><td>" << render::precise_duration_text(d.total_ns) << "</td><td>" << render::shown_launches_text(g)
        << "</td><td>" << render::precise_duration_text(d.mean_ns) << "</td><td>"
        << render::precise_duration_text(d.min_ns) << "</td><td>" << render::precise_duration_text(d.max_ns) << "</td>"
        << (timeline ? "<td>" + render::profiled_launches_text(g) + "</td>" : "") << "<td class=\"text\">" << verdict
        << "</td><td class=\"text\">" << html_escape(g.limiting_unit) << "</td><td>"
        << (g.lmem_l2_share_is_upper_bound && g.lmem_l2_share ? "≤" : "") << format_percent(g.lmem_l2_share, 1)
        << "</td><td>" << format_percent(g.lmem_instruction_share, 1) << "</td><td class=\"text\">"
        << render::configuration_text(g.grid, g.block, " × ") << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  if (shown < summary.groups.size())
    out << "<p class=\"muted\">" << summary.groups.size() - shown << " more; <code>--top N</code> lists more.</p>\n";
  if (timeline) out << "<p class=\"note\">" << html_escape(render::timeline_columns_note(summary)) << ".</p>\n";
  const auto notes = render::no_counters_notes(summary, shown);
  if (notes.empty()) return;
  out << "<ul class=\"note\" id=\"no-counters\">\n";
  for (const auto& note : notes) out << "<li>" << html_escape(render::no_counters_note_text(note)) << "</li>\n";
  out << "</ul>\n";
}

void write_nvtx_ranges(std::ostream& out, const RunSummary& summary) {
  if (summary.nvtx_ranges.empty()) return;
  out << "<h2>Time by NVTX range</h2>\n<table id=\"nvtx\">\n<thead><tr><th class=\"name\">range</th><th>time %</th>"
         "<th>total</th><th>launches</th><th class=\"text\">verdict</th><th class=\"text\">top kernels</th>"
         "</tr></thead>\n<tbody>\n";
  for (const auto& r : summary.nvtx_ranges) {
    std::string kernels;
    for (const auto& name : r.top_kernels) kernels += (kernels.empty() ? "" : ", ") + html_escape(name);
    out << "<tr><td class=\"name\">" << html_escape(r.ranges) << "</td><td>" << format_percent(r.time_share, 0)
        << "</td><td>" << render::precise_duration_text(r.durations.total_ns) << "</td><td>"
        << render::count_text(r.launches) << "</td><td class=\"text\">" << verdict_badge(r.main_verdict)
        << "</td><td class=\"text\">" << kernels << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

void write_launch_table(std::ostream& out, const RunSummary& summary, std::size_t top) {
  const auto order = render::launches_by_time(summary, top);
  out << "<table id=\"kernels\">\n<thead><tr><th>#</th><th class=\"name\">kernel</th><th>time</th><th>time %</th>"
         "<th class=\"text\">verdict</th><th class=\"text\">limiting unit</th><th>issue</th><th>L2</th><th>DRAM</th>"
         "<th>LMEM-L2</th><th>LMEM-inst</th><th>occ.</th></tr></thead>\n<tbody>\n";
  for (const KernelAnalysis* k : order) {
    out << "<tr><td>" << k->sequence << "</td><td class=\"name\"><a href=\"#" << group_anchor(summary.group_of(*k))
        << "\">" << name_html(summary.display_name(k->name), k->name) << "</a></td><td>"
        << render::duration_text(k->duration_ns) << "</td><td>" << format_percent(summary.share_of_run(k->duration_ns), 0)
        << "</td><td class=\"text\">" << verdict_badge(k->verdict, k->balanced) << "</td><td class=\"text\">"
        << html_escape(k->limiting_unit) << "</td><td>" << format_percent(k->utilization.issue, 0) << "</td><td>"
        << format_percent(k->utilization.l2, 0) << "</td><td>" << format_percent(k->utilization.dram, 0) << "</td><td>"
        << (k->lmem.l2_share_is_upper_bound ? "≤" : "") << format_percent(k->lmem.l2_share, 1) << "</td><td>"
        << format_percent(k->lmem.instruction_share, 1) << "</td><td>" << format_percent(render::occupancy_of(*k), 0)
        << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  if (order.size() < summary.run.kernels.size())
    out << "<p class=\"muted\">The " << order.size() << " longest of " << render::count_text(summary.run.kernels.size())
        << " launches.</p>\n";
}

// A kernel of the timeline without counters: its time there, why it has no counters, and its PC samples if any.
void write_no_counters_article(std::ostream& out, const RunSummary& summary, std::size_t index) {
  const auto& g = summary.groups[index];
  const auto launches = render::shown_launches(g);
  out << "<article class=\"kernel\" id=\"" << group_anchor(index) << "\">\n<h3>" << index + 1 << ". "
      << name_html(g.display_name, g.name) << "</h3>\n<p>" << render::count_text(launches)
      << (launches == 1 ? " launch" : " launches") << " on the timeline, "
      << render::duration_text(render::shown_durations(g).total_ns) << "; " << html_escape(g.no_counters) << "</p>\n";
  if (g.stalls) write_stalls(out, *g.stalls, group_anchor(index));
  for (const auto& k : summary.stalled_kernels)  // the advice its samples alone allow
    if (k.group == index && !k.advice.empty()) {
      out << "<ul>\n";
      for (const auto& advice : k.advice) out << "<li>" << html_escape(advice) << "</li>\n";
      out << "</ul>\n";
    }
  out << "</article>\n";
}

void write_group_article(std::ostream& out, const RunSummary& summary, std::size_t index) {
  const auto& g = summary.groups[index];
  if (!g.no_counters.empty()) return write_no_counters_article(out, summary, index);
  const auto& k = g.longest;
  out << "<article class=\"kernel\" id=\"" << group_anchor(index) << "\">\n<h3>" << index + 1 << ". "
      << name_html(g.display_name, g.name) << "</h3>\n<p>" << verdict_badge(k.verdict, k.balanced) << " longest of "
      << render::count_text(g.launches) << (g.launches == 1 ? " launch" : " launches") << ": [" << k.sequence << "] "
      << html_escape(render::launch_configuration_text(k.grid, k.block));
  if (k.registers_per_thread) out << ", " << *k.registers_per_thread << " registers";
  out << "</p>\n<p>" << html_escape(k.verdict_reason) << "</p>\n";
  if (g.stalls) write_stalls(out, *g.stalls, group_anchor(index));
  out << "<ul>\n";
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

// Kernels with PC samples but no launch in the record (a `--stalls` record has none): why they
// wait and the advice of their samples; the others show theirs in their group's article.
void write_kernels_without_launches(std::ostream& out, const RunSummary& summary) {
  std::size_t index = 0;
  bool headed = false;
  for (const auto& k : summary.stalled_kernels) {
    ++index;
    if (k.group) continue;
    if (!headed) out << "<h2>Why kernels without launches in the record wait</h2>\n";
    headed = true;
    out << "<article class=\"kernel\" id=\"stalled-" << index << "\">\n<h3>" << name_html(k.display_name, k.name)
        << "</h3>\n";
    write_stalls(out, *k.stalls, "stalled-" + std::to_string(index));
    out << "<ul>\n";
    for (const auto& advice : k.advice) out << "<li>" << html_escape(advice) << "</li>\n";
    out << "</ul>\n</article>\n";
  }
}

}  // namespace

void write_html_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options) {
  const auto& run = summary.run;
  write_page_start(out, "limiter report — " + render::device_text(run.device));
  out << "<header>\n<h1>limiter report — " << html_escape(render::device_text(run.device)) << "</h1>\n"
      << "<p class=\"meta\">source: " << html_escape(run.source.empty() ? "?" : run.source) << ", "
      << html_escape(to_string(run.counter_model)) << " counters; peaks: " << html_escape(to_string(run.peaks)) << " ("
      << html_escape(run.peaks_origin) << ")<br>";
  if (run.cache_control) out << "caches: " << html_escape(render::cache_control_text(run.cache_control)) << "<br>";
  out << html_escape(render::run_scope_text(summary));
  if (run.stall_sampling) out << "<br>" << html_escape(render::stall_sampling_text(*run.stall_sampling));
  out << "</p>\n";
  for (const auto& note : render::collection_notes(summary)) out << "<p class=\"warning\">" << html_escape(note) << "</p>\n";
  out << "</header>\n";
  // The program's verdict first (GPU busy, what the idle time was spent on), with its own
  // ranked fixes; empty for a record without a timeline.
  const std::string program = render::program_html_section(summary);
  out << program;

  out << "<section class=\"summary\">\n<div class=\"stat\"><b>" << format_duration_ns(summary.total_ns)
      << "</b>kernel time" << (summary.timeline_kernels ? " while profiled" : "") << "</div>\n<div class=\"stat\"><b>" << render::count_text(summary.selected_launches)
      << "</b>launches of " << summary.groups.size() - (summary.timeline_kernels ? summary.timeline_kernels->without_counters : 0)
      << " kernel configurations</div>\n";
  if (const auto& t = summary.timeline_kernels)  // the timeline's kernels, at the app's own pace
    out << "<div class=\"stat\"><b>" << render::count_text(t->launches) << "</b>launches on the timeline, "
        << html_escape(format_duration_ns(t->kernel_ns)) << " of kernel time</div>\n";
  out << "</section>\n";
  if (has_verdict_time(summary.time_by_verdict)) {  // no section printed empty
    out << "<h2>Time by verdict</h2>\n";
    write_verdict_bar(out, summary.time_by_verdict);
  }

  if (!summary.fix_first.empty() && program.empty()) {
    out << "<h2>What to fix first</h2>\n<ol class=\"fix\">\n";
    for (const auto& item : summary.fix_first) {
      const auto& g = summary.groups[item.group];
      out << "<li><a href=\"#" << group_anchor(item.group) << "\">" << name_html(g.display_name, g.name) << " ["
          << g.longest.sequence << "]</a> — " << render::duration_text(render::shown_durations(g).total_ns) << " ("
          << format_percent(render::shown_time_share(g), 0) << ") " << verdict_badge(g.longest.verdict) << " "
          << html_escape(item.headline) << "</li>\n";
    }
    out << "</ol>\n";
  }

  out << "<h2>Charts</h2>\n<div class=\"charts\">\n<figure>\n<figcaption>What limits each kernel</figcaption>\n";
  write_map(out, summary);
  out << "</figure>\n<div>\n<figure>\n<figcaption>Share of the run's time per kernel</figcaption>\n";
  write_time_chart(out, summary);
  out << "<p class=\"note\">Colour: the verdict of most of the kernel's time; ×N: launches grouped. The full name "
         "is on hover.</p>\n</figure>\n"
      << "<figure style=\"margin-top: 24px\">\n<figcaption>Local memory (LMEM) share of L1-L2 traffic and of "
         "instructions</figcaption>\n";
  write_lmem_chart(out, summary);
  out << "</figure>\n</div>\n</div>\n";

  const bool grouped = options.grouped(summary);
  const std::size_t shown = grouped ? render::shown_group_count(summary, options.top) : summary.groups.size();
  out << "<h2>Kernels by time" << (summary.timeline_kernels ? " on the timeline" : "")
      << ", grouped by name and launch configuration</h2>\n";
  write_group_table(out, summary, shown);
  if (!grouped && !summary.run.kernels.empty()) {
    out << "<h2>Launches</h2>\n";
    write_launch_table(out, summary, options.view == ReportView::launches ? options.top : 0);
  }
  write_nvtx_ranges(out, summary);
  out << "<h2>Reasons and advice: the longest launch of each kernel</h2>\n";
  for (std::size_t index = 0; index < shown; ++index) write_group_article(out, summary, index);
  write_kernels_without_launches(out, summary);
  if (const std::string hint = render::no_timeline_hint(summary); !hint.empty())
    out << "<p class=\"note\">" << html_escape(hint) << "</p>\n";
  write_page_end(out);
}

}  // namespace limiter
