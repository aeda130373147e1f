// The terminal renderers: the report table (most expensive kernels first), its roll-ups and
// each kernel's reason and advice; and the before/after comparison table.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <ostream>
#include <sstream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "limiter/rollup.hpp"
#include "render_helpers.hpp"

namespace limiter {
namespace {

using render::pad;
using render::short_name;
using render::shorten;
using render::verdict_label;

const char* verdict_color(const std::optional<Verdict>& verdict) {
  if (!verdict) return "\033[2m";
  switch (*verdict) {
    case Verdict::bandwidth: return "\033[36m";
    case Verdict::instruction: return "\033[35m";
    case Verdict::latency: return "\033[33m";
  }
  return "";
}

const char* const kColorReset = "\033[0m";

// A coloured cell: the colour codes go around the padded text so columns stay aligned.
std::string colored(const std::string& padded, const char* color, bool use_color) {
  return use_color ? color + padded + kColorReset : padded;
}

void write_rollups(const RunAnalysis& analysis, const RunRollup& rollup, std::ostream& out) {
  out << "\ntime by verdict:";
  std::vector<VerdictTime> by_time = rollup.time_by_verdict;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const VerdictTime& a, const VerdictTime& b) { return a.duration_ns > b.duration_ns; });
  bool first = true;
  for (const auto& entry : by_time) {
    if (entry.launches == 0) continue;
    out << (first ? " " : ", ") << verdict_label(entry.verdict) << " " << format_percent(entry.time_share, 0) << " ("
        << entry.launches << (entry.launches == 1 ? " launch)" : " launches)");
    first = false;
  }
  out << "; " << format_duration_ns(rollup.total_ns) << " in " << rollup.launches
      << (rollup.launches == 1 ? " launch" : " launches") << "\n";

  if (!rollup.has_repeated_launches()) {
    out << "launches grouped by kernel and configuration: each was launched once\n";
  } else {
    out << "\nlaunches grouped by kernel and configuration (most time first):\n"
        << pad("kernel", 34, true) << pad("grid x block", 26, true) << pad("launches", 9) << pad("total", 11)
        << pad("mean", 11) << pad("min", 11) << pad("max", 11) << pad("time%", 7) << "  verdicts\n";
    for (const auto& group : rollup.groups) {
      out << pad(shorten(short_name(group.name), 33), 34, true)
          << pad(group.block.count() > 0 ? render::dim3_text(group.grid) + " x " + render::dim3_text(group.block) : "—",
                 26, true)
          << pad(std::to_string(group.launches()), 9)
          << pad(render::precise_duration_text(group.durations.total_ns), 11)
          << pad(render::precise_duration_text(group.durations.mean_ns), 11)
          << pad(render::precise_duration_text(group.durations.min_ns), 11)
          << pad(render::precise_duration_text(group.durations.max_ns), 11) << pad(format_percent(group.time_share, 0), 7)
          << "  " << render::verdict_mix_text(group.verdicts) << "\n";
    }
  }

  if (rollup.fix_first.empty()) return;
  out << "\nwhat to fix first (most time first):\n";
  for (std::size_t rank = 0; rank < rollup.fix_first.size(); ++rank) {
    const auto& item = rollup.fix_first[rank];
    const auto& group = rollup.groups[item.group];
    const auto& kernel = analysis.kernels[item.representative];
    out << "  " << rank + 1 << ". " << pad(shorten(short_name(group.name), 30), 31, true) << "[" << kernel.sequence
        << "] " << pad(render::duration_text(group.durations.total_ns), 10) << pad(format_percent(group.time_share, 0), 5)
        << "  " << pad(verdict_label(item.verdict), 12, true) << "  " << item.headline << "\n";
  }
}

}  // namespace

