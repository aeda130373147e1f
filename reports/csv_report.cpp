// CSV for pandas and spreadsheets: one row per kernel launch (report; and one per kernel of the
// timeline or the PC samples without counters) or per matched or unmatched kernel (compare). Stable column names, no
// units in cells (durations in ns, fractions 0..1), an empty cell where a value is unknown, RFC 4180 quoting and CRLF
// rows.
#include <algorithm>
#include <ostream>
#include <unordered_map>

#include "limiter/reports.hpp"
#include "comparison_parts.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"

namespace limiter {
namespace {

using render::csv_row;
using render::plain_number;

std::string flag(bool value) { return value ? "true" : "false"; }

std::string optional_verdict(const std::optional<Verdict>& verdict) { return verdict ? to_string(*verdict) : ""; }

std::string count_text(std::uint64_t value) { return std::to_string(value); }

std::optional<double> percent_to_fraction(const std::optional<double>& percent) {
  if (!percent) return std::nullopt;
  return *percent / 100.0;
}

// grid_x..block_z: empty when the source gave no launch configuration.
std::vector<std::string> configuration_cells(const Dim3& grid, const Dim3& block) {
  if (block.count() == 0) return {"", "", "", "", "", ""};
  return {count_text(grid.x),  count_text(grid.y),  count_text(grid.z),
          count_text(block.x), count_text(block.y), count_text(block.z)};
}

std::string latency_causes_text(const KernelAnalysis& k) {
  std::string text;
  for (auto cause : k.latency_causes) text += (text.empty() ? "" : ";") + to_string(cause);
  return text;
}

}  // namespace

const std::vector<std::string> kCsvReportColumns = {"sequence",
                                                    "kernel",
                                                    "short_name",
                                                    "grid_x",
                                                    "grid_y",
                                                    "grid_z",
                                                    "block_x",
                                                    "block_y",
                                                    "block_z",
                                                    "registers_per_thread",
                                                    "duration_ns",
                                                    "time_share",
                                                    "verdict",
                                                    "balanced",
                                                    "limiting_unit",
                                                    "latency_causes",
                                                    "verdict_reason",
                                                    "issue_utilization",
                                                    "l2_utilization",
                                                    "l2_utilization_source",
                                                    "dram_utilization",
                                                    "l1_utilization",
                                                    "compute_utilization",
                                                    "memory_utilization",
                                                    "lmem_l2_share",
                                                    "lmem_l2_share_is_upper_bound",
                                                    "lmem_l2_share_lower_bound",
                                                    "lmem_l2_share_seed",
                                                    "lmem_l2_read_share",
                                                    "lmem_l2_write_share",
                                                    "lmem_instruction_share",
                                                    "lmem_l1_load_hit_rate",
                                                    "lmem_l1_store_hit_rate",
                                                    "lmem_l2_sectors",
                                                    "lmem_significant",
                                                    "lmem_dominant",
                                                    "theoretical_occupancy",
                                                    "achieved_occupancy",
                                                    "blocks_per_sm",
                                                    "occupancy_limited_by",
                                                    "waves",
                                                    "tail_idle_fraction",
                                                    "ncu_sm_throughput",
                                                    "ncu_memory_throughput",
                                                    "ncu_verdict",
                                                    "group",
                                                    "group_launches",
                                                    "group_total_ns",
                                                    "group_mean_ns",
                                                    "group_min_ns",
                                                    "group_max_ns",
                                                    "group_time_share",
                                                    "fix_first_rank",
                                                    "advice_headline",
                                                    "nvtx",
                                                    "nvtx_time_share",
                                                    "stall_samples",
                                                    "stall_issued_share",
                                                    "stall_reason_1",
                                                    "stall_share_1",
                                                    "stall_reason_2",
                                                    "stall_share_2",
                                                    "stall_hot_line"};  // the last, render::kCsvStallColumns

const std::vector<std::string> kCsvTimelineColumns = {"group_timeline_launches",
                                                      "group_timeline_total_ns",
                                                      "group_timeline_mean_ns",
                                                      "group_timeline_min_ns",
                                                      "group_timeline_max_ns",
                                                      "group_timeline_time_share",
                                                      "no_counters"};

namespace {

// The group's figures on the timeline (kCsvTimelineColumns), for a record whose timeline holds kernels.
std::vector<std::string> timeline_cells(const KernelSummary& group) {
  if (!group.timeline) {
    std::vector<std::string> cells(kCsvTimelineColumns.size(), "");
    cells.back() = group.no_counters;
    return cells;
  }
  const auto& d = group.timeline->durations;
  return {std::to_string(group.timeline->launches),
          plain_number(d.total_ns),
          plain_number(d.mean_ns),
          plain_number(d.min_ns),
          plain_number(d.max_ns),
          plain_number(group.timeline->time_share),
          group.no_counters};
}

// A kernel of the timeline without counters: a row with no sequence and no counters, its group's
// figures and its timeline's.
std::vector<std::string> no_counters_row(const RunSummary& summary, std::size_t index) {
  const auto& group = summary.groups[index];
  std::vector<std::string> row(kCsvReportColumns.size(), "");
  const auto set = [&](const char* column, std::string value) {
    row[static_cast<std::size_t>(std::find(kCsvReportColumns.begin(), kCsvReportColumns.end(), column) -
                                 kCsvReportColumns.begin())] = std::move(value);
  };
  set("kernel", group.name);
  set("short_name", group.display_name);
  const char* dims[] = {"grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z"};
  const auto cells = configuration_cells(group.grid, group.block);
  for (std::size_t i = 0; i < 6; ++i) set(dims[i], cells[i]);
  set("group", std::to_string(index + 1));
  set("group_launches", "0");
  if (group.stalls) {
    auto stall = render::stall_csv_cells(group.stalls.get());
    for (std::size_t i = 0; i < stall.size(); ++i) row[row.size() - stall.size() + i] = std::move(stall[i]);
  }
  for (auto& cell : timeline_cells(group)) row.push_back(std::move(cell));
  return row;
}

// A kernel of the PC samples alone (no launch, not on the timeline: a `--stalls` record's): its
// names and its stall cells, in a row of WIDTH cells.
std::vector<std::string> samples_only_row(const StalledKernel& kernel, std::size_t width) {
  std::vector<std::string> row(width, "");
  row[1] = kernel.name;
  row[2] = kernel.display_name;
  auto cells = render::stall_csv_cells(kernel.stalls.get());
  std::move(cells.begin(), cells.end(),
            row.begin() + static_cast<std::ptrdiff_t>(kCsvReportColumns.size() - cells.size()));
  return row;
}

}  // namespace

void write_csv_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options) {
  // A record whose timeline holds kernels adds the groups' timeline columns, and a row per kernel without counters.
  const bool timeline = summary.timeline_kernels.has_value();
  std::vector<std::string> columns = kCsvReportColumns;
  if (timeline) columns.insert(columns.end(), kCsvTimelineColumns.begin(), kCsvTimelineColumns.end());
  out << csv_row(columns);
  // nvtx: the launch's NVTX ranges (" + " between them); nvtx_time_share: their roll-up's share.
  std::unordered_map<std::string, std::optional<double>> range_share;
  for (const auto& r : summary.nvtx_ranges) range_share[r.ranges] = r.time_share;
  render::for_each_listed_launch(summary, options, [&](const KernelAnalysis& k) {
    const std::size_t group_index = summary.group_of(k);
    const auto& group = summary.groups[group_index];
    const auto& occupancy = k.occupancy.theoretical;
    const auto& waves = k.occupancy.waves;
    std::vector<std::string> row = {count_text(k.sequence), k.name, summary.display_name(k.name)};
    for (auto& cell : configuration_cells(k.grid, k.block)) row.push_back(std::move(cell));
    const std::vector<std::string> rest = {k.registers_per_thread ? std::to_string(*k.registers_per_thread) : "",
                                           plain_number(k.duration_ns),
                                           plain_number(summary.share_of_run(k.duration_ns)),
                                           optional_verdict(k.verdict),
                                           flag(k.balanced),
                                           k.limiting_unit,
                                           latency_causes_text(k),
                                           k.verdict_reason,
                                           plain_number(k.utilization.issue),
                                           plain_number(k.utilization.l2),
                                           k.utilization.l2_source,
                                           plain_number(k.utilization.dram),
                                           plain_number(k.utilization.l1),
                                           plain_number(k.utilization.compute()),
                                           plain_number(k.utilization.memory()),
                                           plain_number(k.lmem.l2_share),
                                           flag(k.lmem.l2_share_is_upper_bound),
                                           plain_number(k.lmem.l2_share_lower_bound),
                                           plain_number(k.lmem.l2_share_seed),
                                           plain_number(k.lmem.l2_read_share),
                                           plain_number(k.lmem.l2_write_share),
                                           plain_number(k.lmem.instruction_share),
                                           plain_number(k.lmem.l1_load_hit_rate),
                                           plain_number(k.lmem.l1_store_hit_rate),
                                           plain_number(k.lmem.l2_sectors),
                                           flag(k.lmem.significant),
                                           flag(k.lmem.dominant),
                                           occupancy ? plain_number(occupancy->occupancy) : "",
                                           plain_number(k.occupancy.achieved),
                                           occupancy ? std::to_string(occupancy->blocks_per_sm) : "",
                                           occupancy ? to_string(occupancy->limited_by) : "",
                                           waves ? plain_number(waves->waves) : "",
                                           waves ? plain_number(waves->tail_idle_fraction) : "",
                                           plain_number(percent_to_fraction(k.ncu_sm_throughput)),
                                           plain_number(percent_to_fraction(k.ncu_memory_throughput)),
                                           optional_verdict(k.ncu_verdict),
                                           std::to_string(group_index + 1),
                                           std::to_string(group.launches),
                                           plain_number(group.durations.total_ns),
                                           plain_number(group.durations.mean_ns),
                                           plain_number(group.durations.min_ns),
                                           plain_number(group.durations.max_ns),
                                           plain_number(group.time_share),
                                           group.fix_first_rank ? std::to_string(*group.fix_first_rank) : "",
                                           render::first_advice_headline(k)};
    row.insert(row.end(), rest.begin(), rest.end());
    const auto share = range_share.find(nvtx_label(k.nvtx));
    row.push_back(k.nvtx.empty() ? "" : nvtx_label(k.nvtx));
    row.push_back(share == range_share.end() ? "" : plain_number(share->second));
    for (auto& cell : render::stall_csv_cells(k.stalls.get())) row.push_back(std::move(cell));
    if (timeline)
      for (auto& cell : timeline_cells(group)) row.push_back(std::move(cell));
    out << csv_row(row);
  });
  for (std::size_t index = 0; timeline && index < summary.groups.size(); ++index)
    if (!summary.groups[index].no_counters.empty()) out << csv_row(no_counters_row(summary, index));
  for (const auto& kernel : summary.stalled_kernels)
    if (!kernel.group) out << csv_row(samples_only_row(kernel, columns.size()));
}

