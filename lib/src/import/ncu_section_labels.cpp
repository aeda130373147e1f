// Nsight Compute's details-page labels and their raw metrics (ncu_section_labels.hpp).
#include "import/ncu_section_labels.hpp"

#include <set>

namespace limiter::detail {
namespace {

// ---------------------------------------------------------------------------------------
// Section labels of the details page → raw metric names, from the section files that ship
// with ncu 2025.3 (SpeedOfLight, LaunchStatistics, Occupancy, WorkloadDistribution,
// MemoryWorkloadAnalysis, ComputeWorkloadAnalysis). Keyed by section because labels repeat
// with other meanings ("Memory Throughput" is a % in one section and bytes/s in another).

struct SectionLabel {
  std::string_view section;     // display name, as the "Section Name" column shows it
  std::string_view identifier;  // the section file's identifier, in case a version shows it
  std::string_view label;
  std::string_view metric;
};

constexpr std::string_view kSol = "GPU Speed Of Light Throughput";
constexpr std::string_view kLaunch = "Launch Statistics";
constexpr std::string_view kOccupancy = "Occupancy";
constexpr std::string_view kWorkload = "GPU and Memory Workload Distribution";
constexpr std::string_view kMemory = "Memory Workload Analysis";
constexpr std::string_view kCompute = "Compute Workload Analysis";

// clang-format off
constexpr SectionLabel kSectionLabels[] = {
    {kSol, "SpeedOfLight", "Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {kSol, "SpeedOfLight", "Duration", "gpu__time_duration.sum"},
    {kSol, "SpeedOfLight", "Memory Throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kSol, "SpeedOfLight", "Elapsed Cycles", "gpc__cycles_elapsed.max"},
    {kSol, "SpeedOfLight", "L1/TEX Cache Throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
    {kSol, "SpeedOfLight", "SM Active Cycles", "sm__cycles_active.avg"},
    {kSol, "SpeedOfLight", "L2 Cache Throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    {kSol, "SpeedOfLight", "SM Frequency", "gpc__cycles_elapsed.avg.per_second"},
    {kSol, "SpeedOfLight", "DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kSol, "SpeedOfLight", "DRAM Frequency", "dram__cycles_elapsed.avg.per_second"},
    {kSol, "SpeedOfLight", "Waves Per SM", "launch__waves_per_multiprocessor"},
    {kLaunch, "LaunchStats", "Grid Size", "launch__grid_size"},
    {kLaunch, "LaunchStats", "Block Size", "launch__block_size"},
    {kLaunch, "LaunchStats", "Threads", "launch__thread_count"},
    {kLaunch, "LaunchStats", "Registers Per Thread", "launch__registers_per_thread"},
    {kLaunch, "LaunchStats", "Static Shared Memory Per Block", "launch__shared_mem_per_block_static"},
    {kLaunch, "LaunchStats", "Dynamic Shared Memory Per Block", "launch__shared_mem_per_block_dynamic"},
    {kLaunch, "LaunchStats", "Driver Shared Memory Per Block", "launch__shared_mem_per_block_driver"},
    {kLaunch, "LaunchStats", "Shared Memory Configuration Size", "launch__shared_mem_config_size"},
    {kLaunch, "LaunchStats", "Function Cache Configuration", "launch__func_cache_config"},
    {kLaunch, "LaunchStats", "Cluster Size", "launch__cluster_size"},
    {kLaunch, "LaunchStats", "Preferred Cluster Size", "launch__preferred_cluster_size"},
    {kLaunch, "LaunchStats", "Cluster Scheduling Policy", "launch__cluster_scheduling_policy"},
    {kLaunch, "LaunchStats", "Waves Per SM", "launch__waves_per_multiprocessor"},
    {kLaunch, "LaunchStats", "Uses Green Context", "launch__uses_green_context"},
    {kLaunch, "LaunchStats", "Stack Size", "launch__stack_size"},
    {kLaunch, "LaunchStats", "# SMs", "launch__sm_count"},
    {kLaunch, "LaunchStats", "# TPCs", "launch__tpc_count"},
    {kLaunch, "LaunchStats", "Enabled TPC IDs", "launch__tpc_enabled"},
    {kOccupancy, "Occupancy", "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct"},
    {kOccupancy, "Occupancy", "Theoretical Active Warps per SM", "sm__maximum_warps_avg_per_active_cycle"},
    {kOccupancy, "Occupancy", "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {kOccupancy, "Occupancy", "Achieved Active Warps Per SM", "sm__warps_active.avg.per_cycle_active"},
    {kOccupancy, "Occupancy", "Block Limit Registers", "launch__occupancy_limit_registers"},
    {kOccupancy, "Occupancy", "Block Limit Shared Mem", "launch__occupancy_limit_shared_mem"},
    {kOccupancy, "Occupancy", "Block Limit Warps", "launch__occupancy_limit_warps"},
    {kOccupancy, "Occupancy", "Block Limit SM", "launch__occupancy_limit_blocks"},
    {kOccupancy, "Occupancy", "Block Limit Barriers", "launch__occupancy_limit_barriers"},
    {kOccupancy, "Occupancy", "Cluster Occupancy", "launch__occupancy_cluster_pct"},
    {kOccupancy, "Occupancy", "Overall GPU Occupancy", "launch__occupancy_cluster_gpu_pct"},
    {kOccupancy, "Occupancy", "Max Active Clusters", "launch__cluster_max_active"},
    {kOccupancy, "Occupancy", "Max Cluster Size", "launch__cluster_max_potential_size"},
    {kWorkload, "WorkloadDistribution", "Average SM Active Cycles", "sm__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Average L1 Active Cycles", "l1tex__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Average L2 Active Cycles", "lts__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Average SMSP Active Cycles", "smsp__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Average DRAM Active Cycles", "dram__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Total SM Elapsed Cycles", "sm__cycles_elapsed.sum"},
    {kWorkload, "WorkloadDistribution", "Total L1 Elapsed Cycles", "l1tex__cycles_elapsed.sum"},
    {kWorkload, "WorkloadDistribution", "Total L2 Elapsed Cycles", "lts__cycles_elapsed.sum"},
    {kWorkload, "WorkloadDistribution", "Total SMSP Elapsed Cycles", "smsp__cycles_elapsed.sum"},
    {kWorkload, "WorkloadDistribution", "Total DRAM Elapsed Cycles", "dram__cycles_elapsed.sum"},
    {kMemory, "MemoryWorkloadAnalysis", "Memory Throughput", "dram__bytes.sum.per_second"},
    {kMemory, "MemoryWorkloadAnalysis", "Mem Busy", "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kMemory, "MemoryWorkloadAnalysis", "Max Bandwidth", "gpu__compute_memory_request_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kMemory, "MemoryWorkloadAnalysis", "Mem Pipes Busy", "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kMemory, "MemoryWorkloadAnalysis", "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct"},
    {kMemory, "MemoryWorkloadAnalysis", "L2 Hit Rate", "lts__t_sector_hit_rate.pct"},
    {kMemory, "MemoryWorkloadAnalysis", "L2 Persisting Size", "launch__persisting_l2_cache_size"},
    {kCompute, "ComputeWorkloadAnalysis", "Executed Ipc Elapsed", "sm__inst_executed.avg.per_cycle_elapsed"},
    {kCompute, "ComputeWorkloadAnalysis", "Executed Ipc Active", "sm__inst_executed.avg.per_cycle_active"},
    {kCompute, "ComputeWorkloadAnalysis", "Issued Ipc Active", "sm__inst_issued.avg.per_cycle_active"},
    {kCompute, "ComputeWorkloadAnalysis", "SM Busy", "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kCompute, "ComputeWorkloadAnalysis", "Issue Slots Busy", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"},
};
// clang-format on

}  // namespace

// The raw name behind a details-page metric name. Raw names (with "__") pass through; a label
// of a known section maps to its metric; in an unknown section a label maps only when no other
// section uses it; anything else keeps its label.
std::string raw_metric_name(std::string_view section, std::string_view name) {
  if (name.find("__") != std::string_view::npos) return std::string(name);
  bool section_known = false;
  std::set<std::string_view> candidates;
  for (const auto& entry : kSectionLabels) {
    const bool in_section = entry.section == section || entry.identifier == section;
    if (entry.label == name && in_section) return std::string(entry.metric);
    section_known = section_known || in_section;
    if (entry.label == name) candidates.insert(entry.metric);
  }
  if (!section_known && candidates.size() == 1) return std::string(*candidates.begin());
  return std::string(name);
}

}  // namespace limiter::detail