void write_text_report(const RunAnalysis& analysis, std::ostream& out, const TextReportOptions& options) {
  out << "limiter report — " << render::device_text(analysis.device);
  out << "\nsource: " << (analysis.source.empty() ? "?" : analysis.source) << ", "
      << to_string(analysis.counter_model) << " counters; peaks: " << to_string(analysis.peaks) << " ("
      << analysis.peaks_origin << ")\n";

  std::vector<std::size_t> order(analysis.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return analysis.kernels[a].duration_ns.value_or(-1) > analysis.kernels[b].duration_ns.value_or(-1);
  });
  const double total_ns = std::accumulate(analysis.kernels.begin(), analysis.kernels.end(), 0.0,
                                          [](double sum, const KernelAnalysis& k) { return sum + k.duration_ns.value_or(0); });

  out << "\n" << pad("#", 4, true) << pad("kernel", 34, true) << pad("time", 11) << pad("time%", 7) << "  "
      << pad("verdict", 18, true) << pad("issue", 7) << pad("L2", 7) << pad("DRAM", 7) << pad("LMEM-L2", 9)
      << pad("LMEM-inst", 10) << pad("occ.", 7) << "\n";
  out << std::string(121, '-') << "\n";
  for (std::size_t index : order) {
    const auto& k = analysis.kernels[index];
    const auto occupancy = k.occupancy.theoretical ? std::optional<double>(k.occupancy.theoretical->occupancy)
                                                   : std::nullopt;
    out << pad(std::to_string(k.sequence), 4, true) << pad(shorten(short_name(k.name), 33), 34, true)
        << pad(k.duration_ns ? format_duration_ns(*k.duration_ns) : "—", 11)
        << pad(k.duration_ns && total_ns > 0 ? format_percent(*k.duration_ns / total_ns, 0) : "—", 7) << "  ";
    out << colored(pad(verdict_label(k), 18, true), verdict_color(k.verdict), options.color);
    out << pad(format_percent(k.utilization.issue, 0), 7) << pad(format_percent(k.utilization.l2, 0), 7)
        << pad(format_percent(k.utilization.dram, 0), 7)
        << pad((k.lmem.l2_share_is_upper_bound ? "<=" : "") + format_percent(k.lmem.l2_share, 1), 9)
        << pad(format_percent(k.lmem.instruction_share, 1), 10) << pad(format_percent(occupancy, 0), 7) << "\n";
  }
  if (options.rollups) write_rollups(analysis, rollup_run(analysis), out);
  if (!options.details) return;
  for (std::size_t index : order) {
    const auto& k = analysis.kernels[index];
    out << "\n[" << k.sequence << "] " << k.name;
    if (k.block.count() > 0) {
      out << "  grid (" << k.grid.x << "," << k.grid.y << "," << k.grid.z << ") x block (" << k.block.x << ","
          << k.block.y << "," << k.block.z << ")";
    }
    if (k.registers_per_thread) out << ", " << *k.registers_per_thread << " registers";
    out << "\n  " << (k.verdict ? verdict_label(k) + "-limited: " : "no verdict: ") << k.verdict_reason << "\n";
    if (k.lmem.l2_sectors.value_or(0) > 0 || k.lmem.instruction_share.value_or(0) > 0) {
      out << "  LMEM: " << format_percent(k.lmem.l2_share) << " of L1-L2 traffic";
      if (k.lmem.l2_share_is_upper_bound) out << " (upper bound; at least " << format_percent(k.lmem.l2_share_lower_bound) << ")";
      out << ", seed estimate " << format_percent(k.lmem.l2_share_seed) << "; " << format_percent(k.lmem.instruction_share)
          << " of instructions; L1 hit rate ld " << format_percent(k.lmem.l1_load_hit_rate) << " / st "
          << format_percent(k.lmem.l1_store_hit_rate) << "\n";
    }
    for (const auto& warning : k.lmem.warnings) out << "  warning: " << warning << "\n";
    if (k.ncu_verdict) {
      out << "  ncu SOL: SM " << format_fixed(*k.ncu_sm_throughput, 1) << "%, memory "
          << format_fixed(*k.ncu_memory_throughput, 1) << "% -> " << to_string(*k.ncu_verdict)
          << (k.verdict && *k.verdict == *k.ncu_verdict ? " (agrees)" : " (DIFFERS)") << "\n";
    }
    for (const auto& advice : k.advice) out << "  - " << advice << "\n";
  }
}

namespace {

const char* change_color(const std::string& kind) {
  if (kind == "slower") return "\033[31m";
  if (kind == "faster") return "\033[32m";
  return "\033[2m";
}

std::string before_after(const std::string& before, const std::string& after) { return before + " -> " + after; }

std::string percent_pair(const std::optional<double>& before, const std::optional<double>& after, int decimals) {
  return render::before_after_text(format_percent(before, decimals), format_percent(after, decimals), " -> ");
}

std::string sequence_pair(const KernelComparison& k) {
  return std::to_string(k.before.sequence) + ">" + std::to_string(k.after.sequence);
}

std::string total_line(const TimeChange& time) {
  return before_after(render::precise_duration_text(time.before_ns), render::precise_duration_text(time.after_ns)) + ", " +
         render::change_percent_text(time.change) + " (" + render::speed_factor_text(time.ratio) + ")";
}

void write_unmatched(const std::string& title, const std::vector<KernelAnalysis>& kernels, std::ostream& out) {
  out << "\n" << title << ": " << (kernels.empty() ? "none" : std::to_string(kernels.size())) << "\n";
  for (const auto& k : kernels) {
    out << "  [" << k.sequence << "] " << short_name(k.name);
    const auto configuration = render::launch_configuration_text(k.grid, k.block);
    if (!configuration.empty()) out << "  " << configuration;
    out << "  " << render::precise_duration_text(k.duration_ns) << "  " << verdict_label(k) << "\n";
  }
}

}  // namespace

