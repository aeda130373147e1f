// GitHub-flavoured Markdown for pull-request comments: the summary first (what a reviewer
// reads), then the table — of groups when the run repeats kernels, else of launches — with
// the reasons and advice folded under <details>.
#include <algorithm>
#include <ostream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "program_render.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"
#include "timeline_render.hpp"

namespace limiter {
namespace {

using render::markdown_code;
using render::markdown_escape;
using render::verdict_label;

std::string plural(std::size_t count, const char* one, const char* many) {
  return render::count_text(count) + " " + (count == 1 ? one : many);
}

void write_time_by_verdict(const RunSummary& summary, std::ostream& out) {
  if (!render::has_verdict_time(summary.time_by_verdict)) return;  // a timeline or samples alone
  std::vector<VerdictTime> by_time = summary.time_by_verdict;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const VerdictTime& a, const VerdictTime& b) { return a.duration_ns > b.duration_ns; });
  out << "**Time by verdict:** ";
  bool first = true;
  for (const auto& entry : by_time) {
    if (entry.launches == 0) continue;
    out << (first ? "" : " · ") << verdict_label(entry.verdict) << " " << format_percent(entry.time_share, 0) << " ("
        << plural(entry.launches, "launch", "launches") << ")";
    first = false;
  }
  out << "\n\n";
}

// The program verdict first (records with a timeline): is the GPU the bottleneck at all?
void write_program(const RunSummary& summary, std::ostream& out) {
  if (!summary.program) return;
  const auto& p = *summary.program;
  out << "### Program: " << to_string(p.verdict) << "\n\n" << markdown_escape(p.reason) << "\n\n";
  if (!p.window_note.empty()) out << "_" << markdown_escape(p.window_note) << "._\n\n";  // a run of several phases
  for (const auto& advice : p.advice) out << "- " << markdown_escape(advice) << "\n";
  out << "\n| part of the window | time | share |\n|:--|--:|--:|\n";
  for (const auto& part : render::split_parts(p.split))
    out << "| " << part.label << " | " << format_duration_ns(part.ns) << " | " << format_percent(p.split.share(part.ns))
        << " |\n";
  out << "\n";
  if (p.ranges.empty()) return;
  out << "| NVTX range | wall | instances | GPU busy | verdict |\n|:--|--:|--:|--:|:--|\n";
  for (std::size_t i = 0; i < p.ranges.size() && i < 10; ++i) {
    const auto& r = p.ranges[i];
    out << "| " << markdown_code(r.range) << " | " << format_duration_ns(r.split.wall_ns) << " | " << r.instances
        << " | " << format_percent(r.split.busy_share(), 0) << " | " << to_string(r.verdict) << " |\n";
  }
  out << "\n";
}

void write_fix_first(const RunSummary& summary, std::ostream& out) {
  const auto lines = render::fix_first_lines(summary);
  if (lines.empty()) return;
  out << "### What to fix first\n\n";
  for (std::size_t rank = 0; rank < lines.size(); ++rank) {
    if (lines[rank].program) {
      const auto& fix = *lines[rank].program;
      out << rank + 1 << ". **program** — " << markdown_escape(render::fix_program_text(fix)) << ": "
          << markdown_escape(fix.headline) << "\n";
      continue;
    }
    const auto& item = *lines[rank].kernel;
    const auto& g = summary.groups[item.group];
    out << rank + 1 << ". **" << markdown_code(g.display_name) << "** [" << g.longest.sequence << "] — "
        << render::duration_text(render::shown_durations(g).total_ns) << " ("
        << format_percent(render::shown_time_share(g), 0) << "), " << verdict_label(g.longest.verdict) << ": "
        << markdown_escape(item.headline) << "\n";
  }
  out << "\n";
}

void write_group_table(const RunSummary& summary, const ReportOptions& options, std::ostream& out) {
  const std::size_t shown = render::shown_group_count(summary, options.top);
  // With a timeline that holds kernels, the time columns are the timeline's and "profiled" counts the counters'
  // launches.
  const bool timeline = render::shows_timeline_time(summary);
  out << "### Kernels by time" << (timeline ? " on the timeline" : "") << ", grouped by name and launch configuration";
  if (shown < summary.groups.size()) out << " (top " << shown << " of " << summary.groups.size() << ")";
  out << "\n\n| # | kernel | time % | total | launches | mean | min | max | " << (timeline ? "profiled | " : "")
      << "verdict | unit | LMEM-L2 | LMEM-inst | grid × block |\n"
      << "|--:|:--|--:|--:|--:|--:|--:|--:|" << (timeline ? "--:|" : "") << ":--|:--|--:|--:|:--|\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& g = summary.groups[i];
    const auto& d = render::shown_durations(g);
    out << "| " << i + 1 << " | " << markdown_code(g.display_name) << " | "
        << format_percent(render::shown_time_share(g), 0) << " | " << render::precise_duration_text(d.total_ns) << " | "
        << render::shown_launches_text(g) << " | " << render::precise_duration_text(d.mean_ns) << " | "
        << render::precise_duration_text(d.min_ns) << " | " << render::precise_duration_text(d.max_ns) << " | "
        << (timeline ? render::profiled_launches_text(g) + " | " : "") << markdown_escape(render::group_verdict_text(g))
        << " | " << markdown_escape(g.limiting_unit) << " | "
        << (g.lmem_l2_share_is_upper_bound && g.lmem_l2_share ? "≤" : "") << format_percent(g.lmem_l2_share, 1) << " | "
        << format_percent(g.lmem_instruction_share, 1) << " | " << render::configuration_text(g.grid, g.block, " × ")
        << " |\n";
  }
  out << "\n";
  if (timeline) out << "_" << markdown_escape(render::timeline_columns_note(summary)) << "._\n\n";
  const auto notes = render::no_counters_notes(summary, shown);
  for (const auto& note : notes) {  // the kernels without counters, by reason
    std::string kernels;
    for (const auto& name : note.kernels) kernels += (kernels.empty() ? "" : ", ") + markdown_code(name);
    out << "- " << kernels << " — " << markdown_escape(note.reason) << "\n";
  }
  if (!notes.empty()) out << "\n";
  if (shown < summary.groups.size()) {
    out << "… " << summary.groups.size() - shown << " more groups; `limiter report --top N` lists more, "
        << "`--launches` one row per launch.\n\n";
  }
}