const std::vector<std::string> kCsvComparisonColumns = {"status",
                                                        "kernel",
                                                        "short_name",
                                                        "grid_x",
                                                        "grid_y",
                                                        "grid_z",
                                                        "block_x",
                                                        "block_y",
                                                        "block_z",
                                                        "occurrence",
                                                        "before_sequence",
                                                        "after_sequence",
                                                        "before_duration_ns",
                                                        "after_duration_ns",
                                                        "time_ratio",
                                                        "time_change",
                                                        "within_noise",
                                                        "slower_than_limit",
                                                        "before_launches",
                                                        "before_min_ns",
                                                        "before_max_ns",
                                                        "after_launches",
                                                        "after_min_ns",
                                                        "after_max_ns",
                                                        "before_verdict",
                                                        "after_verdict",
                                                        "verdict_changed",
                                                        "before_issue_utilization",
                                                        "after_issue_utilization",
                                                        "before_l2_utilization",
                                                        "after_l2_utilization",
                                                        "before_dram_utilization",
                                                        "after_dram_utilization",
                                                        "before_compute_utilization",
                                                        "after_compute_utilization",
                                                        "before_memory_utilization",
                                                        "after_memory_utilization",
                                                        "before_lmem_l2_share",
                                                        "after_lmem_l2_share",
                                                        "before_lmem_instruction_share",
                                                        "after_lmem_instruction_share"};

