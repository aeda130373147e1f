// GitHub-flavoured Markdown for pull-request comments: the roll-ups first (what a reviewer
// reads), then the table, with each kernel's reasons and advice folded under <details>.
#include <algorithm>
#include <numeric>
#include <ostream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "limiter/rollup.hpp"
#include "render_helpers.hpp"

namespace limiter {
namespace {

using render::markdown_code;
using render::markdown_escape;
using render::short_name;
using render::verdict_label;

std::string plural(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

void write_time_by_verdict(const RunRollup& rollup, std::ostream& out) {
  std::vector<VerdictTime> by_time = rollup.time_by_verdict;
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

void write_fix_first(const RunAnalysis& analysis, const RunRollup& rollup, std::ostream& out) {
  if (rollup.fix_first.empty()) return;
  out << "### What to fix first\n\n";
  for (std::size_t rank = 0; rank < rollup.fix_first.size(); ++rank) {
    const auto& item = rollup.fix_first[rank];
    const auto& group = rollup.groups[item.group];
    out << rank + 1 << ". **" << markdown_code(short_name(group.name)) << "** [" << analysis.kernels[item.representative].sequence
        << "] — " << render::duration_text(group.durations.total_ns) << " (" << format_percent(group.time_share, 0)
        << "), " << verdict_label(item.verdict) << ": " << markdown_escape(item.headline) << "\n";
  }
  out << "\n";
}

void write_kernel_table(const RunAnalysis& analysis, const RunRollup& rollup, std::ostream& out) {
  std::vector<std::size_t> order(analysis.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return analysis.kernels[a].duration_ns.value_or(-1) > analysis.kernels[b].duration_ns.value_or(-1);
  });
  out << "### Kernels (most time first)\n\n"
      << "| # | kernel | time | time % | verdict | issue | L2 | DRAM | LMEM-L2 | LMEM-inst | occ. |\n"
      << "|--:|:--|--:|--:|:--|--:|--:|--:|--:|--:|--:|\n";
  for (std::size_t index : order) {
    const auto& k = analysis.kernels[index];
    const auto occupancy = k.occupancy.theoretical ? std::optional<double>(k.occupancy.theoretical->occupancy)
                                                   : std::nullopt;
    const auto time_share = k.duration_ns && rollup.total_ns > 0 ? std::optional<double>(*k.duration_ns / rollup.total_ns)
                                                                  : std::nullopt;
    out << "| " << k.sequence << " | " << markdown_code(short_name(k.name)) << " | " << render::duration_text(k.duration_ns)
        << " | " << format_percent(time_share, 0) << " | " << verdict_label(k) << " | "
        << format_percent(k.utilization.issue, 0) << " | " << format_percent(k.utilization.l2, 0) << " | "
        << format_percent(k.utilization.dram, 0) << " | " << (k.lmem.l2_share_is_upper_bound ? "≤" : "")
        << format_percent(k.lmem.l2_share, 1) << " | " << format_percent(k.lmem.instruction_share, 1) << " | "
        << format_percent(occupancy, 0) << " |\n";
  }
  out << "\n";
}

void write_groups(const RunRollup& rollup, std::ostream& out) {
  if (!rollup.has_repeated_launches()) {
    out << "Each kernel and launch configuration was launched once.\n\n";
    return;
  }
  out << "### Launches grouped by kernel and configuration\n\n"
      << "| kernel | grid × block | launches | total | mean | min | max | time % | verdicts |\n"
      << "|:--|:--|--:|--:|--:|--:|--:|--:|:--|\n";
  for (const auto& group : rollup.groups) {
    out << "| " << markdown_code(short_name(group.name)) << " | "
        << (group.block.count() > 0 ? render::dim3_text(group.grid) + " × " + render::dim3_text(group.block) : "—")
        << " | " << group.launches() << " | " << render::precise_duration_text(group.durations.total_ns) << " | "
        << render::precise_duration_text(group.durations.mean_ns) << " | "
        << render::precise_duration_text(group.durations.min_ns) << " | "
        << render::precise_duration_text(group.durations.max_ns) << " | " << format_percent(group.time_share, 0)
        << " | " << render::verdict_mix_text(group.verdicts) << " |\n";
  }
  out << "\n";
}

void write_kernel_details(const KernelAnalysis& k, std::ostream& out) {
  out << "#### [" << k.sequence << "] " << markdown_code(k.name) << "\n\n";
  const auto configuration = render::launch_configuration_text(k.grid, k.block);
  if (!configuration.empty() || k.registers_per_thread) {
    out << configuration;
    if (k.registers_per_thread) out << (configuration.empty() ? "" : ", ") << *k.registers_per_thread << " registers";
    out << "\n\n";
  }
  out << "**" << (k.verdict ? verdict_label(k) + "-limited" : "no verdict") << "**: " << markdown_escape(k.verdict_reason)
      << "\n\n";
  if (k.lmem.l2_sectors.value_or(0) > 0 || k.lmem.instruction_share.value_or(0) > 0) {
    out << "- LMEM: " << format_percent(k.lmem.l2_share) << " of L1-L2 traffic";
    if (k.lmem.l2_share_is_upper_bound) out << " (upper bound; at least " << format_percent(k.lmem.l2_share_lower_bound) << ")";
    out << ", seed estimate " << format_percent(k.lmem.l2_share_seed) << "; " << format_percent(k.lmem.instruction_share)
        << " of instructions; L1 hit rate ld " << format_percent(k.lmem.l1_load_hit_rate) << " / st "
        << format_percent(k.lmem.l1_store_hit_rate) << "\n";
  }
  for (const auto& warning : k.lmem.warnings) out << "- warning: " << markdown_escape(warning) << "\n";
  if (k.ncu_verdict) {
    out << "- ncu SOL: SM " << format_fixed(*k.ncu_sm_throughput, 1) << "%, memory "
        << format_fixed(*k.ncu_memory_throughput, 1) << "% → " << to_string(*k.ncu_verdict)
        << (k.verdict && *k.verdict == *k.ncu_verdict ? " (agrees)" : " (**differs**)") << "\n";
  }
  for (const auto& advice : k.advice) out << "- " << markdown_escape(advice) << "\n";
  const bool wrote_list = k.lmem.l2_sectors.value_or(0) > 0 || k.lmem.instruction_share.value_or(0) > 0 ||
                          !k.lmem.warnings.empty() || k.ncu_verdict || !k.advice.empty();
  if (wrote_list) out << "\n";
}

}  // namespace

void write_markdown_report(const RunAnalysis& analysis, std::ostream& out) {
  const RunRollup rollup = rollup_run(analysis);
  out << "## limiter report — " << markdown_escape(render::device_text(analysis.device)) << "\n\n"
      << "Source: " << markdown_escape(analysis.source.empty() ? "?" : analysis.source) << ", "
      << to_string(analysis.counter_model) << " counters; peaks: " << to_string(analysis.peaks) << " ("
      << markdown_escape(analysis.peaks_origin) << "). " << plural(rollup.launches, "launch", "launches") << ", "
      << format_duration_ns(rollup.total_ns) << " of kernel time.\n\n";
  write_time_by_verdict(rollup, out);
  write_fix_first(analysis, rollup, out);
  write_kernel_table(analysis, rollup, out);
  write_groups(rollup, out);

  std::vector<std::size_t> order(analysis.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return analysis.kernels[a].duration_ns.value_or(-1) > analysis.kernels[b].duration_ns.value_or(-1);
  });
  out << "<details><summary>Reasons and advice for each kernel</summary>\n\n";
  for (std::size_t index : order) write_kernel_details(analysis.kernels[index], out);
  out << "</details>\n";
}

namespace {

std::string arrow(const std::string& before, const std::string& after) {
  return render::before_after_text(before, after, " → ");
}

std::string percent_arrow(const std::optional<double>& before, const std::optional<double>& after, int decimals) {
  return arrow(format_percent(before, decimals), format_percent(after, decimals));
}

std::string total_text(const TimeChange& time) {
  return render::precise_duration_text(time.before_ns) + " → " + render::precise_duration_text(time.after_ns) + " (" +
         render::change_percent_text(time.change) + ", " + render::speed_factor_text(time.ratio) + ")";
}

void write_unmatched_list(const std::string& title, const std::vector<KernelAnalysis>& kernels, std::ostream& out) {
  if (kernels.empty()) return;
  out << "**" << title << "** (" << kernels.size() << "):\n\n";
  for (const auto& k : kernels) {
    out << "- [" << k.sequence << "] " << markdown_code(short_name(k.name));
    const auto configuration = render::launch_configuration_text(k.grid, k.block);
    if (!configuration.empty()) out << ", " << configuration;
    out << ", " << render::precise_duration_text(k.duration_ns) << ", " << verdict_label(k) << "\n";
  }
  out << "\n";
}

}  // namespace

void write_markdown_comparison(const RunComparison& comparison, std::ostream& out) {
  const auto& totals = comparison.totals;
  out << "## limiter compare\n\n"
      << "Before: " << markdown_code(comparison.before_label) << " · after: " << markdown_code(comparison.after_label)
      << " · " << markdown_escape(render::device_text(comparison.before_device));
  if (render::device_text(comparison.after_device) != render::device_text(comparison.before_device))
    out << " → " << markdown_escape(render::device_text(comparison.after_device)) << " (different GPUs: times are not comparable)";
  out << "\n\n"
      << "**Total:** " << total_text(totals.all) << ", " << totals.before_launches << " → " << totals.after_launches
      << " launches; matched " << comparison.matched.size() << ": " << total_text(totals.matched) << "\n\n";
  if (comparison.max_slowdown) {
    const std::string limit = format_percent(*comparison.max_slowdown, 1);
    if (comparison.failed()) {
      out << "**Gate failed:** slower by more than " << limit << ":";
      if (totals.slower_than_limit) out << " the total (" << render::change_percent_text(totals.all.change) << ")";
      for (const auto& k : comparison.matched) {
        if (k.slower_than_limit)
          out << " " << markdown_code(short_name(k.before.name)) << " [" << k.before.sequence << "] ("
              << render::change_percent_text(k.time.change) << ")";
      }
      out << "\n\n";
    } else {
      out << "**Gate passed:** no matched kernel and not the total slower by more than " << limit << ".\n\n";
    }
  }

  const auto order = render::comparison_display_order(comparison);
  if (!order.empty()) {
    out << "| # | kernel | before | after | change | speed | verdict | issue | L2 | DRAM | LMEM-L2 | LMEM-inst |\n"
        << "|:--|:--|--:|--:|--:|:--|:--|--:|--:|--:|--:|--:|\n";
    for (std::size_t index : order) {
      const auto& k = comparison.matched[index];
      std::string change = render::change_percent_text(k.time.change);
      if (k.slower_than_limit) change = "**" + change + "**";
      const std::string kind = render::change_kind(k);
      out << "| " << k.before.sequence << "→" << k.after.sequence << " | " << markdown_code(short_name(k.before.name))
          << " | " << render::precise_duration_text(k.time.before_ns) << " | "
          << render::precise_duration_text(k.time.after_ns)
          << " | " << change << (kind == "noise" ? " (noise)" : "") << " | " << render::speed_factor_text(k.time.ratio)
          << " | " << arrow(verdict_label(k.before), verdict_label(k.after)) << " | "
          << percent_arrow(k.before.utilization.issue, k.after.utilization.issue, 0) << " | "
          << percent_arrow(k.before.utilization.l2, k.after.utilization.l2, 0) << " | "
          << percent_arrow(k.before.utilization.dram, k.after.utilization.dram, 0) << " | "
          << percent_arrow(k.before.lmem.l2_share, k.after.lmem.l2_share, 1) << " | "
          << percent_arrow(k.before.lmem.instruction_share, k.after.lmem.instruction_share, 1) << " |\n";
    }
    out << "\n";
    if (std::any_of(comparison.matched.begin(), comparison.matched.end(),
                    [](const KernelComparison& k) { return k.within_noise; })) {
      out << "*noise*: the kernel has several launches and the change lies within their min..max on one side.\n\n";
    }
  }
  write_unmatched_list("Only in before", comparison.only_before, out);
  write_unmatched_list("Only in after", comparison.only_after, out);
}

}  // namespace limiter
