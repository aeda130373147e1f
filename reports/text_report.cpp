// The terminal report. Grouped view (a run that repeats kernels): the groups with the most
// time on one screen, what to fix first and the advice for those. Launch view: one row per
// launch, then each launch's reason and advice. Kernel names come last in every table, so no
// width of name or sequence number pushes the figures out of line.
#include <algorithm>
#include <ostream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "program_render.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"
#include "text_table.hpp"
#include "timeline_render.hpp"

namespace limiter {
namespace {

using render::TextTable;
using render::verdict_label;
using Align = TextTable::Align;

std::string verdict_color(const std::optional<Verdict>& verdict, bool use_color) {
  if (!use_color) return "";
  if (!verdict) return "\033[2m";
  switch (*verdict) {
    case Verdict::bandwidth:
      return "\033[36m";
    case Verdict::instruction:
      return "\033[35m";
    case Verdict::latency:
      return "\033[33m";
  }
  return "";
}

std::string lmem_l2_text(const std::optional<double>& share, bool upper_bound) {
  return (upper_bound && share ? "<=" : "") + format_percent(share, 1);
}

// The program verdict first: whether the GPU is the bottleneck at all (records with a timeline).
void write_program(const RunSummary& summary, std::ostream& out) {
  if (!summary.program) return;
  const auto& p = *summary.program;
  out << "program: " << p.reason << "\n";
  if (!p.window_note.empty()) out << "  (" << p.window_note << ")\n";  // a run of several phases: where it was judged
  for (const auto& advice : p.advice) out << "  - " << advice << "\n";
  if (p.ranges.empty()) return;
  constexpr std::size_t kShown = 10;
  out << "  by NVTX range" << (p.ranges.size() > kShown ? " (top " + std::to_string(kShown) + " by time)" : "")
      << ":\n";
  TextTable table({{"wall"}, {"instances"}, {"GPU busy"}, {"verdict", Align::left}, {"range", Align::left}});
  for (std::size_t i = 0; i < p.ranges.size() && i < kShown; ++i) {
    const auto& r = p.ranges[i];
    table.add_row({format_duration_ns(r.split.wall_ns), std::to_string(r.instances),
                   format_percent(r.split.busy_share(), 0), std::string(to_string(r.verdict)), r.range});
  }
  table.write(out, "    ");
}

void write_header(const RunSummary& summary, std::ostream& out) {
  const auto& run = summary.run;
  out << "limiter report — " << render::device_text(run.device)
      << "\nsource: " << (run.source.empty() ? "?" : run.source) << ", " << to_string(run.counter_model)
      << " counters; peaks: " << to_string(run.peaks) << " (" << run.peaks_origin << ")\n";
  if (run.cache_control) out << "caches: " << render::cache_control_text(run.cache_control) << "\n";
  out << render::run_scope_text(summary) << "\n";
  if (run.stall_sampling) out << render::stall_sampling_text(*run.stall_sampling) << "\n";
  for (const auto& note : render::collection_notes(summary)) out << "WARNING: " << note << "\n";
  write_program(summary, out);
  if (!render::has_verdict_time(summary.time_by_verdict)) return;  // a timeline or samples alone
  out << "time by verdict:";
  bool first = true;
  std::vector<VerdictTime> by_time = summary.time_by_verdict;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const VerdictTime& a, const VerdictTime& b) { return a.duration_ns > b.duration_ns; });
  for (const auto& entry : by_time) {
    if (entry.launches == 0) continue;
    out << (first ? " " : ", ") << verdict_label(entry.verdict) << " " << format_percent(entry.time_share, 0) << " ("
        << render::count_text(entry.launches) << (entry.launches == 1 ? " launch)" : " launches)");
    first = false;
  }
  out << "\n";
}

// The kernels with PC samples, most samples first (TOP of them; 0: all): their dominant stall
// reasons; a kernel without launches in the record (a `--stalls` record has none) also its hot
// lines and advice, which the others show under their launch.
void write_why_they_wait(const RunSummary& summary, std::size_t top, std::ostream& out) {
  const auto& kernels = summary.stalled_kernels;
  if (kernels.empty()) return;
  const std::size_t shown = top == 0 ? kernels.size() : std::min(top, kernels.size());
  out << "\nwhy they wait (PC samples by stall reason, most samples first"
      << (shown < kernels.size() ? "; " + std::to_string(shown) + " of " + std::to_string(kernels.size()) : "")
      << "):\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = kernels[i];
    out << "  " << k.display_name << " (" << render::stalled_group_text(summary, k, ", ", "no launch in the record")
        << "): " << render::why_it_waits_text(*k.stalls) << "\n";
    if (!render::stalls_shown_alone(summary, k)) continue;  // shown under its launch
    for (std::size_t l = 0; l < k.stalls->hot_lines.size() && l < render::kShownHotLines; ++l)
      out << "      " << render::hot_line_text(k.stalls->hot_lines[l]) << "\n";
    for (const auto& advice : k.advice) out << "    - " << advice << "\n";
  }
}