namespace {

// The figures of one side of a row; empty cells for the side a kernel is missing from.
std::vector<std::string> side_cells(const ComparedLaunch* k) {
  if (!k) return std::vector<std::string>(8, "");
  return {optional_verdict(k->verdict),         plain_number(k->utilization.issue),
          plain_number(k->utilization.l2),      plain_number(k->utilization.dram),
          plain_number(k->utilization.compute), plain_number(k->utilization.memory),
          plain_number(k->lmem.l2_share),       plain_number(k->lmem.instruction_share)};
}

std::size_t csv_column(const std::string& name) {
  return static_cast<std::size_t>(std::find(kCsvComparisonColumns.begin(), kCsvComparisonColumns.end(), name) -
                                  kCsvComparisonColumns.begin());
}

std::vector<std::string> comparison_row(const RunComparison& comparison, const std::string& status,
                                        const ComparedLaunch* before, const ComparedLaunch* after,
                                        const KernelComparison* matched, const render::NameLookup& names) {
  const ComparedLaunch& either = before ? *before : *after;
  std::vector<std::string> row = {status, std::string(either.name), names(either.name)};
  for (auto& cell : configuration_cells(either.grid, either.block)) row.push_back(std::move(cell));
  const auto b = side_cells(before);
  const auto a = side_cells(after);
  const auto spread = [](const DurationStats& d) {
    return std::vector<std::string>{std::to_string(d.timed_launches), plain_number(d.min_ns), plain_number(d.max_ns)};
  };
  const std::vector<std::string> timing = {
      matched ? std::to_string(matched->occurrence) : "", before ? count_text(before->sequence) : "",
      after ? count_text(after->sequence) : "",
      // A matched row's times are its time change's: the launches' own, or per launch their means.
      matched  ? plain_number(matched->time.before_ns)
      : before ? plain_number(before->duration_ns)
               : "",
      matched ? plain_number(matched->time.after_ns)
      : after ? plain_number(after->duration_ns)
              : "",
      matched ? plain_number(matched->time.ratio) : "", matched ? plain_number(matched->time.change) : "",
      matched ? flag(matched->within_noise) : "", matched ? flag(matched->slower_than_limit) : ""};
  row.insert(row.end(), timing.begin(), timing.end());
  for (const auto& cell : matched ? spread(comparison.before_launches(*matched)) : std::vector<std::string>(3, ""))
    row.push_back(cell);
  for (const auto& cell : matched ? spread(comparison.after_launches(*matched)) : std::vector<std::string>(3, ""))
    row.push_back(cell);
  row.push_back(b[0]);
  row.push_back(a[0]);
  row.push_back(matched ? flag(matched->verdict_changed) : "");
  for (std::size_t i = 1; i < b.size(); ++i) {  // before_X, after_X pairs, in column order
    row.push_back(b[i]);
    row.push_back(a[i]);
  }
  return row;
}

}  // namespace

