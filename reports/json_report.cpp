// JSON via nlohmann ordered_json: the report schema, with its roll-ups (the comparison schema:
// json_comparison.cpp).
#include <algorithm>
#include <ostream>
#include <string_view>

#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "json_values.hpp"
#include "program_render.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"

namespace limiter {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json kernel_json(const KernelAnalysis& k) {
  ordered_json out;
  out["sequence"] = k.sequence;
  out["name"] = k.name;
  out["grid"] = {k.grid.x, k.grid.y, k.grid.z};
  out["block"] = {k.block.x, k.block.y, k.block.z};
  out["registers_per_thread"] = k.registers_per_thread ? ordered_json(*k.registers_per_thread) : ordered_json(nullptr);
  out["duration_ns"] = optional_number(k.duration_ns);
  out["verdict"] = optional_verdict(k.verdict);
  out["balanced"] = k.balanced;
  out["limiting_unit"] = k.limiting_unit;
  out["limiting_group"] = k.limiting_group;
  ordered_json causes = ordered_json::array();
  for (auto cause : k.latency_causes) causes.push_back(to_string(cause));
  out["latency_causes"] = causes;
  out["verdict_reason"] = k.verdict_reason;
  out["coverage_note"] = k.coverage_note;

  ordered_json utilization;
  utilization["issue"] = optional_number(k.utilization.issue);
  utilization["l2"] = optional_number(k.utilization.l2);
  utilization["l2_source"] = k.utilization.l2_source;
  utilization["dram"] = optional_number(k.utilization.dram);
  utilization["l1"] = optional_number(k.utilization.l1);
  utilization["compute"] = optional_number(k.utilization.compute());
  utilization["memory"] = optional_number(k.utilization.memory());
  ordered_json pipes = ordered_json::object();
  for (const auto& [name, value] : k.utilization.pipes) pipes[name] = value;
  utilization["pipes"] = pipes;
  ordered_json units = ordered_json::array();
  for (const auto& use : k.utilization.units)
    units.push_back({{"unit", use.label},
                     {"side", use.compute_side ? "compute" : "memory"},
                     {"group", use.group},
                     {"value", use.value},
                     {"direct", use.direct},
                     {"source", use.source}});
  utilization["units"] = units;
  utilization["missing_units"] = k.utilization.missing_units;
  out["utilization"] = utilization;

  ordered_json lmem;
  lmem["l2_share"] = optional_number(k.lmem.l2_share);
  lmem["l2_share_is_upper_bound"] = k.lmem.l2_share_is_upper_bound;
  lmem["l2_share_lower_bound"] = optional_number(k.lmem.l2_share_lower_bound);
  lmem["l2_share_seed"] = optional_number(k.lmem.l2_share_seed);
  lmem["l2_read_share"] = optional_number(k.lmem.l2_read_share);
  lmem["l2_write_share"] = optional_number(k.lmem.l2_write_share);
  lmem["instruction_share"] = optional_number(k.lmem.instruction_share);
  lmem["l1_load_hit_rate"] = optional_number(k.lmem.l1_load_hit_rate);
  lmem["l1_store_hit_rate"] = optional_number(k.lmem.l1_store_hit_rate);
  lmem["l2_sectors"] = optional_number(k.lmem.l2_sectors);
  lmem["significant"] = k.lmem.significant;
  lmem["dominant"] = k.lmem.dominant;
  lmem["warnings"] = k.lmem.warnings;
  out["lmem"] = lmem;

  ordered_json occupancy;
  const auto& theoretical = k.occupancy.theoretical;
  occupancy["theoretical"] = theoretical ? ordered_json(theoretical->occupancy) : ordered_json(nullptr);
  occupancy["achieved"] = optional_number(k.occupancy.achieved);
  occupancy["blocks_per_sm"] = theoretical ? ordered_json(theoretical->blocks_per_sm) : ordered_json(nullptr);
  occupancy["limited_by"] = theoretical ? ordered_json(to_string(theoretical->limited_by)) : ordered_json(nullptr);
  if (k.occupancy.waves) {
    occupancy["waves"] = k.occupancy.waves->waves;
    occupancy["full_waves"] = k.occupancy.waves->full_waves;
    occupancy["tail_blocks"] = k.occupancy.waves->tail_blocks;
    occupancy["tail_idle_fraction"] = k.occupancy.waves->tail_idle_fraction;
  } else {
    occupancy["waves"] = nullptr;
  }
  out["occupancy"] = occupancy;

