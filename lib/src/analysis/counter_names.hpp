#pragma once
// Counter names the analysis reads, in one place (docs/design.md §7). PerfWorks names are
// GPU-wide sums in 32-byte sectors; legacy event names are per SM in 128-byte transactions.
namespace limiter::detail::counters {

// --- PerfWorks (Volta .. Hopper) ---
inline constexpr const char* duration_ns = "gpu__time_duration.sum";
inline constexpr const char* sm_cycles_elapsed = "sm__cycles_elapsed.avg";
inline constexpr const char* sm_cycles_active = "sm__cycles_active.avg";
inline constexpr const char* inst_issued = "smsp__inst_issued.sum";
inline constexpr const char* inst_issued_peak = "smsp__inst_issued.sum.peak_sustained";
inline constexpr const char* inst_issued_pct = "smsp__inst_issued.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* dram_read_bytes = "dram__bytes_read.sum";
inline constexpr const char* dram_write_bytes = "dram__bytes_write.sum";
inline constexpr const char* dram_peak_bytes_per_cycle = "dram__bytes.sum.peak_sustained";
inline constexpr const char* dram_clock_hz = "dram__cycles_elapsed.avg.per_second";
inline constexpr const char* dram_throughput_pct = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* l2_read_sectors = "lts__t_sectors_op_read.sum";
inline constexpr const char* l2_write_sectors = "lts__t_sectors_op_write.sum";
inline constexpr const char* l2_atom_sectors = "lts__t_sectors_op_atom.sum";
inline constexpr const char* l2_red_sectors = "lts__t_sectors_op_red.sum";
inline constexpr const char* l2_tex_read_sectors = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr const char* l2_tex_write_sectors = "lts__t_sectors_srcunit_tex_op_write.sum";
inline constexpr const char* l2_tex_atom_sectors = "lts__t_sectors_srcunit_tex_op_atom.sum";
inline constexpr const char* l2_tex_red_sectors = "lts__t_sectors_srcunit_tex_op_red.sum";
inline constexpr const char* l2_all_sectors = "lts__t_sectors.sum";
inline constexpr const char* l2_tag_peak_per_cycle = "lts__t_sectors.sum.peak_sustained";
inline constexpr const char* l2_cycles_elapsed = "lts__cycles_elapsed.avg";
inline constexpr const char* l2_return_path_pct = "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* l2_throughput_pct = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* local_ld_hit = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum";
inline constexpr const char* local_ld_miss = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum";
inline constexpr const char* local_st_hit = "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum";
inline constexpr const char* local_st_miss = "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum";
inline constexpr const char* local_ld_inst = "smsp__inst_executed_op_local_ld.sum";
inline constexpr const char* local_st_inst = "smsp__inst_executed_op_local_st.sum";
inline constexpr const char* local_ld_requests = "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum";
inline constexpr const char* local_st_requests = "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum";
inline constexpr const char* achieved_occupancy_pct = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* ncu_sm_throughput_pct = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* ncu_memory_throughput_pct =
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* ncu_waves_per_sm = "launch__waves_per_multiprocessor";

// --- legacy events (Fermi / Kepler), per SM ---
inline constexpr const char* legacy_ld_hit = "l1_local_load_hit";
inline constexpr const char* legacy_ld_miss = "l1_local_load_miss";
inline constexpr const char* legacy_st_hit = "l1_local_store_hit";
inline constexpr const char* legacy_st_miss = "l1_local_store_miss";
inline constexpr const char* legacy_inst_issued = "inst_issued";
inline constexpr const char* legacy_elapsed_cycles = "elapsed_cycles_sm";
// L2 sector queries are summed over every sub-partition: l2_subp<N>_{read,write}_sector_queries.
inline constexpr const char* legacy_l2_prefix = "l2_subp";
inline constexpr const char* legacy_l2_read_suffix = "_read_sector_queries";
inline constexpr const char* legacy_l2_write_suffix = "_write_sector_queries";
inline constexpr double legacy_sectors_per_transaction = 4.0;  // 128-byte transaction = 4 sectors

}  // namespace limiter::detail::counters