void write_csv_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options) {
  const render::NameLookup names(comparison, options.names);
  out << csv_row(kCsvComparisonColumns);
  for (const KernelComparison* k : render::matched_in_order(comparison, options.top))
    out << csv_row(comparison_row(comparison, "matched", &k->before, &k->after, k, names));
  // A kernel on one side only: its first launch's figures, and all its launches' count and time.
  const auto unmatched = [&](const std::vector<UnmatchedKernel>& kernels, const char* status, bool before) {
    for (std::size_t i = 0; i < render::shown_rows(kernels.size(), options.top); ++i) {
      const auto& k = kernels[i];
      auto row =
          comparison_row(comparison, status, before ? &k.first : nullptr, before ? nullptr : &k.first, nullptr, names);
      row[csv_column(before ? "before_duration_ns" : "after_duration_ns")] = plain_number(k.total_ns);
      row[csv_column(before ? "before_launches" : "after_launches")] = std::to_string(k.launches);
      out << csv_row(row);
    }
  };
  unmatched(comparison.only_before, "only_before", true);
  unmatched(comparison.only_after, "only_after", false);
  // The run totals, as one last row with no kernel: status "total". When the runs selected their
  // launches differently, "total_per_launch": the durations are means per launch, and the kernel
  // cell says how each run selected them.
  std::vector<std::string> total(kCsvComparisonColumns.size(), "");
  const auto column = csv_column;
  const auto& all = comparison.totals.all;
  total[column("status")] = comparison.per_launch ? "total_per_launch" : "total";
  if (comparison.per_launch) total[column("kernel")] = comparison.selection_warning;
  total[column("before_duration_ns")] = plain_number(all.before_ns);
  total[column("after_duration_ns")] = plain_number(all.after_ns);
  total[column("time_ratio")] = plain_number(all.ratio);
  total[column("time_change")] = plain_number(all.change);
  total[column("slower_than_limit")] = flag(comparison.totals.slower_than_limit);
  total[column("before_launches")] = std::to_string(comparison.totals.before_launches);
  total[column("after_launches")] = std::to_string(comparison.totals.after_launches);
  out << csv_row(total);
}

}  // namespace limiter
