#pragma once
// The sub-units of Nsight Compute's Speed-of-Light breakdown on Hopper (GH100): the SM side
// (`breakdown:sm__throughput`) and the memory side (`breakdown:gpu__compute_memory_throughput`).
// ncu's two headline percentages are the maxima of these (checked on recorded ncu exports:
// tests/unit/sol_units_test.cpp); limiter's compute and memory utilisations are the same maxima
// over whichever of them the record holds. Each is read as `<unit>.avg.pct_of_peak_sustained_elapsed`.
namespace limiter::detail {

enum class SolSide { compute, memory };

struct SolUnit {
  const char* unit;  // PerfWorks counter, without the roll-up suffix
  SolSide side;
  const char* group;  // issue, pipe, l1, l2, dram, memory: what the advice and LMEM judgement key on
  const char* label;  // how the report names it
};

inline constexpr SolUnit kSolUnits[] = {
    {"sm__issue_active", SolSide::compute, "issue", "issue slots"},
    {"sm__inst_executed", SolSide::compute, "issue", "instructions executed"},
    {"sm__pipe_tensor_cycles_active", SolSide::compute, "pipe", "tensor pipe"},
    {"sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active", SolSide::compute, "pipe",
     "tensor pipe (MMA)"},
    {"sm__pipe_tensor_op_hmma_cycles_active", SolSide::compute, "pipe", "tensor pipe (HMMA)"},
    {"sm__pipe_tensor_op_dmma_cycles_active", SolSide::compute, "pipe", "tensor pipe (FP64 MMA)"},
    {"sm__pipe_shared_cycles_active", SolSide::compute, "pipe", "shared pipe (FP16, tensor issue)"},
    {"sm__pipe_fma_cycles_active", SolSide::compute, "pipe", "FMA pipe"},
    {"sm__pipe_fmaheavy_cycles_active", SolSide::compute, "pipe", "FMA-heavy pipe"},
    {"sm__pipe_alu_cycles_active", SolSide::compute, "pipe", "ALU pipe"},
    {"sm__pipe_fp64_cycles_active", SolSide::compute, "pipe", "FP64 pipe"},
    {"sm__inst_executed_pipe_xu", SolSide::compute, "pipe", "XU pipe (transcendentals)"},
    {"sm__inst_executed_pipe_lsu", SolSide::compute, "pipe", "LSU pipe"},
    {"sm__inst_executed_pipe_uniform", SolSide::compute, "pipe", "uniform pipe"},
    {"sm__inst_executed_pipe_adu", SolSide::compute, "pipe", "ADU pipe"},
    {"sm__inst_executed_pipe_cbu_pred_on_any", SolSide::compute, "pipe", "branch unit"},
    {"sm__inst_executed_pipe_tex", SolSide::compute, "pipe", "TEX pipe"},
    {"sm__inst_executed_pipe_ipa", SolSide::compute, "pipe", "IPA pipe"},
    // older exports and plans count pipes in instructions; the same pipes, the larger figure wins
    {"sm__inst_executed_pipe_fma", SolSide::compute, "pipe", "FMA pipe"},
    {"sm__inst_executed_pipe_alu", SolSide::compute, "pipe", "ALU pipe"},
    {"sm__inst_executed_pipe_fp64", SolSide::compute, "pipe", "FP64 pipe"},
    {"sm__inst_executed_pipe_tensor", SolSide::compute, "pipe", "tensor pipe"},
    {"sm__mio_inst_issued", SolSide::compute, "pipe", "MIO issue"},
    {"sm__mio2rf_writeback_active", SolSide::compute, "pipe", "MIO writeback"},
    {"sm__mio_pq_read_cycles_active", SolSide::compute, "pipe", "MIO read queue"},
    {"sm__mio_pq_write_cycles_active", SolSide::compute, "pipe", "MIO write queue"},
    {"sm__pipe_tma_cycles_active", SolSide::compute, "pipe", "TMA pipe"},
    {"dram__cycles_active", SolSide::memory, "dram", "DRAM"},
    {"fbpa__dram_sectors", SolSide::memory, "dram", "DRAM sectors"},
    {"lts__t_sectors", SolSide::memory, "l2", "L2 tag lookups"},
    {"lts__t_tag_requests", SolSide::memory, "l2", "L2 tag requests"},
    {"lts__d_sectors", SolSide::memory, "l2", "L2 data sectors"},
    {"lts__d_atomic_input_cycles_active", SolSide::memory, "l2", "L2 atomics and reductions"},
    {"lts__xbar2lts_cycles_active", SolSide::memory, "l2", "crossbar-to-L2 path"},
    {"lts__lts2xbar_cycles_active", SolSide::memory, "l2", "L2-to-crossbar path"},
    {"lts__d_sectors_fill_device", SolSide::memory, "l2", "L2 fills from DRAM"},
    {"lts__d_sectors_fill_sysmem", SolSide::memory, "l2", "L2 fills from system memory"},
    {"l1tex__data_pipe_lsu_wavefronts", SolSide::memory, "l1", "L1/shared data pipe"},
    {"l1tex__data_bank_reads", SolSide::memory, "l1", "L1 bank reads"},
    {"l1tex__data_bank_writes", SolSide::memory, "l1", "L1 bank writes"},
    {"l1tex__lsuin_requests", SolSide::memory, "l1", "L1 LSU requests"},
    {"l1tex__f_wavefronts", SolSide::memory, "l1", "L1 fill wavefronts"},
    {"l1tex__lsu_writeback_active", SolSide::memory, "l1", "L1 LSU writeback"},
    {"l1tex__m_xbar2l1tex_read_sectors", SolSide::memory, "l1", "crossbar-to-L1 reads"},
    {"l1tex__m_l1tex2xbar_req_cycles_active", SolSide::memory, "l1", "L1-to-crossbar requests"},
    {"l1tex__data_pipe_tex_wavefronts", SolSide::memory, "l1", "L1 TEX data pipe"},
    {"l1tex__texin_sm2tex_req_cycles_active", SolSide::memory, "l1", "TEX input"},
    {"l1tex__tex_writeback_active", SolSide::memory, "l1", "TEX writeback"},
    // ncu's own aggregates of memory-pipeline activity (no public breakdown)
    {"gpu__compute_memory_access_throughput_internal_activity", SolSide::memory, "memory", "memory access pipelines"},
    {"gpu__compute_memory_request_throughput_internal_activity", SolSide::memory, "memory", "memory request pipelines"},
    {"sm__memory_throughput_internal_activity", SolSide::memory, "memory", "SM memory pipelines"},
};

// Sub-units whose absence can hide a limiter: named in the verdict's evidence when missing.
// (HMMA and the MMA-type tensor counters are parts of `sm__pipe_tensor_cycles_active`.)
inline constexpr const char* kSolCoreUnits[] = {
    "sm__issue_active",
    "sm__pipe_tensor_cycles_active",
    "sm__pipe_shared_cycles_active",
    "sm__pipe_fma_cycles_active",
    "sm__pipe_alu_cycles_active",
    "sm__pipe_fp64_cycles_active",
    "sm__inst_executed_pipe_xu",
    "sm__inst_executed_pipe_lsu",
    "dram__cycles_active",
    "lts__t_sectors",
    "lts__t_tag_requests",
    "lts__d_atomic_input_cycles_active",
    "lts__xbar2lts_cycles_active",
    "lts__lts2xbar_cycles_active",
    "l1tex__data_pipe_lsu_wavefronts",
    "l1tex__lsuin_requests",
};

}  // namespace limiter::detail
