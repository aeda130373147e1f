// GitHub-flavoured Markdown of a comparison, for pull-request comments: totals, the gate, a
// table of matched kernels (most changed first) and the kernels on one side only.
#include <algorithm>
#include <ostream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "render_helpers.hpp"

namespace limiter {

using render::markdown_code;
using render::markdown_escape;
using render::verdict_label;

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

void write_unmatched_list(const std::string& title, const std::vector<ComparedLaunch>& kernels,
                          const render::NameLookup& names, std::ostream& out) {
  if (kernels.empty()) return;
  out << "**" << title << "** (" << kernels.size() << "):\n\n";
  for (const auto& k : kernels) {
    out << "- [" << k.sequence << "] " << markdown_code(names(k.name));
    const auto configuration = render::launch_configuration_text(k.grid, k.block);
    if (!configuration.empty()) out << ", " << configuration;
    out << ", " << render::precise_duration_text(k.duration_ns) << ", " << verdict_label(k) << "\n";
  }
  out << "\n";
}

}  // namespace

void write_markdown_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options) {
  const render::NameLookup names(comparison, options.names);
  const auto& totals = comparison.totals;
  out << "## limiter compare\n\n"
      << "Before: " << markdown_code(comparison.before_label) << " · after: " << markdown_code(comparison.after_label)
      << " · " << markdown_escape(render::device_text(comparison.before_device));
  if (render::device_text(comparison.after_device) != render::device_text(comparison.before_device))
    out << " → " << markdown_escape(render::device_text(comparison.after_device)) << " (different GPUs: times are not comparable)";
  out << "\n\n";
  if (!comparison.cache_warning.empty()) out << "> **Warning:** " << markdown_escape(comparison.cache_warning) << "\n\n";
  if (comparison.per_launch) {
    out << "> **Warning:** " << markdown_escape(comparison.selection_warning) << "\n\n"
        << "**Mean per launch:** " << total_text(totals.all) << ", " << totals.before_launches << " → "
        << totals.after_launches << " launches; matched " << comparison.matched.size()
        << (comparison.matched.size() == 1 ? " kernel: " : " kernels: ") << total_text(totals.matched) << "\n\n";
  } else {
    out << "**Total:** " << total_text(totals.all) << ", " << totals.before_launches << " → " << totals.after_launches
        << " launches; matched " << comparison.matched.size() << ": " << total_text(totals.matched) << "\n\n";
  }
  if (comparison.max_slowdown) {
    const std::string limit = format_percent(*comparison.max_slowdown, 1);
    if (comparison.failed()) {
      out << "**Gate failed:** slower by more than " << limit << ":";
      if (totals.slower_than_limit)
        out << (comparison.per_launch ? " the mean per launch (" : " the total (") << render::change_percent_text(totals.all.change) << ")";
      for (const auto& k : comparison.matched) {
        if (k.slower_than_limit)
          out << " " << markdown_code(names(k.before.name)) << " [" << k.before.sequence << "] ("
              << render::change_percent_text(k.time.change) << ")";
      }
      out << "\n\n";
    } else {
      out << "**Gate passed:** no matched kernel and not the total slower by more than " << limit << ".\n\n";
    }
  }

  const auto order = render::comparison_display_order(comparison, options.top);
  if (!order.empty()) {
    if (comparison.per_launch)
      out << "Each row is a kernel and configuration: its mean time per launch on each side (# its first launch).\n\n";
    out << "| # | kernel | " << (comparison.per_launch ? "before/launch | after/launch" : "before | after")
        << " | change | speed | verdict | issue | L2 | DRAM | LMEM-L2 | LMEM-inst |\n"
        << "|:--|:--|--:|--:|--:|:--|:--|--:|--:|--:|--:|--:|\n";
    for (std::size_t index : order) {
      const auto& k = comparison.matched[index];
      std::string change = render::change_percent_text(k.time.change);
      if (k.slower_than_limit) change = "**" + change + "**";
      const std::string kind = render::change_kind(k);
      out << "| " << k.before.sequence << "→" << k.after.sequence << " | " << markdown_code(names(k.before.name))
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
  write_unmatched_list("Only in before", comparison.only_before, names, out);
  write_unmatched_list("Only in after", comparison.only_after, names, out);
}

}  // namespace limiter