void write_group_table(const RunSummary& summary, const ReportOptions& options, std::ostream& out) {
  const std::size_t shown = render::shown_group_count(summary, options.top);
  // With a timeline that holds kernels, the time columns are the timeline's and "profiled" counts the counters'
  // launches.
  const bool timeline = render::shows_timeline_time(summary);
  out << "\nkernels by time" << (timeline ? " on the timeline" : "") << ", grouped by name and launch configuration"
      << (shown < summary.groups.size()
              ? " (top " + std::to_string(shown) + " of " + std::to_string(summary.groups.size()) +
                    "; --top N for more, --launches for one row per launch)"
              : " (--launches for one row per launch)")
      << ":\n";
  std::vector<TextTable::Column> columns = {{"#"}, {"time%"}, {"total"}, {"launches"}, {"mean"}, {"min"}, {"max"}};
  if (timeline) columns.push_back({"profiled"});
  columns.insert(columns.end(), {{"verdict", Align::left},
                                 {"unit", Align::left},
                                 {"LMEM-L2"},
                                 {"LMEM-inst"},
                                 {"grid x block", Align::left},
                                 {"kernel", Align::left}});
  TextTable table(std::move(columns));
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& g = summary.groups[i];
    const auto& d = render::shown_durations(g);
    std::vector<std::string> cells = {std::to_string(i + 1),
                                      format_percent(render::shown_time_share(g), 0),
                                      render::precise_duration_text(d.total_ns),
                                      render::shown_launches_text(g),
                                      render::precise_duration_text(d.mean_ns),
                                      render::precise_duration_text(d.min_ns),
                                      render::precise_duration_text(d.max_ns)};
    if (timeline) cells.push_back(render::profiled_launches_text(g));
    cells.insert(cells.end(), {render::group_verdict_text(g), g.limiting_unit,
                               lmem_l2_text(g.lmem_l2_share, g.lmem_l2_share_is_upper_bound),
                               format_percent(g.lmem_instruction_share, 1),
                               render::configuration_text(g.grid, g.block, "x"), g.display_name});
    table.add_row(std::move(cells), verdict_color(g.main_verdict, options.color), timeline ? 8 : 7);
  }
  table.write(out);
  if (shown < summary.groups.size()) {
    double rest_ns = 0, rest_share = 0;
    std::size_t rest_launches = 0;
    for (std::size_t i = shown; i < summary.groups.size(); ++i) {
      rest_ns += render::shown_durations(summary.groups[i]).total_ns.value_or(0);
      rest_share += render::shown_time_share(summary.groups[i]).value_or(0);
      rest_launches += render::shown_launches(summary.groups[i]);
    }
    out << "... " << summary.groups.size() - shown
        << " more: " << format_percent(timeline ? std::optional<double>(rest_share) : summary.share_of_run(rest_ns), 1)
        << " of the time in " << render::count_text(rest_launches) << " launches\n";
  }
  if (summary.launches > 0)  // a timeline alone (--trace) has no verdict to explain
    out << "verdict: of most of the group's time, with the launches that differ in parentheses; LMEM shares: "
           "means weighted by time\n";
  if (timeline) out << render::timeline_columns_note(summary) << "\n";
  for (const auto& note : render::no_counters_notes(summary, shown)) out << render::no_counters_note_text(note) << "\n";
}

void write_launch_table(const RunSummary& summary, const ReportOptions& options, std::ostream& out) {
  const auto order = render::launches_by_time(summary, options.view == ReportView::launches ? options.top : 0);
  out << "\n";
  if (order.size() < summary.run.kernels.size())
    out << "launches by time (top " << order.size() << " of " << render::count_text(summary.run.kernels.size())
        << "):\n";
  TextTable table({{"#"},
                   {"time"},
                   {"time%"},
                   {"verdict", Align::left},
                   {"issue"},
                   {"L2"},
                   {"DRAM"},
                   {"LMEM-L2"},
                   {"LMEM-inst"},
                   {"occ."},
                   {"kernel", Align::left}});
  for (const KernelAnalysis* k : order) {
    table.add_row(
        {std::to_string(k->sequence), render::duration_text(k->duration_ns),
         format_percent(summary.share_of_run(k->duration_ns), 0), verdict_label(*k),
         format_percent(k->utilization.issue, 0), format_percent(k->utilization.l2, 0),
         format_percent(k->utilization.dram, 0), lmem_l2_text(k->lmem.l2_share, k->lmem.l2_share_is_upper_bound),
         format_percent(k->lmem.instruction_share, 1), format_percent(render::occupancy_of(*k), 0),
         summary.display_name(k->name)},
        verdict_color(k->verdict, options.color), 3);
  }
  table.write(out);
}

