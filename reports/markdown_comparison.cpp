// GitHub-flavoured Markdown of a comparison, for pull-request comments: warnings, the program
// verdicts, totals, the gate, a table of matched kernels (most changed first), the kernels on one
// side only and the PC samples. A comment holds at most 65,536 characters: rows are left out of
// the longest lists until the whole fits, with a line that says how many.
#include <algorithm>
#include <array>
#include <ostream>
#include <sstream>

#include "comparison_parts.hpp"
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

// A list of the comment: its opening (a title, a table's head), its rows, and its closing.
struct Section {
  std::string opening;
  std::vector<std::string> rows;
  std::size_t left_out_by_top = 0;
  std::string closing;
  std::size_t size() const {
    std::size_t size = opening.size() + closing.size();
    for (const auto& row : rows) size += row.size();
    return size;
  }
};

std::string head(const RunComparison& comparison, const render::NameLookup& names) {
  std::ostringstream out;
  const auto& totals = comparison.totals;
  out << "## limiter compare\n\n"
      << "Before: " << markdown_code(comparison.before_label) << " · after: " << markdown_code(comparison.after_label)
      << " · " << markdown_escape(render::device_text(comparison.before_device));
  if (render::device_text(comparison.after_device) != render::device_text(comparison.before_device))
    out << " → " << markdown_escape(render::device_text(comparison.after_device))
        << " (different GPUs: times are not comparable)";
  out << "\n\n";
  for (const std::string* warning : {&comparison.cache_warning, &comparison.selection_warning,
                                     &comparison.program_warning, &comparison.match_warning})
    if (!warning->empty()) out << "> **Warning:** " << markdown_escape(*warning) << "\n\n";
  if (const auto program = render::program_change_text(comparison, " → "); !program.empty())
    out << "**Program:** " << markdown_escape(program) << "\n\n";
  if (comparison.names_matched_by_key > 0)
    out << "Kernel names: " << comparison.names_matched_by_key
        << " matched though spelled differently (ncu and CUPTI).\n\n";
  out << (comparison.per_launch ? "**Mean per launch:** " : "**Total:** ") << total_text(totals.all) << ", "
      << totals.before_launches << " → " << totals.after_launches << " launches; matched " << comparison.kernels.size()
      << (comparison.kernels.size() == 1 ? " kernel: " : " kernels: ") << total_text(totals.matched) << "\n\n";
  if (const auto nothing = render::nothing_timed_text(comparison); !nothing.empty()) out << "*" << nothing << ".*\n\n";
  if (comparison.max_slowdown) {
    const std::string limit = format_percent(*comparison.max_slowdown, 1);
    if (comparison.failed()) {
      const auto failure = render::gate_failure(comparison);
      out << "**Gate failed:** slower by more than " << limit << ":";
      if (failure.total) out << " " << render::gate_total_text(comparison);
      for (const KernelComparison* k : failure.named)
        out << " " << markdown_code(names(k->before.name)) << " [" << k->before.sequence << "] ("
            << render::change_percent_text(k->time.change) << ")";
      if (failure.more > 0) out << " " << render::gate_more_text(failure.more);
      out << "\n\n";
    } else {
      out << "**Gate passed:** no matched kernel and not the total slower by more than " << limit << ".\n\n";
    }
  }
  return out.str();
}

Section matched_section(const RunComparison& comparison, const render::NameLookup& names, std::size_t top) {
  Section section;
  const auto order = render::comparison_display_order(comparison, top);
  if (order.empty()) return section;
  const bool means = !comparison.launch_rows;
  section.opening = std::string("| ") + render::row_launches_title(comparison) + " | kernel | grid × block | " +
                    (means ? "before/launch | after/launch" : "before | after") +
                    " | change | speed | verdict | issue | L2 | DRAM | LMEM-L2 | LMEM-inst |\n"
                    "|:--|:--|:--|--:|--:|--:|:--|:--|--:|--:|--:|--:|--:|\n";
  for (std::size_t index : order) {
    const auto& k = comparison.matched[index];
    std::string change = render::change_percent_text(k.time.change);
    if (k.slower_than_limit) change = "**" + change + "**";
    const std::string kind = render::change_kind(k);
    section.rows.push_back(
        "| " + render::row_launches_text(comparison, k, "→") + " | " + markdown_code(names(k.before.name)) + " | " +
        render::configuration_text(k.before.grid, k.before.block, " × ") + " | " +
        render::precise_duration_text(k.time.before_ns) + " | " + render::precise_duration_text(k.time.after_ns) +
        " | " + change + (kind == "noise" ? " (noise)" : "") + " | " + render::speed_factor_text(k.time.ratio) + " | " +
        arrow(verdict_label(k.before), verdict_label(k.after)) + " | " +
        percent_arrow(k.before.utilization.issue, k.after.utilization.issue, 0) + " | " +
        percent_arrow(k.before.utilization.l2, k.after.utilization.l2, 0) + " | " +
        percent_arrow(k.before.utilization.dram, k.after.utilization.dram, 0) + " | " +
        percent_arrow(k.before.lmem.l2_share, k.after.lmem.l2_share, 1) + " | " +
        percent_arrow(k.before.lmem.instruction_share, k.after.lmem.instruction_share, 1) + " |\n");
  }
  section.left_out_by_top = comparison.matched.size() - order.size();
  section.closing = "\n*" + render::rows_note(comparison) + ".* *" + markdown_escape(kNoiseRule) + ".*\n\n";
  return section;
}

