// The terminal renderer of a comparison: warnings, the program verdicts, totals, the gate,
// matched kernels before -> after (most changed first), the kernels found on one side only, and
// the PC samples per kernel. Names come last in each
// table so that no width of name pushes the figures out of line.
#include <algorithm>
#include <ostream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "comparison_parts.hpp"
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

std::string total_line(const TimeChange& time) {
  return before_after(render::precise_duration_text(time.before_ns), render::precise_duration_text(time.after_ns)) +
         ", " + render::change_percent_text(time.change) + " (" + render::speed_factor_text(time.ratio) + ")";
}

void write_unmatched(const std::string& title, const RunComparison& comparison,
                     const std::vector<UnmatchedKernel>& kernels, const render::NameLookup& names, std::size_t top,
                     std::ostream& out) {
  out << "\n" << title << ": ";
  if (kernels.empty()) {
    out << "none\n";
    return;
  }
  std::uint64_t launches = 0;
  for (const auto& k : kernels) launches += k.launches;
  if (comparison.launch_rows)
    out << render::count_text(kernels.size()) << (kernels.size() == 1 ? " launch\n" : " launches\n");
  else
    out << render::count_text(kernels.size()) << (kernels.size() == 1 ? " kernel" : " kernels") << " ("
        << render::count_text(launches) << (launches == 1 ? " launch)\n" : " launches)\n");
  TextTable table({{render::row_launches_title(comparison)},
                   {"time"},
                   {"verdict", Align::left},
                   {"grid x block", Align::left},
                   {"kernel", Align::left}});
  const std::size_t shown = render::shown_rows(kernels.size(), top);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = kernels[i];
    table.add_row({comparison.launch_rows ? std::to_string(k.first.sequence) : render::count_text(k.launches),
                   render::precise_duration_text(k.total_ns), verdict_label(k.first),
                   render::configuration_text(k.first.grid, k.first.block), names(k.first.name)});
  }
  table.write(out, "  ");
  if (shown < kernels.size()) out << "  " << render::more_rows_text(kernels.size() - shown) << "\n";
}