void write_nvtx_ranges(const RunSummary& summary, std::ostream& out) {
  if (summary.nvtx_ranges.empty()) return;
  out << "### Time by NVTX range\n\n| range | time % | total | launches | verdict | top kernels |\n"
      << "|:--|--:|--:|--:|:--|:--|\n";
  for (const auto& r : summary.nvtx_ranges) {
    std::string kernels;
    for (const auto& name : r.top_kernels) kernels += (kernels.empty() ? "" : ", ") + markdown_code(name);
    out << "| " << markdown_code(r.ranges) << " | " << format_percent(r.time_share, 0) << " | "
        << render::precise_duration_text(r.durations.total_ns) << " | " << render::count_text(r.launches) << " | "
        << verdict_label(r.main_verdict) << " | " << kernels << " |\n";
  }
  out << "\n";
}

void write_launch_table(const RunSummary& summary, const ReportOptions& options, std::ostream& out) {
  const auto order = render::launches_by_time(summary, options.view == ReportView::launches ? options.top : 0);
  out << "### Kernels (most time first)";
  if (order.size() < summary.run.kernels.size())
    out << " (top " << order.size() << " of " << render::count_text(summary.run.kernels.size()) << " launches)";
  out << "\n\n| # | kernel | time | time % | verdict | issue | L2 | DRAM | LMEM-L2 | LMEM-inst | occ. |\n"
      << "|--:|:--|--:|--:|:--|--:|--:|--:|--:|--:|--:|\n";
  for (const KernelAnalysis* k : order) {
    out << "| " << k->sequence << " | " << markdown_code(summary.display_name(k->name)) << " | "
        << render::duration_text(k->duration_ns) << " | " << format_percent(summary.share_of_run(k->duration_ns), 0)
        << " | " << verdict_label(*k) << " | " << format_percent(k->utilization.issue, 0) << " | "
        << format_percent(k->utilization.l2, 0) << " | " << format_percent(k->utilization.dram, 0) << " | "
        << (k->lmem.l2_share_is_upper_bound ? "≤" : "") << format_percent(k->lmem.l2_share, 1) << " | "
        << format_percent(k->lmem.instruction_share, 1) << " | " << format_percent(render::occupancy_of(*k), 0)
        << " |\n";
  }
  out << "\n";
}

// One row per kernel with PC samples, most samples first (TOP of them; 0: all): its dominant stall
// reasons and hottest line; the advice of those without launches in the record (a `--stalls`
// record has none) below the table, the others' under their launch.
void write_why_they_wait(const RunSummary& summary, std::size_t top, std::ostream& out) {
  const auto& kernels = summary.stalled_kernels;
  if (kernels.empty()) return;
  const std::size_t shown = top == 0 ? kernels.size() : std::min(top, kernels.size());
  out << "### Why they wait (PC samples by stall reason)\n\n| kernel | group | stalls | hottest line |\n"
      << "|:--|:--|:--|:--|\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = kernels[i];
    const auto& lines = k.stalls->hot_lines;
    out << "| " << markdown_code(k.display_name) << " | " << render::stalled_group_text(summary, k, " ", "no launch")
        << " | " << markdown_escape(render::why_it_waits_text(*k.stalls)) << " | "
        << (lines.empty() ? "—" : markdown_code(render::hot_line_text(lines.front()))) << " |\n";
  }
  out << "\n";
  for (std::size_t i = 0; i < shown; ++i)
    if (render::stalls_shown_alone(summary, kernels[i]))  // no launch to show it under
      for (const auto& advice : kernels[i].advice)
        out << "- " << markdown_code(kernels[i].display_name) << ": " << markdown_escape(advice) << "\n";
  if (std::any_of(kernels.begin(), kernels.begin() + static_cast<std::ptrdiff_t>(shown),
                  [&](const StalledKernel& k) { return render::stalls_shown_alone(summary, k) && !k.advice.empty(); }))
    out << "\n";
}

