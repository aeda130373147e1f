#include <ostream>

#include "limiter/reports.hpp"

namespace limiter {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json optional_number(const std::optional<double>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

ordered_json kernel_json(const KernelAnalysis& k) {
  ordered_json out;
  out["sequence"] = k.sequence;
  out["name"] = k.name;
  out["grid"] = {k.grid.x, k.grid.y, k.grid.z};
  out["block"] = {k.block.x, k.block.y, k.block.z};
  out["registers_per_thread"] = k.registers_per_thread ? ordered_json(*k.registers_per_thread) : ordered_json(nullptr);
  out["duration_ns"] = optional_number(k.duration_ns);
  out["verdict"] = k.verdict ? ordered_json(to_string(*k.verdict)) : ordered_json(nullptr);
  out["balanced"] = k.balanced;
  out["limiting_unit"] = k.limiting_unit;
  ordered_json causes = ordered_json::array();
  for (auto cause : k.latency_causes) causes.push_back(to_string(cause));
  out["latency_causes"] = causes;
  out["verdict_reason"] = k.verdict_reason;

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
  if (k.ncu_verdict) {
    out["ncu"] = {{"sm_throughput_pct", *k.ncu_sm_throughput},
                  {"memory_throughput_pct", *k.ncu_memory_throughput},
                  {"verdict", to_string(*k.ncu_verdict)}};
  }
  return out;
}

}  // namespace

ordered_json report_json(const RunAnalysis& analysis) {
  ordered_json out;
  out["schema_version"] = kReportSchemaVersion;
  out["kind"] = "limiter-report";
  out["device"] = {{"name", analysis.device.name}, {"arch", analysis.device.arch}, {"sm_count", analysis.device.sm_count}};
  out["source"] = analysis.source;
  out["counter_model"] = to_string(analysis.counter_model);
  out["peaks"] = {{"kind", to_string(analysis.peaks)}, {"origin", analysis.peaks_origin}};
  const auto& t = analysis.thresholds;
  out["thresholds"] = {{"high_utilization", t.high_utilization}, {"latency", t.latency},
                       {"balance_gap", t.balance_gap}, {"small_grid_waves", t.small_grid_waves},
                       {"low_occupancy", t.low_occupancy}, {"tail_idle", t.tail_idle},
                       {"lmem_significant", t.lmem_significant}, {"lmem_negligible", t.lmem_negligible}};
  ordered_json kernels = ordered_json::array();
  for (const auto& kernel : analysis.kernels) kernels.push_back(kernel_json(kernel));
  out["kernels"] = kernels;
  return out;
}

void write_json_report(const RunAnalysis& analysis, std::ostream& out) { out << report_json(analysis).dump(2) << "\n"; }

}  // namespace limiter