  ordered_json evidence = ordered_json::array();
  for (const auto& item : k.evidence)
    evidence.push_back({{"quantity", item.quantity}, {"value", item.value}, {"detail", item.detail}});
  out["evidence"] = evidence;
  out["advice"] = k.advice;
  if (!k.nvtx.empty()) out["nvtx"] = k.nvtx;
  if (k.stalls) out["stalls"] = render::kernel_stalls_json(*k.stalls);  // only with PC samples
  if (k.ncu_verdict) {
    out["ncu"] = {{"sm_throughput_pct", *k.ncu_sm_throughput},
                  {"memory_throughput_pct", *k.ncu_memory_throughput},
                  {"verdict", to_string(*k.ncu_verdict)}};
  }
  return out;
}

ordered_json dim3_json(const Dim3& dim) { return {dim.x, dim.y, dim.z}; }

ordered_json durations_json(const DurationStats& durations) {
  return {{"total", optional_number(durations.total_ns)},
          {"mean", optional_number(durations.mean_ns)},
          {"min", optional_number(durations.min_ns)},
          {"max", optional_number(durations.max_ns)}};
}

ordered_json rollup_json(const RunSummary& summary) {
  ordered_json out;
  out["launches"] = summary.launches;
  out["selected_launches"] = summary.selected_launches;
  out["timed_launches"] = summary.timed_launches;
  out["total_duration_ns"] = summary.total_ns;
  if (summary.estimated_total_ns) out["estimated_total_ns"] = *summary.estimated_total_ns;
  out["kernel_regex"] = summary.kernel_regex.empty() ? ordered_json(nullptr) : ordered_json(summary.kernel_regex);
  ordered_json by_verdict = ordered_json::array();
  for (const auto& entry : summary.time_by_verdict) {
    by_verdict.push_back({{"verdict", optional_verdict(entry.verdict)},
                          {"launches", entry.launches},
                          {"duration_ns", entry.duration_ns},
                          {"time_share", optional_number(entry.time_share)}});
  }
  out["time_by_verdict"] = by_verdict;
  ordered_json groups = ordered_json::array();
  for (const auto& group : summary.groups) {
    groups.push_back({{"name", group.name},
                      {"display_name", group.display_name},
                      {"mangled_name", group.mangled_name},
                      {"grid", dim3_json(group.grid)},
                      {"block", dim3_json(group.block)},
                      {"launches", group.launches},
                      {"first_sequence", group.first_sequence},
                      {"longest_sequence", group.longest.sequence},
                      {"duration_ns", durations_json(group.durations)},
                      {"time_share", optional_number(group.time_share)},
                      {"verdicts",
                       {{"bandwidth", group.verdicts.bandwidth},
                        {"instruction", group.verdicts.instruction},
                        {"latency", group.verdicts.latency},
                        {"none", group.verdicts.none}}},
                      {"main_verdict", optional_verdict(group.main_verdict)},
                      {"limiting_unit", group.limiting_unit},
                      {"utilization",
                       {{"issue", optional_number(group.issue)},
                        {"l2", optional_number(group.l2)},
                        {"dram", optional_number(group.dram)},
                        {"compute", optional_number(group.compute)},
                        {"memory", optional_number(group.memory)}}},
                      {"lmem",
                       {{"l2_share", optional_number(group.lmem_l2_share)},
                        {"l2_share_is_upper_bound", group.lmem_l2_share_is_upper_bound},
                        {"instruction_share", optional_number(group.lmem_instruction_share)}}},
                      {"theoretical_occupancy", optional_number(group.occupancy)}});
    if (group.stalls) groups.back()["stalls"] = render::kernel_stalls_json(*group.stalls);
    if (group.launches_seen) {  // per-kernel budgets: all launches seen, and the time estimated over them
      groups.back()["launches_seen"] = *group.launches_seen;
      groups.back()["estimated_ns"] = optional_number(group.estimated_ns);
    }
    if (group.timeline) {  // a record whose timeline holds kernels: its launches there, which rank the groups
      groups.back()["timeline"] = {{"launches", group.timeline->launches},
                                   {"duration_ns", durations_json(group.timeline->durations)},
                                   {"time_share", optional_number(group.timeline->time_share)}};
    }
    if (!group.no_counters.empty()) {  // on the timeline alone: no launch, so no sequence
      groups.back()["first_sequence"] = nullptr;
      groups.back()["longest_sequence"] = nullptr;
      groups.back()["no_counters"] = group.no_counters;
    }
  }
  out["groups"] = groups;
  if (const auto& t = summary.timeline_kernels) {
    out["timeline"] = {{"launches", t->launches},
                       {"kernels", t->kernels},
                       {"kernel_ns", t->kernel_ns},
                       {"window_ns", t->window_ns},
                       {"without_counters", t->without_counters}};
  }
  ordered_json fix_first = ordered_json::array();
  const auto lines = render::fix_first_lines(summary);
  for (std::size_t rank = 0; rank < lines.size(); ++rank) {
    // With a program verdict the program's fixes rank among the kernels, and each entry says its kind.
    if (const ProgramFix* fix = lines[rank].program) {
      fix_first.push_back({{"rank", rank + 1},
                           {"kind", "program"},
                           {"verdict", program_bound_key(fix->bound)},
                           {"duration_ns", fix->saveable_ns},
                           {"time_share", fix->share},
                           {"headline", fix->headline},
                           {"advice", fix->advice}});
      continue;
    }
    const auto& item = *lines[rank].kernel;
    const auto& group = summary.groups[item.group];
    fix_first.push_back({{"rank", rank + 1},
                         {"name", group.name},
                         {"display_name", group.display_name},
                         {"grid", dim3_json(group.grid)},
                         {"block", dim3_json(group.block)},
                         {"sequence", group.longest.sequence},
                         {"duration_ns", optional_number(group.durations.total_ns)},
                         {"time_share", optional_number(group.time_share)},
                         {"verdict", optional_verdict(group.longest.verdict)},
                         {"limiting_unit", group.longest.limiting_unit},
                         {"headline", item.headline},
                         {"advice", item.advice}});
    if (summary.program) fix_first.back()["kind"] = "kernel";
  }
  out["fix_first"] = fix_first;
  if (!summary.nvtx_ranges.empty()) {  // only for runs with NVTX ranges: other reports stay as they were
    ordered_json ranges = ordered_json::array();
    for (const auto& r : summary.nvtx_ranges) {
      ranges.push_back({{"ranges", r.ranges},
                        {"launches", r.launches},
                        {"duration_ns", durations_json(r.durations)},
                        {"time_share", optional_number(r.time_share)},
                        {"verdicts",
                         {{"bandwidth", r.verdicts.bandwidth},
                          {"instruction", r.verdicts.instruction},
                          {"latency", r.verdicts.latency},
                          {"none", r.verdicts.none}}},
                        {"main_verdict", optional_verdict(r.main_verdict)},
                        {"top_kernels", r.top_kernels}});
    }
    out["nvtx_ranges"] = ranges;
  }
  return out;
}

// Everything but the kernels, which are written one at a time (millions of launches).
ordered_json report_without_kernels(const RunSummary& summary) {
  const auto& run = summary.run;
  ordered_json out;
  out["schema_version"] = kReportSchemaVersion;
  out["kind"] = "limiter-report";
  if (summary.program) out["program"] = render::program_json(*summary.program);  // first: records with a timeline
  out["device"] = {{"name", run.device.name}, {"arch", run.device.arch}, {"sm_count", run.device.sm_count}};
  out["source"] = run.source;
  out["counter_model"] = to_string(run.counter_model);
  out["peaks"] = {{"kind", to_string(run.peaks)}, {"origin", run.peaks_origin}};
  if (run.cache_control) out["cache_control"] = *run.cache_control;  // "none" or "all"; absent: unknown
  if (!run.ended.empty()) out["ended"] = run.ended;
  out["missed"] = missed_json(run.missed);
  if (run.launches_seen) out["launches_seen"] = *run.launches_seen;
  if (run.stall_sampling) out["stall_sampling"] = render::stall_sampling_json(*run.stall_sampling);
  if (!summary.stalled_kernels.empty()) {  // every kernel with PC samples, also those without launches
    ordered_json stalled = ordered_json::array();
    for (const auto& k : summary.stalled_kernels)
      stalled.push_back({{"name", k.name},
                         {"display_name", k.display_name},
                         {"group", k.group ? ordered_json(*k.group + 1) : ordered_json(nullptr)},
                         {"stalls", render::kernel_stalls_json(*k.stalls)},
                         {"advice", k.advice}});
    out["stalled_kernels"] = std::move(stalled);
  }
  const auto& t = run.thresholds;
  out["thresholds"] = {{"high_utilization", t.high_utilization}, {"latency", t.latency},
                       {"balance_gap", t.balance_gap},           {"small_grid_waves", t.small_grid_waves},
                       {"low_occupancy", t.low_occupancy},       {"tail_idle", t.tail_idle},
                       {"lmem_significant", t.lmem_significant}, {"lmem_negligible", t.lmem_negligible}};
  out["names"] = to_string(summary.names);
  out["kernels"] = ordered_json::array();
  out["rollup"] = rollup_json(summary);
  return out;
}

ordered_json launch_json(const RunSummary& summary, const KernelAnalysis& kernel) {
  ordered_json out = kernel_json(kernel);
  // The name as the text reports show it, right after the full one.
  ordered_json ordered;
  for (auto& [key, value] : out.items()) {
    ordered[key] = std::move(value);
    if (key == "name") ordered["display_name"] = summary.display_name(kernel.name);
  }
  return ordered;
}

}  // namespace

ordered_json report_json(const RunSummary& summary, const ReportOptions& options) {
  ordered_json out = report_without_kernels(summary);
  render::for_each_listed_launch(
      summary, options, [&](const KernelAnalysis& kernel) { out["kernels"].push_back(launch_json(summary, kernel)); });
  return out;
}

void write_json_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options) {
  // As report_json(...).dump(2), with each kernel dumped on its own: no DOM of every launch.
  const std::string document = json_text(report_without_kernels(summary), 2);
  const std::string empty_kernels = "\"kernels\": [],";
  const std::size_t at = document.find(empty_kernels);
  out << document.substr(0, at) << "\"kernels\": [";
  bool first = true;
  render::for_each_listed_launch(summary, options, [&](const KernelAnalysis& kernel) {
    out << (first ? "\n" : ",\n");
    first = false;
    const std::string text = json_text(launch_json(summary, kernel), 2);
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      out << (start ? "\n    " : "    ") << std::string_view(text).substr(start, end - start);
      start = end + 1;
    }
  });
  out << (first ? "]," : "\n  ],") << document.substr(at + empty_kernels.size()) << "\n";
}

}  // namespace limiter