void write_kernel_details(const KernelAnalysis& k, const std::string& name, std::ostream& out) {
  out << "#### [" << k.sequence << "] " << markdown_code(name) << "\n\n";
  const auto configuration = render::launch_configuration_text(k.grid, k.block);
  if (!configuration.empty() || k.registers_per_thread) {
    out << configuration;
    if (k.registers_per_thread) out << (configuration.empty() ? "" : ", ") << *k.registers_per_thread << " registers";
    out << "\n\n";
  }
  out << "**" << (k.verdict ? verdict_label(k) + "-limited" : "no verdict")
      << "**: " << markdown_escape(k.verdict_reason) << "\n\n";
  if (!k.coverage_note.empty()) out << "_" << markdown_escape(k.coverage_note) << "_\n\n";
  const bool lmem = k.lmem.l2_sectors.value_or(0) > 0 || k.lmem.instruction_share.value_or(0) > 0;
  if (lmem) {
    out << "- LMEM: " << format_percent(k.lmem.l2_share) << " of L1-L2 traffic";
    if (k.lmem.l2_share_is_upper_bound)
      out << " (upper bound; at least " << format_percent(k.lmem.l2_share_lower_bound) << ")";
    out << ", slides' estimate " << format_percent(k.lmem.l2_share_seed) << "; "
        << format_percent(k.lmem.instruction_share) << " of instructions; L1 hit rate ld "
        << format_percent(k.lmem.l1_load_hit_rate) << " / st " << format_percent(k.lmem.l1_store_hit_rate) << "\n";
  }
  for (const auto& warning : k.lmem.warnings) out << "- warning: " << markdown_escape(warning) << "\n";
  if (k.ncu_verdict) {
    out << "- ncu SOL: SM " << format_fixed(*k.ncu_sm_throughput, 1) << "%, memory "
        << format_fixed(*k.ncu_memory_throughput, 1) << "% → " << to_string(*k.ncu_verdict)
        << (k.verdict && *k.verdict == *k.ncu_verdict ? " (agrees)" : " (**differs**)") << "\n";
  }
  if (k.stalls) {
    out << "- why it waits: " << markdown_escape(render::why_it_waits_text(*k.stalls)) << "\n";
    for (std::size_t i = 0; i < k.stalls->hot_lines.size() && i < render::kShownHotLines; ++i)
      out << "  - " << markdown_code(render::hot_line_text(k.stalls->hot_lines[i])) << "\n";
  }
  for (const auto& advice : k.advice) out << "- " << markdown_escape(advice) << "\n";
  if (lmem || !k.lmem.warnings.empty() || k.ncu_verdict || k.stalls || !k.advice.empty()) out << "\n";
}

void write_markdown_body(const RunSummary& summary, std::ostream& out, const ReportOptions& options) {
  const auto& run = summary.run;
  out << "## limiter report — " << markdown_escape(render::device_text(run.device)) << "\n\n"
      << "Source: " << markdown_escape(run.source.empty() ? "?" : run.source) << ", " << to_string(run.counter_model)
      << " counters; peaks: " << to_string(run.peaks) << " (" << markdown_escape(run.peaks_origin) << "). ";
  if (run.cache_control) out << "Caches: " << markdown_escape(render::cache_control_text(run.cache_control)) << ". ";
  out << markdown_escape(render::run_scope_text(summary)) << ".";
  if (run.stall_sampling) out << " " << markdown_escape(render::stall_sampling_text(*run.stall_sampling)) << ".";
  out << "\n\n";
  for (const auto& note : render::collection_notes(summary))
    out << "> **Warning:** " << markdown_escape(note) << "\n\n";
  write_program(summary, out);
  write_time_by_verdict(summary, out);
  if (summary.groups.empty()) {  // a `--stalls` record has only samples
    write_why_they_wait(summary, options.top, out);
    return;
  }
  write_fix_first(summary, out);
  const bool grouped = options.grouped(summary);
  if (grouped)
    write_group_table(summary, options, out);
  else
    write_launch_table(summary, options, out);
  write_why_they_wait(summary, options.top, out);
  write_nvtx_ranges(summary, out);

  if (grouped) {
    if (summary.fix_first.empty()) return;
    out << "<details><summary>Reasons and advice: the longest launch of each kernel to fix first</summary>\n\n";
    for (const auto& item : summary.fix_first) {
      const auto& group = summary.groups[item.group];
      write_kernel_details(group.longest, group.display_name, out);
    }
  } else {
    out << "<details><summary>Reasons and advice for each kernel</summary>\n\n";
    for (const KernelAnalysis* k :
         render::launches_by_time(summary, options.view == ReportView::launches ? options.top : 0))
      write_kernel_details(*k, summary.display_name(k->name), out);
  }
  out << "</details>\n";
}

}  // namespace

void write_markdown_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options) {
  write_markdown_body(summary, out, options);
  if (const std::string hint = render::no_timeline_hint(summary); !hint.empty())
    out << "\n> " << markdown_escape(hint) << "\n";
}

}  // namespace limiter