Section unmatched_section(const std::string& title, const RunComparison& comparison,
                          const std::vector<UnmatchedKernel>& kernels, const render::NameLookup& names,
                          std::size_t top) {
  Section section;
  if (kernels.empty()) return section;
  section.opening = "**" + title + "** (" + render::count_text(kernels.size()) +
                    (comparison.launch_rows ? " launches"
                     : kernels.size() == 1  ? " kernel"
                                            : " kernels") +
                    "):\n\n";
  const std::size_t shown = render::shown_rows(kernels.size(), top);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = kernels[i];
    std::string row = "- " + (comparison.launch_rows ? "[" + std::to_string(k.first.sequence) + "] " : std::string()) +
                      markdown_code(names(k.first.name));
    const auto configuration = render::launch_configuration_text(k.first.grid, k.first.block);
    if (!configuration.empty()) row += ", " + configuration;
    section.rows.push_back(row + ", " + render::unmatched_time_text(k) + ", " + verdict_label(k.first) + "\n");
  }
  section.left_out_by_top = kernels.size() - shown;
  section.closing = "\n";
  return section;
}

Section samples_section(const RunComparison& comparison, const render::NameLookup& names, std::size_t top) {
  Section section;
  if (comparison.samples.empty()) return section;
  section.opening = "**PC samples** (" + render::count_text(comparison.before_samples) + " → " +
                    render::count_text(comparison.after_samples) +
                    "):\n\n| kernel | share of samples | main stall reason |\n|:--|--:|:--|\n";
  const std::size_t shown = render::shown_rows(comparison.samples.size(), top);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = comparison.samples[i];
    section.rows.push_back("| " + markdown_code(names(k.name)) + " | " + render::sample_share_text(k, " → ") + " | " +
                           render::sample_reason_text(k, " → ") + " |\n");
  }
  section.left_out_by_top = comparison.samples.size() - shown;
  section.closing = "\n";
  return section;
}

// Rows left out of the longest sections until the whole is at most LIMIT characters, with room
// for the lines that say so. Returns how many each section lost.
std::vector<std::size_t> fit(std::vector<Section>& sections, std::size_t fixed, std::size_t limit) {
  std::vector<std::size_t> dropped(sections.size(), 0);
  if (limit == 0) return dropped;
  constexpr std::size_t kNoteRoom = 200;  // each section's line on what was left out
  std::size_t total = fixed + kNoteRoom * sections.size();
  for (const auto& section : sections) total += section.size();
  while (total > limit) {
    const auto longest = std::max_element(sections.begin(), sections.end(), [](const Section& a, const Section& b) {
      return a.rows.size() < b.rows.size();
    });
    if (longest == sections.end() || longest->rows.empty()) break;
    total -= longest->rows.back().size();
    longest->rows.pop_back();
    ++dropped[static_cast<std::size_t>(longest - sections.begin())];
  }
  return dropped;
}

}  // namespace

void write_markdown_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options) {
  const render::NameLookup names(comparison, options.names);
  const std::string opening = head(comparison, names);
  std::vector<Section> sections = {
      matched_section(comparison, names, options.top),
      unmatched_section("Only in before", comparison, comparison.only_before, names, options.top),
      unmatched_section("Only in after", comparison, comparison.only_after, names, options.top),
      samples_section(comparison, names, options.top)};
  const auto dropped = fit(sections, opening.size(), options.markdown_limit);
  out << opening;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const auto& section = sections[i];
    if (section.opening.empty()) continue;
    out << section.opening;
    for (const auto& row : section.rows) out << row;
    if (dropped[i] > 0)
      out << "\n*" << render::count_text(dropped[i] + section.left_out_by_top)
          << " more rows left out to stay under a pull-request comment's 65,536 characters; `--top N` shows N rows, "
             "`-o FILE.md --top 0` writes them all.*\n";
    else if (section.left_out_by_top > 0)
      out << "\n*" << render::more_rows_text(section.left_out_by_top) << ".*\n";
    out << section.closing;
  }
}

}  // namespace limiter
