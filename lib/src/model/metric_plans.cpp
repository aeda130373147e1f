#include "limiter/metric_plans.hpp"

#include "limiter/error.hpp"

namespace limiter {
namespace {

std::vector<std::string> default_metrics() {
  return {
      // time base and issue slots
      "gpu__time_duration.sum", "sm__cycles_elapsed.avg", "sm__cycles_active.avg", "smsp__inst_issued.sum",
      "smsp__inst_issued.sum.peak_sustained",
      // DRAM
      "dram__bytes_read.sum", "dram__bytes_write.sum", "dram__bytes.sum.peak_sustained",
      "dram__cycles_elapsed.avg.per_second",
      // L2: lookups (all and L1-sourced), peak, clock, and the paths to and from the crossbar
      "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum", "lts__t_sectors_op_atom.sum",
      "lts__t_sectors_op_red.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
      "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sectors.sum.peak_sustained", "lts__cycles_elapsed.avg",
      // (lts2xbar cannot share a pass with the lookup counters on GH100; the analysis derives
      // it from L1-sourced read sectors instead, see device_spec.cpp)
      "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed",
      // local memory: L1 sectors by hit/miss, and instructions
      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum",
      "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum", "smsp__inst_executed_op_local_ld.sum",
      "smsp__inst_executed_op_local_st.sum",
      // achieved occupancy; the L1/shared-memory data pipe (shared-memory-bound kernels)
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
  };
}

std::vector<std::string> pipes_metrics() {
  auto metrics = default_metrics();
  for (const char* pipe : {"fma", "alu", "fp64", "lsu", "xu", "tensor"})
    metrics.push_back(std::string("sm__inst_executed_pipe_") + pipe + ".avg.pct_of_peak_sustained_active");
  metrics.push_back("lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed");
  return metrics;
}

}  // namespace

const std::vector<MetricPlan>& metric_plans() {
  static const std::vector<MetricPlan> plans = {
      {"default", "verdict, LMEM shares and occupancy for every kernel (one pass on GH100)", default_metrics()},
      {"pipes", "default plus SM pipe and L1 utilisations, for kernels the default leaves ambiguous",
       pipes_metrics()},
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

}  // namespace limiter
