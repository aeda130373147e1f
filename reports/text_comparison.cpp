// The terminal renderer of a comparison: totals, the gate, matched kernels before -> after
// (most changed first), and the kernels found on one side only. Names come last in each
// table so that no width of name pushes the figures out of line.
#include <algorithm>
#include <ostream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "render_helpers.hpp"
#include "text_table.hpp"

namespace limiter {
namespace {

using render::TextTable;
using render::verdict_label;
using Align = TextTable::Align;

const char* change_color(const std::string& kind) {
  if (kind == "slower") return "\033[31m";
  if (kind == "faster") return "\033[32m";
  return "\033[2m";
}

std::string colored(const std::string& text, const char* color, bool use_color) {
  return use_color ? color + text + "\033[0m" : text;
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

void write_unmatched(const std::string& title, const std::vector<ComparedLaunch>& kernels,
                     const render::NameLookup& names, std::ostream& out) {
  out << "\n" << title << ": " << (kernels.empty() ? "none" : std::to_string(kernels.size())) << "\n";
  if (kernels.empty()) return;
  TextTable table({{"#"}, {"time"}, {"verdict", Align::left}, {"grid x block", Align::left}, {"kernel", Align::left}});
  for (const auto& k : kernels) {
    table.add_row({std::to_string(k.sequence), render::precise_duration_text(k.duration_ns), verdict_label(k),
                   render::configuration_text(k.grid, k.block), names(k.name)});
  }
  table.write(out, "  ");
}

}  // namespace

void write_text_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options) {
  const bool color = options.color;
  const render::NameLookup names(comparison, options.names);
  out << "limiter compare — before: " << comparison.before_label << "\n"
      << "                  after:  " << comparison.after_label << "\n";
  const std::string before_device = render::device_text(comparison.before_device);
  const std::string after_device = render::device_text(comparison.after_device);
  out << "device: " << before_device;
  if (after_device != before_device) out << " -> " << after_device << " (different GPUs: times are not comparable)";
  out << "\n";
  if (!comparison.cache_warning.empty())
    out << colored("WARNING", "\033[31m", color) << ": " << comparison.cache_warning << "\n";
  const auto& totals = comparison.totals;
  if (comparison.per_launch) {
    out << colored("WARNING", "\033[31m", color) << ": " << comparison.selection_warning << "\n";
    out << "mean per launch: " << total_line(totals.all) << "; " << totals.before_launches << " -> "
        << totals.after_launches << " launches\n";
    out << "matched: " << comparison.matched.size() << (comparison.matched.size() == 1 ? " kernel" : " kernels")
        << ", mean per launch " << total_line(totals.matched) << "\n";
  } else {
    out << "total: " << total_line(totals.all) << "; " << totals.before_launches << " -> " << totals.after_launches
        << " launches\n";
    out << "matched: " << comparison.matched.size() << " launches, " << total_line(totals.matched) << "\n";
  }
  if (comparison.max_slowdown) {
    const std::string limit = format_percent(*comparison.max_slowdown, 1);
    if (comparison.failed()) {
      out << colored("gate FAILED", "\033[31m", color) << ": slower by more than " << limit << ":";
      if (totals.slower_than_limit)
        out << (comparison.per_launch ? " the mean per launch (" : " the total (") << render::change_percent_text(totals.all.change) << ")";
      for (const auto& k : comparison.matched) {
        if (k.slower_than_limit)
          out << " " << names(k.before.name) << " [" << k.before.sequence << "] ("
              << render::change_percent_text(k.time.change) << ")";
      }
      out << "\n";
    } else {
      out << colored("gate passed", "\033[32m", color) << ": no matched kernel and not the total slower by more than "
          << limit << "\n";
    }
  }

  const auto order = render::comparison_display_order(comparison, options.top);
  if (!order.empty()) {
    out << "\n";
    const bool per_launch = comparison.per_launch;
    TextTable times({{"#", Align::left}, {per_launch ? "before/launch" : "before"}, {per_launch ? "after/launch" : "after"},
                     {"change"}, {"speed"}, {"note", Align::left}, {"verdict before -> after", Align::left},
                     {"kernel", Align::left}});
    for (std::size_t index : order) {
      const auto& k = comparison.matched[index];
      const std::string kind = render::change_kind(k);
      times.add_row({sequence_pair(k), render::precise_duration_text(k.time.before_ns),
                     render::precise_duration_text(k.time.after_ns), render::change_percent_text(k.time.change),
                     render::speed_factor_text(k.time.ratio), k.within_noise ? "noise" : k.slower_than_limit ? "SLOWER" : "",
                     before_after(verdict_label(k.before), verdict_label(k.after)) + (k.verdict_changed ? " (changed)" : ""),
                     names(k.before.name)},
                    color ? change_color(kind) : "", 3);
    }
    times.write(out);
    if (per_launch)
      out << "per launch: a row per kernel and configuration, its mean time per launch on each side (# its first launch)\n";
    if (std::any_of(comparison.matched.begin(), comparison.matched.end(),
                    [](const KernelComparison& k) { return k.within_noise; })) {
      out << "noise: the kernel has several launches and the change lies within their min..max on one side\n";
    }

    out << "\n";
    TextTable units({{"#", Align::left}, {"issue"}, {"L2"}, {"DRAM"}, {"LMEM-L2"}, {"LMEM-inst"}, {"kernel", Align::left}});
    for (std::size_t index : order) {
      const auto& k = comparison.matched[index];
      units.add_row({sequence_pair(k), percent_pair(k.before.utilization.issue, k.after.utilization.issue, 0),
                     percent_pair(k.before.utilization.l2, k.after.utilization.l2, 0),
                     percent_pair(k.before.utilization.dram, k.after.utilization.dram, 0),
                     percent_pair(k.before.lmem.l2_share, k.after.lmem.l2_share, 1),
                     percent_pair(k.before.lmem.instruction_share, k.after.lmem.instruction_share, 1),
                     names(k.before.name)});
    }
    units.write(out);
  }
  write_unmatched("only in before", comparison.only_before, names, out);
  write_unmatched("only in after", comparison.only_after, names, out);
}

}  // namespace limiter
