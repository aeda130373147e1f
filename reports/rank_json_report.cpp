// The JSON report of a job's ranks (kind "limiter-rank-report"): each rank with its record,
// host, GPU and time by verdict, and each kernel over the ranks with every rank's own figures.
#include <ostream>

#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "program_render.hpp"
#include "stall_render.hpp"

namespace limiter {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json number_or_null(const std::optional<double>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

ordered_json verdict_or_null(const std::optional<Verdict>& verdict) {
  return verdict ? ordered_json(to_string(*verdict)) : ordered_json(nullptr);
}

ordered_json rank_run_json(const RankRun& r) {
  const RunAnalysis& run = r.summary.run;
  ordered_json out;
  out["label"] = r.label;
  out["rank"] = r.rank ? rank_json(*r.rank) : ordered_json(nullptr);
  out["host"] = r.host.empty() ? ordered_json(nullptr) : ordered_json(r.host);
  out["record"] = r.path;
  out["device"] = {{"name", run.device.name},
                   {"arch", run.device.arch},
                   {"sm_count", run.device.sm_count},
                   {"uuid", run.device.uuid.empty() ? ordered_json(nullptr) : ordered_json(run.device.uuid)}};
  out["launches"] = r.summary.launches;
  out["selected_launches"] = r.summary.selected_launches;
  out["compared_launches"] = r.launches;  // on its timeline where it has one
  out["kernel_ns"] = r.kernel_ns;
  out["collective_ns"] = r.collective_ns;
  if (r.summary.program) out["program"] = render::program_json(*r.summary.program);  // records with a timeline
  ordered_json by_verdict = ordered_json::array();
  for (const auto& entry : r.summary.time_by_verdict) {
    by_verdict.push_back({{"verdict", verdict_or_null(entry.verdict)},
                          {"launches", entry.launches},
                          {"duration_ns", entry.duration_ns},
                          {"time_share", number_or_null(entry.time_share)}});
  }
  out["time_by_verdict"] = std::move(by_verdict);
  ordered_json missed = ordered_json::array();
  for (const auto& m : run.missed) missed.push_back({{"reason", m.reason}, {"launches", m.launches}, {"fix", m.fix}});
  out["missed"] = std::move(missed);
  if (!run.ended.empty()) out["ended"] = run.ended;
  return out;
}

ordered_json rank_kernel_json(const RankSummary& summary, const RankKernel& k) {
  ordered_json out;
  out["name"] = k.name;
  out["display_name"] = k.display_name;
  out["mangled_name"] = k.mangled_name;
  out["grid"] = {k.grid.x, k.grid.y, k.grid.z};
  out["block"] = {k.block.x, k.block.y, k.block.z};
  out["ranks_with_kernel"] = k.ranks_with_kernel;
  out["launches"] = k.launches;
  out["total_ns"] = k.total_ns;
  out["time_share"] = number_or_null(k.time_share);
  out["rank_ns"] = {{"min", number_or_null(k.min_rank_ns)},
                    {"max", number_or_null(k.max_rank_ns)},
                    {"mean", number_or_null(k.mean_rank_ns)}};
  out["spread"] = number_or_null(k.spread);
  out["slowest_rank"] = summary.ranks[k.slowest].label;
  out["fastest_rank"] = summary.ranks[k.fastest].label;
  out["verdict"] = verdict_or_null(k.slowest_verdict);
  out["limiting_unit"] = k.limiting_unit;
  out["verdicts_differ"] = k.verdicts_differ();
  ordered_json per_rank = ordered_json::array();
  for (std::size_t r = 0; r < summary.ranks.size(); ++r) {
    if (!k.groups[r]) continue;
    const KernelSummary& g = summary.ranks[r].summary.groups[*k.groups[r]];
    per_rank.push_back({{"rank", summary.ranks[r].label},
                        {"launches", g.launches},
                        {"total_ns", number_or_null(g.durations.total_ns)},
                        {"mean_ns", number_or_null(g.durations.mean_ns)},
                        {"min_ns", number_or_null(g.durations.min_ns)},
                        {"max_ns", number_or_null(g.durations.max_ns)},
                        {"verdict", verdict_or_null(g.main_verdict)},
                        {"limiting_unit", g.limiting_unit},
                        {"issue", number_or_null(g.issue)},
                        {"l2", number_or_null(g.l2)},
                        {"dram", number_or_null(g.dram)},
                        {"lmem_l2_share", number_or_null(g.lmem_l2_share)},
                        {"lmem_instruction_share", number_or_null(g.lmem_instruction_share)}});
  }
  out["per_rank"] = std::move(per_rank);
  return out;
}

}  // namespace

nlohmann::ordered_json rank_report_json(const RankSummary& summary, const ReportOptions& options) {
  ordered_json out;
  out["schema_version"] = kRankReportSchemaVersion;
  out["kind"] = "limiter-rank-report";
  out["names"] = to_string(summary.names);
  out["kernel_regex"] = summary.kernel_regex.empty() ? ordered_json(nullptr) : ordered_json(summary.kernel_regex);
  out["one_job"] = summary.one_job;
  out["total_ns"] = summary.total_ns;
  out["slowest_rank"] =
      summary.ranks.empty() ? ordered_json(nullptr) : ordered_json(summary.ranks[summary.slowest_rank].label);
  out["straggler_rank"] =
      summary.straggler ? ordered_json(summary.ranks[*summary.straggler].label) : ordered_json(nullptr);
  out["notes"] = summary.notes;
  ordered_json ranks = ordered_json::array();
  for (const auto& r : summary.ranks) ranks.push_back(rank_run_json(r));
  out["ranks"] = std::move(ranks);
  ordered_json kernels = ordered_json::array();
  const std::size_t shown = options.top == 0 ? summary.kernels.size() : std::min(options.top, summary.kernels.size());
  for (std::size_t i = 0; i < shown; ++i) kernels.push_back(rank_kernel_json(summary, summary.kernels[i]));
  out["kernels"] = std::move(kernels);
  if (!summary.stalled_kernels.empty()) {  // records without PC samples: the report stays as it was
    ordered_json stalled = ordered_json::array();
    for (const auto& k : summary.stalled_kernels) {
      ordered_json entry = {{"name", k.name}, {"display_name", k.display_name}, {"ranks", k.ranks}};
      entry["stalls"] = render::kernel_stalls_json(*k.stalls);
      stalled.push_back(std::move(entry));
    }
    out["stalled_kernels"] = std::move(stalled);
  }
  if (!summary.ranges.empty()) {  // records without NVTX ranges: the report stays as it was
    ordered_json ranges = ordered_json::array();
    for (const RankRange& r : summary.ranges) {
      ordered_json per_rank = ordered_json::array();
      for (std::size_t i = 0; i < summary.ranks.size(); ++i) {
        if (!r.entries[i]) continue;
        const NvtxRangeSummary& e = summary.ranks[i].summary.nvtx_ranges[*r.entries[i]];
        per_rank.push_back({{"rank", summary.ranks[i].label},
                            {"launches", e.launches},
                            {"total_ns", number_or_null(e.durations.total_ns)},
                            {"verdict", verdict_or_null(e.main_verdict)}});
      }
      ranges.push_back({{"ranges", r.ranges},
                        {"ranks", r.ranks_with_range},
                        {"launches", r.launches},
                        {"total_ns", r.total_ns},
                        {"time_share", number_or_null(r.time_share)},
                        {"min_rank_ns", number_or_null(r.min_rank_ns)},
                        {"max_rank_ns", number_or_null(r.max_rank_ns)},
                        {"spread", number_or_null(r.spread)},
                        {"slowest_rank", summary.ranks[r.slowest].label},
                        {"verdict", verdict_or_null(r.slowest_verdict)},
                        {"per_rank", std::move(per_rank)}});
    }
    out["nvtx_ranges"] = std::move(ranges);
  }
  return out;
}

void write_rank_json_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options) {
  out << json_text(rank_report_json(summary, options), 2) << "\n";
}

}  // namespace limiter