void write_text_comparison(const RunComparison& comparison, std::ostream& out, bool color) {
  out << "limiter compare — before: " << comparison.before_label << "\n"
      << "                  after:  " << comparison.after_label << "\n";
  const std::string before_device = render::device_text(comparison.before_device);
  const std::string after_device = render::device_text(comparison.after_device);
  out << "device: " << before_device;
  if (after_device != before_device) out << " -> " << after_device << " (different GPUs: times are not comparable)";
  out << "\n";
  const auto& totals = comparison.totals;
  out << "total: " << total_line(totals.all) << "; " << totals.before_launches << " -> " << totals.after_launches
      << " launches\n";
  out << "matched: " << comparison.matched.size() << " launches, " << total_line(totals.matched) << "\n";
  if (comparison.max_slowdown) {
    const std::string limit = format_percent(*comparison.max_slowdown, 1);
    if (comparison.failed()) {
      out << colored("gate FAILED", "\033[31m", color) << ": slower by more than " << limit << ":";
      if (totals.slower_than_limit) out << " the total (" << render::change_percent_text(totals.all.change) << ")";
      for (const auto& k : comparison.matched) {
        if (k.slower_than_limit)
          out << " " << short_name(k.before.name) << " [" << k.before.sequence << "] ("
              << render::change_percent_text(k.time.change) << ")";
      }
      out << "\n";
    } else {
      out << colored("gate passed", "\033[32m", color) << ": no matched kernel and not the total slower by more than "
          << limit << "\n";
    }
  }

  const auto order = render::comparison_display_order(comparison);
  if (!order.empty()) {
    out << "\n" << pad("#", 8, true) << pad("kernel", 32, true) << pad("before", 11) << pad("after", 11)
        << pad("change", 9) << pad("speed", 15) << "  " << pad("note", 7, true) << "verdict before -> after\n";
    out << std::string(121, '-') << "\n";
    for (std::size_t index : order) {
      const auto& k = comparison.matched[index];
      const std::string kind = render::change_kind(k);
      out << pad(sequence_pair(k), 8, true) << pad(shorten(short_name(k.before.name), 31), 32, true)
          << pad(render::precise_duration_text(k.time.before_ns), 11)
          << pad(render::precise_duration_text(k.time.after_ns), 11)
          << colored(pad(render::change_percent_text(k.time.change), 9), change_color(kind), color)
          << pad(render::speed_factor_text(k.time.ratio), 15) << "  "
          << pad(k.within_noise ? "noise" : k.slower_than_limit ? "SLOWER" : "", 7, true)
          << before_after(verdict_label(k.before), verdict_label(k.after)) << (k.verdict_changed ? "  (changed)" : "")
          << "\n";
    }
    if (std::any_of(comparison.matched.begin(), comparison.matched.end(),
                    [](const KernelComparison& k) { return k.within_noise; })) {
      out << "noise: the kernel has several launches and the change lies within their min..max on one side\n";
    }

    out << "\n" << pad("#", 8, true) << pad("kernel", 32, true) << pad("issue", 14) << pad("L2", 14)
        << pad("DRAM", 14) << pad("LMEM-L2", 18) << pad("LMEM-inst", 18) << "\n";
    for (std::size_t index : order) {
      const auto& k = comparison.matched[index];
      out << pad(sequence_pair(k), 8, true) << pad(shorten(short_name(k.before.name), 31), 32, true)
          << pad(percent_pair(k.before.utilization.issue, k.after.utilization.issue, 0), 14)
          << pad(percent_pair(k.before.utilization.l2, k.after.utilization.l2, 0), 14)
          << pad(percent_pair(k.before.utilization.dram, k.after.utilization.dram, 0), 14)
          << pad(percent_pair(k.before.lmem.l2_share, k.after.lmem.l2_share, 1), 18)
          << pad(percent_pair(k.before.lmem.instruction_share, k.after.lmem.instruction_share, 1), 18) << "\n";
    }
  }
  write_unmatched("only in before", comparison.only_before, out);
  write_unmatched("only in after", comparison.only_after, out);
}

}  // namespace limiter
