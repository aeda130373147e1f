#include "limiter/metric_plans.hpp"

#include <set>
#include <string_view>

#include "limiter/error.hpp"

namespace limiter {
namespace {

// A sub-unit's busy share as Nsight Compute's Speed-of-Light breakdown reports it.
std::string busy(const char* unit) { return std::string(unit) + ".avg.pct_of_peak_sustained_elapsed"; }

// One pass on GH100 (checked with the CUPTI host API: `limiter metrics --plan default`). The
// SM's counter budget is what runs out first: with the local-instruction counters and the
// tensor pipe in, no other SM pipe fits (shared, FMA, ALU, FP64, XU, LSU each make it two
// passes), so those sub-units are in the `sol` plan and the analysis names them when missing.
std::vector<std::string> default_metrics() {
  return {
      // time base and issue slots (raw, for the LMEM instruction share; and as ncu reports them)
      "gpu__time_duration.sum",
      "sm__cycles_elapsed.avg",
      "sm__cycles_active.avg",
      "smsp__inst_issued.sum",
      "smsp__inst_issued.sum.peak_sustained",
      busy("sm__issue_active"),
      // the compute engine's active share of a range: a user range's kernel time (user_range_time.hpp)
      "gr__cycles_active.max",
      "gr__cycles_elapsed.max",
      // tensor pipe: every MMA type (HMMA, IMMA, DMMA and Hopper's warpgroup MMA)
      busy("sm__pipe_tensor_cycles_active"),
      // DRAM: bytes for the evidence, busy cycles and sectors as ncu's breakdown has them
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "dram__bytes.sum.peak_sustained",
      "dram__cycles_elapsed.avg.per_second",
      busy("dram__cycles_active"),
      busy("fbpa__dram_sectors"),
      // L2: tag lookups and requests, data sectors, atomics and reductions, crossbar-to-L2 path
      busy("lts__t_sectors"),
      busy("lts__t_tag_requests"),
      busy("lts__d_sectors"),
      busy("lts__d_atomic_input_cycles_active"),
      busy("lts__xbar2lts_cycles_active"),
      "lts__t_sectors.sum",
      "lts__t_sectors.sum.peak_sustained",
      "lts__cycles_elapsed.avg",
      // L1-sourced L2 sectors: the LMEM share's denominator, and the L2-to-crossbar path, which
      // cannot share this pass (see device_spec.cpp)
      "lts__t_sectors_srcunit_tex_op_read.sum",
      "lts__t_sectors_srcunit_tex_op_write.sum",
      // L1/shared-memory data pipe: global, local and shared wavefronts (bank conflicts)
      busy("l1tex__data_pipe_lsu_wavefronts"),
      // local memory: L1 sectors by hit/miss, and instructions
      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum",
      "smsp__inst_executed_op_local_ld.sum",
      "smsp__inst_executed_op_local_st.sum",
      // achieved occupancy
      "sm__warps_active.avg.pct_of_peak_sustained_active",
  };
}

// Every sub-unit of ncu's Speed-of-Light breakdown on GH100 (the SM and memory breakdowns of
// `sm__throughput` and `gpu__compute_memory_throughput`) that the default plan leaves out.
std::vector<std::string> sol_metrics() {
  auto metrics = default_metrics();
  for (const char* unit : {"sm__inst_executed",
                           "sm__pipe_shared_cycles_active",
                           "sm__pipe_fma_cycles_active",
                           "sm__pipe_fmaheavy_cycles_active",
                           "sm__pipe_alu_cycles_active",
                           "sm__pipe_fp64_cycles_active",
                           "sm__inst_executed_pipe_xu",
                           "sm__inst_executed_pipe_lsu",
                           "sm__inst_executed_pipe_uniform",
                           "sm__inst_executed_pipe_adu",
                           "sm__inst_executed_pipe_cbu_pred_on_any",
                           "sm__inst_executed_pipe_tex",
                           "sm__inst_executed_pipe_ipa",
                           "sm__mio_inst_issued",
                           "sm__mio2rf_writeback_active",
                           "sm__mio_pq_read_cycles_active",
                           "sm__mio_pq_write_cycles_active",
                           "sm__pipe_tma_cycles_active",
                           "sm__pipe_tensor_op_dmma_cycles_active",
                           "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active",
                           "lts__lts2xbar_cycles_active",
                           "lts__d_sectors_fill_device",
                           "lts__d_sectors_fill_sysmem",
                           "l1tex__lsuin_requests",
                           "l1tex__data_bank_reads",
                           "l1tex__data_bank_writes",
                           "l1tex__data_pipe_tex_wavefronts",
                           "l1tex__f_wavefronts",
                           "l1tex__lsu_writeback_active",
                           "l1tex__m_xbar2l1tex_read_sectors",
                           "l1tex__m_l1tex2xbar_req_cycles_active",
                           "l1tex__texin_sm2tex_req_cycles_active",
                           "l1tex__tex_writeback_active"})
    metrics.push_back(busy(unit));
  return metrics;
}

}  // namespace

const std::vector<MetricPlan>& metric_plans() {
  static const std::vector<MetricPlan> plans = {
      {"default", "verdict, LMEM shares and occupancy for every kernel (one pass on GH100)", default_metrics()},
      {"sol", "default plus every other sub-unit of ncu's Speed-of-Light breakdown (SM pipes, L1, L2 paths)",
       sol_metrics()},
  };
  return plans;
}

const MetricPlan& metric_plan(const std::string& name) {
  std::string known;
  for (const auto& plan : metric_plans()) {
    if (plan.name == name) return plan;
    known += (known.empty() ? "" : ", ") + plan.name;
  }
  throw InputError("unknown metric plan '" + name + "' (plans: " + known + "; `limiter metrics` lists them)");
}

ChipPlan plan_for_chip(const MetricPlan& plan, const std::vector<std::string>& chip_base_metrics) {
  const std::set<std::string, std::less<>> known(chip_base_metrics.begin(), chip_base_metrics.end());
  ChipPlan on_chip{{plan.name, plan.purpose, {}}, {}};
  for (const auto& metric : plan.metrics) {
    const std::string_view base = std::string_view(metric).substr(0, metric.find('.'));
    (known.count(base) ? on_chip.plan.metrics : on_chip.missing).push_back(metric);
  }
  return on_chip;
}

}  // namespace limiter