void write_nvtx_ranges(const RunSummary& summary, std::ostream& out) {
  if (summary.nvtx_ranges.empty()) return;
  out << "\ntime by NVTX range (the ranges around each launch):\n";
  TextTable table({{"time%"},
                   {"total"},
                   {"launches"},
                   {"verdict", Align::left},
                   {"range", Align::left},
                   {"top kernels", Align::left}});
  for (const auto& r : summary.nvtx_ranges) {
    std::string kernels;
    for (const auto& name : r.top_kernels) kernels += (kernels.empty() ? "" : ", ") + name;
    table.add_row({format_percent(r.time_share, 0), render::precise_duration_text(r.durations.total_ns),
                   render::count_text(r.launches), verdict_label(r.main_verdict), r.ranges, kernels});
  }
  table.write(out);
}

void write_fix_first(const RunSummary& summary, std::ostream& out) {
  const auto lines = render::fix_first_lines(summary);
  if (lines.empty()) return;
  out << "\nwhat to fix first (most time first" << (summary.program ? ", the program's fixes among the kernels" : "")
      << "):\n";
  for (std::size_t rank = 0; rank < lines.size(); ++rank) {
    if (lines[rank].program) {
      const auto& fix = *lines[rank].program;
      out << "  " << rank + 1 << ". program: " << render::fix_program_text(fix) << ": " << fix.headline << "\n";
      continue;
    }
    const auto& item = *lines[rank].kernel;
    const auto& g = summary.groups[item.group];
    out << "  " << rank + 1 << ". " << g.display_name << " [" << g.longest.sequence << "] — "
        << render::duration_text(render::shown_durations(g).total_ns) << " ("
        << format_percent(render::shown_time_share(g), 0) << "), " << verdict_label(g.longest.verdict) << ": "
        << item.headline << "\n";
  }
}

void write_details(const KernelAnalysis& k, const std::string& name, std::ostream& out) {
  out << "\n[" << k.sequence << "] " << name;
  const auto configuration = render::launch_configuration_text(k.grid, k.block);
  if (!configuration.empty()) out << "  " << configuration;
  if (k.registers_per_thread) out << ", " << *k.registers_per_thread << " registers";
  out << "\n  " << (k.verdict ? verdict_label(k) + "-limited: " : "no verdict: ") << k.verdict_reason << "\n";
  if (!k.coverage_note.empty()) out << "  " << k.coverage_note << "\n";
  if (k.stalls) {
    out << "  why it waits: " << render::why_it_waits_text(*k.stalls) << "\n";
    for (std::size_t i = 0; i < k.stalls->hot_lines.size() && i < render::kShownHotLines; ++i)
      out << "    " << render::hot_line_text(k.stalls->hot_lines[i]) << "\n";
  }
  if (k.lmem.l2_sectors.value_or(0) > 0 || k.lmem.instruction_share.value_or(0) > 0) {
    out << "  LMEM: " << format_percent(k.lmem.l2_share) << " of L1-L2 traffic";
    if (k.lmem.l2_share_is_upper_bound)
      out << " (upper bound; at least " << format_percent(k.lmem.l2_share_lower_bound) << ")";
    out << ", slides' estimate " << format_percent(k.lmem.l2_share_seed) << "; "
        << format_percent(k.lmem.instruction_share) << " of instructions; L1 hit rate ld "
        << format_percent(k.lmem.l1_load_hit_rate) << " / st " << format_percent(k.lmem.l1_store_hit_rate) << "\n";
  }
  for (const auto& warning : k.lmem.warnings) out << "  warning: " << warning << "\n";
  if (k.ncu_verdict) {
    out << "  ncu SOL: SM " << format_fixed(*k.ncu_sm_throughput, 1) << "%, memory "
        << format_fixed(*k.ncu_memory_throughput, 1) << "% -> " << to_string(*k.ncu_verdict)
        << (k.verdict && *k.verdict == *k.ncu_verdict ? " (agrees)" : " (DIFFERS)") << "\n";
  }
  for (const auto& advice : k.advice) out << "  - " << advice << "\n";
}

void write_text_body(const RunSummary& summary, std::ostream& out, const ReportOptions& options) {
  write_header(summary, out);
  if (summary.groups.empty()) {  // the header says "no launches"; a `--stalls` record has only samples
    write_why_they_wait(summary, options.top, out);
    return;
  }
  const bool grouped = options.grouped(summary);
  if (grouped)
    write_group_table(summary, options, out);
  else
    write_launch_table(summary, options, out);
  write_why_they_wait(summary, options.top, out);
  write_nvtx_ranges(summary, out);
  write_fix_first(summary, out);
  if (!options.details) return;
  if (grouped) {
    if (!summary.fix_first.empty()) out << "\nthe longest launch of each kernel to fix first:\n";
    for (const auto& item : summary.fix_first) {
      const auto& group = summary.groups[item.group];
      write_details(group.longest, group.display_name, out);
    }
    return;
  }
  for (const KernelAnalysis* k :
       render::launches_by_time(summary, options.view == ReportView::launches ? options.top : 0))
    write_details(*k, summary.display_name(k->name), out);
}

}  // namespace

void write_text_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options) {
  write_text_body(summary, out, options);
  if (const std::string hint = render::no_timeline_hint(summary); !hint.empty()) out << "\n" << hint << "\n";
}

}  // namespace limiter