void write_samples(const RunComparison& comparison, const render::NameLookup& names, std::size_t top,
                   std::ostream& out) {
  if (comparison.samples.empty()) return;
  out << "\nPC samples: " << render::count_text(comparison.before_samples) << " -> "
      << render::count_text(comparison.after_samples) << "\n";
  TextTable table({{"share of samples"}, {"main stall reason", Align::left}, {"kernel", Align::left}});
  const std::size_t shown = render::shown_rows(comparison.samples.size(), top);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = comparison.samples[i];
    table.add_row({render::sample_share_text(k, " -> "), render::sample_reason_text(k, " -> "), names(k.name)});
  }
  table.write(out, "  ");
  if (shown < comparison.samples.size())
    out << "  " << render::more_rows_text(comparison.samples.size() - shown) << "\n";
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
  const auto warn = [&](const std::string& line) {
    if (!line.empty()) out << colored("WARNING", "\033[31m", color) << ": " << line << "\n";
  };
  warn(comparison.cache_warning);
  if (comparison.per_launch) warn(comparison.selection_warning);
  warn(comparison.program_warning);
  warn(comparison.match_warning);
  if (const auto program = render::program_change_text(comparison, " -> "); !program.empty())
    out << "program: " << program << "\n";
  if (comparison.names_matched_by_key > 0)
    out << "kernel names: " << comparison.names_matched_by_key
        << " matched though spelled differently (e.g. by ncu and by limiter's CUPTI record)\n";
  const auto& totals = comparison.totals;
  std::uint64_t matched_before = 0, matched_after = 0;
  for (const auto& k : comparison.kernels) {
    matched_before += comparison.before_counts[k.group];
    matched_after += comparison.after_counts[k.group];
  }
  const std::string matched_launches =
      " (" + render::count_text(matched_before) + " -> " + render::count_text(matched_after) + " launches)";
  const bool launches = totals.before_launches > 0 || totals.after_launches > 0;
  if (!launches) {
    // Records of PC samples alone: no totals to compare.
  } else if (comparison.per_launch) {
    out << "mean per launch: " << total_line(totals.all) << "; " << totals.before_launches << " -> "
        << totals.after_launches << " launches\n";
    out << "matched: " << comparison.kernels.size() << (comparison.kernels.size() == 1 ? " kernel" : " kernels")
        << matched_launches << ", mean per launch " << total_line(totals.matched) << "\n";
  } else {
    out << "total: " << total_line(totals.all) << "; " << totals.before_launches << " -> " << totals.after_launches
        << " launches\n";
    out << "matched: " << comparison.kernels.size() << (comparison.kernels.size() == 1 ? " kernel" : " kernels")
        << matched_launches << ", " << total_line(totals.matched) << "\n";
  }
  if (const auto nothing = render::nothing_timed_text(comparison); !nothing.empty()) out << "note: " << nothing << "\n";
  if (comparison.max_slowdown) {
    const std::string limit = format_percent(*comparison.max_slowdown, 1);
    if (comparison.failed()) {
      const auto failure = render::gate_failure(comparison);
      out << colored("gate FAILED", "\033[31m", color) << ": slower by more than " << limit << ":";
      if (failure.total) out << " " << render::gate_total_text(comparison);
      for (const KernelComparison* k : failure.named)
        out << " " << names(k->before.name) << " [" << k->before.sequence << "] ("
            << render::change_percent_text(k->time.change) << ")";
      if (failure.more > 0) out << " " << render::gate_more_text(failure.more);
      out << "\n";
    } else {
      out << colored("gate passed", "\033[32m", color) << ": no matched kernel and not the total slower by more than "
          << limit << "\n";
    }
  }

  const auto order = render::comparison_display_order(comparison, options.top);
  if (!order.empty()) {
    out << "\n";
    const bool means = !comparison.launch_rows;
    TextTable times({{render::row_launches_title(comparison), Align::left},
                     {means ? "before/launch" : "before"},
                     {means ? "after/launch" : "after"},
                     {"change"},
                     {"speed"},
                     {"note", Align::left},
                     {"verdict before -> after", Align::left},
                     {"grid x block", Align::left},
                     {"kernel", Align::left}});
    for (std::size_t index : order) {
      const auto& k = comparison.matched[index];
      const std::string kind = render::change_kind(k);
      times.add_row({render::row_launches_text(comparison, k, " -> "), render::precise_duration_text(k.time.before_ns),
                     render::precise_duration_text(k.time.after_ns), render::change_percent_text(k.time.change),
                     render::speed_factor_text(k.time.ratio),
                     k.within_noise        ? "noise"
                     : k.slower_than_limit ? "SLOWER"
                                           : "",
                     render::before_after_text(verdict_label(k.before), verdict_label(k.after), " -> ") +
                         (k.verdict_changed ? " (changed)" : ""),
                     render::configuration_text(k.before.grid, k.before.block), names(k.before.name)},
                    color ? change_color(kind) : "", 3);
    }
    times.write(out);
    if (order.size() < comparison.matched.size())
      out << render::more_rows_text(comparison.matched.size() - order.size()) << "\n";
    out << render::rows_note(comparison) << "\n" << kNoiseRule << "\n";

    // Records without counters (timelines) have no utilisation to show.
    const bool counters = std::any_of(order.begin(), order.end(), [&](std::size_t index) {
      return comparison.matched[index].before.utilization.issue || comparison.matched[index].after.utilization.issue;
    });
    if (counters) {
      out << "\n";
      TextTable units({{render::row_launches_title(comparison), Align::left},
                       {"issue"},
                       {"L2"},
                       {"DRAM"},
                       {"LMEM-L2"},
                       {"LMEM-inst"},
                       {"kernel", Align::left}});
      for (std::size_t index : order) {
        const auto& k = comparison.matched[index];
        units.add_row({render::row_launches_text(comparison, k, " -> "),
                       percent_pair(k.before.utilization.issue, k.after.utilization.issue, 0),
                       percent_pair(k.before.utilization.l2, k.after.utilization.l2, 0),
                       percent_pair(k.before.utilization.dram, k.after.utilization.dram, 0),
                       percent_pair(k.before.lmem.l2_share, k.after.lmem.l2_share, 1),
                       percent_pair(k.before.lmem.instruction_share, k.after.lmem.instruction_share, 1),
                       names(k.before.name)});
      }
      units.write(out);
    }
  }
  if (launches) {
    write_unmatched("only in before", comparison, comparison.only_before, names, options.top, out);
    write_unmatched("only in after", comparison, comparison.only_after, names, options.top, out);
  }
  write_samples(comparison, names, options.top, out);
}

}  // namespace limiter
