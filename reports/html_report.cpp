// The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched),
// opening on the same summary as the text: time by verdict, what to fix first, then the charts
// of the kernel groups (html_report_charts.cpp), the groups table, the launches table with
// --launches, and the reason and advice of each group's longest launch. Short names are shown;
// the full demangled name is on hover. A record of PC samples alone has no group: its page is
// its samples, without charts or tables of nothing.
#include <algorithm>
#include <ostream>

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

void write_group_table(std::ostream& out, const RunSummary& summary, std::size_t shown) {
  // With a timeline that holds kernels, the time columns are the timeline's and "profiled" counts the counters'
  // launches.
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
    std::string verdict = g.no_counters.empty()
                              ? verdict_badge(g.main_verdict)
                              : "<span class=\"muted\" title=\"" + html_escape(g.no_counters) + "\">no counters</span>";
    if (g.verdicts_differ())
      verdict += " <span class=\"muted\">" + html_escape(render::verdict_mix_text(g.verdicts)) + "</span>";
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
        << render::duration_text(k->duration_ns) << "</td><td>"
        << format_percent(summary.share_of_run(k->duration_ns), 0) << "</td><td class=\"text\">"
        << verdict_badge(k->verdict, k->balanced) << "</td><td class=\"text\">" << html_escape(k->limiting_unit)
        << "</td><td>" << format_percent(k->utilization.issue, 0) << "</td><td>" << format_percent(k->utilization.l2, 0)
        << "</td><td>" << format_percent(k->utilization.dram, 0) << "</td><td>"
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
    out << ", slides' estimate " << format_percent(k.lmem.l2_share_seed) << "; "
        << format_percent(k.lmem.instruction_share) << " of instructions; L1 hit rate ld "
        << format_percent(k.lmem.l1_load_hit_rate) << " / st " << format_percent(k.lmem.l1_store_hit_rate) << "</li>\n";
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

// The kernel time and launches with counters (a timeline alone has none: no "0 launches"), and
// the timeline's launches where it holds kernels.
void write_summary_stats(std::ostream& out, const RunSummary& summary) {
  out << "<section class=\"summary\">\n";
  if (summary.selected_launches > 0)
    out << "<div class=\"stat\"><b>" << format_duration_ns(summary.total_ns) << "</b>kernel time"
        << (summary.timeline_kernels ? " while profiled" : "") << "</div>\n<div class=\"stat\"><b>"
        << render::count_text(summary.selected_launches) << "</b>launches of "
        << summary.groups.size() - (summary.timeline_kernels ? summary.timeline_kernels->without_counters : 0)
        << " kernel configurations</div>\n";
  if (const auto& t = summary.timeline_kernels)  // the timeline's kernels, at the app's own pace
    out << "<div class=\"stat\"><b>" << render::count_text(t->launches) << "</b>launches on the timeline, "
        << html_escape(format_duration_ns(t->kernel_ns)) << " of kernel time</div>\n";
  out << "</section>\n";
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
  for (const auto& note : render::collection_notes(summary))
    out << "<p class=\"warning\">" << html_escape(note) << "</p>\n";
  out << "</header>\n";
  // The program's verdict first (GPU busy, what the idle time was spent on), with its own
  // ranked fixes; empty for a record without a timeline.
  const std::string program = render::program_html_section(summary);
  out << program;

  if (summary.groups.empty()) {  // PC samples alone (a --stalls record): its samples are what it holds
    if (const auto& s = summary.run.stall_sampling)
      out << "<section class=\"summary\">\n<div class=\"stat\"><b>" << render::count_text(s->samples)
          << "</b>PC samples of " << s->kernels << " kernels</div>\n</section>\n";
  } else {
    write_summary_stats(out, summary);
  }
  if (render::has_verdict_time(summary.time_by_verdict)) {  // no section printed empty
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

  write_group_charts(out, summary);

  const bool grouped = options.grouped(summary);
  const std::size_t shown = grouped ? render::shown_group_count(summary, options.top) : summary.groups.size();
  if (!summary.groups.empty()) {  // PC samples alone have no kernel group
    out << "<h2>Kernels by time" << (summary.timeline_kernels ? " on the timeline" : "")
        << ", grouped by name and launch configuration</h2>\n";
    write_group_table(out, summary, shown);
  }
  if (!grouped && !summary.run.kernels.empty()) {
    out << "<h2>Launches</h2>\n";
    write_launch_table(out, summary, options.view == ReportView::launches ? options.top : 0);
  }
  write_nvtx_ranges(out, summary);
  if (shown > 0) out << "<h2>Reasons and advice: the longest launch of each kernel</h2>\n";
  for (std::size_t index = 0; index < shown; ++index) write_group_article(out, summary, index);
  write_kernels_without_launches(out, summary);
  if (const std::string hint = render::no_timeline_hint(summary); !hint.empty())
    out << "<p class=\"note\">" << html_escape(hint) << "</p>\n";
  write_page_end(out);
}

}  // namespace limiter
