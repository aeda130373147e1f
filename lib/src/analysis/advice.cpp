// The founding documents' advice, chosen by verdict and LMEM shares (seed 001: "bandwidth-
// limited codes: LMEM L1 miss impact on the memory bus; arithmetic-limited codes: LMEM
// instruction count"; seed 000: occupancy limits and launch bounds; seed 003: the tail), and
// the advice of the kernel's dominant stall reasons (stall_advice.cpp).
#include "analysis/analysis_steps.hpp"
#include "limiter/format.hpp"

namespace limiter::detail {
namespace {

const char* const kSpillRemedies =
    "raise the register cap (a higher -maxrregcount, or a smaller minBlocksPerSM in __launch_bounds__), "
    "give L1 more room (cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, <lower "
    "percent>), today's cudaFuncCachePreferL1), or compile with -Xptxas -dlcm=cg so global loads stop "
    "evicting spilled lines from L1";

std::string l2_share_text(const LmemAnalysis& lmem) {
  std::string text = format_percent(lmem.l2_share);
  if (lmem.l2_share_is_upper_bound && lmem.l2_share_lower_bound)
    text = "between " + format_percent(lmem.l2_share_lower_bound) + " and " + format_percent(lmem.l2_share);
  return text;
}

void bandwidth_advice(const KernelAnalysis& k, const Thresholds& t, std::vector<std::string>& advice) {
  const auto& lmem = k.lmem;
  if (lmem.l2_share && *lmem.l2_share >= t.lmem_significant) {
    advice.push_back("Local memory is " + l2_share_text(lmem) + " of the traffic between L1 and L2" +
                     (lmem.dominant ? ", enough on its own to keep L2 busy" : "") + ": " + kSpillRemedies + ".");
  } else if (lmem.l2_share && *lmem.l2_share > 0) {
    advice.push_back("Local memory is only " + l2_share_text(lmem) +
                     " of L1-L2 traffic: spills are not what limits this kernel.");
  }
  if (k.limiting_unit == "L2 atomics and reductions") {
    advice.push_back(
        "L2's atomic units are the busiest: combine updates before they reach L2 (aggregate within "
        "a warp with __reduce_add_sync or a shared-memory histogram per block, or sort the indices so "
        "equal targets are summed first).");
  } else if (k.limiting_unit == "L1/shared data pipe") {
    advice.push_back(
        "The L1/shared-memory data pipe is the busiest: look for shared-memory bank conflicts (pad "
        "arrays, use odd strides) and uncoalesced accesses that take several wavefronts each.");
  } else if (k.limiting_group == "dram") {
    advice.push_back(
        "DRAM is the busiest unit: move fewer bytes (reuse data through shared memory or L2, "
        "smaller types, fuse kernels that re-read the same arrays).");
  } else {
    advice.push_back("The " + k.limiting_unit +
                     " is the busiest unit: cut L1/L2 transactions (coalesce "
                     "accesses, widen loads, keep reused data in shared memory or registers).");
  }
}

void instruction_advice(const KernelAnalysis& k, const Thresholds& t, std::vector<std::string>& advice) {
  const auto& share = k.lmem.instruction_share;
  if (share && *share >= t.lmem_significant) {
    advice.push_back("Local loads and stores are " + format_percent(share) +
                     " of issued instructions: removing the spills saves issue slots; " + kSpillRemedies + ".");
  } else if (share && *share > 0 && *share < t.lmem_negligible) {
    advice.push_back("Local memory is " + format_percent(share) +
                     " of issued instructions: removing every spill could gain at most that much, "
                     "so the spills are not worth fixing.");
  }
  if (k.limiting_unit.rfind("tensor pipe", 0) == 0) {
    advice.push_back(
        "The tensor pipe is the limit: the matrix math itself. Only fewer or cheaper MMAs help "
        "(lower precision such as bf16 or fp8, sparsity, Hopper's warpgroup MMA in place of mma.sync).");
    return;
  }
  advice.push_back("Issue slots or a pipe (" + k.limiting_unit +
                   ") are the limit: execute fewer instructions "
                   "(simpler index arithmetic, wider loads, work moved out of inner loops, faster math "
                   "intrinsics where accuracy allows).");
}

void latency_advice(const KernelAnalysis& k, const Thresholds& t, std::vector<std::string>& advice) {
  for (LatencyCause cause : k.latency_causes) {
    if (cause == LatencyCause::small_grid) {
      std::string fill = "launch more blocks";
      if (k.occupancy.waves) fill += " (one full wave is " + std::to_string(k.occupancy.waves->blocks_per_wave) + ")";
      advice.push_back("The grid is too small to fill the GPU: " + fill +
                       ", or give each thread less work so that there are more threads.");
    } else if (cause == LatencyCause::low_occupancy && k.occupancy.theoretical) {
      const auto& occ = *k.occupancy.theoretical;
      std::string how;
      switch (occ.limited_by) {
        case OccupancyLimiter::registers:
          how = "use fewer registers per thread (__launch_bounds__ or -maxrregcount; watch for spills)";
          break;
        case OccupancyLimiter::shared_memory:
          how = "use less shared memory per block";
          break;
        case OccupancyLimiter::blocks:
          how = "use larger blocks (at least 64 threads each)";
          break;
        case OccupancyLimiter::warps:
          how = "use smaller blocks so that more of them fit";
          break;
      }
      advice.push_back("Occupancy is " + format_percent(occ.occupancy) + " (" + std::to_string(occ.blocks_per_sm) +
                       " blocks per SM, limited by " + to_string(occ.limited_by) + "): " + how +
                       ", or raise ILP so fewer warps hide the latency.");
    } else if (cause == LatencyCause::tail_effect && k.occupancy.waves) {
      const auto& waves = *k.occupancy.waves;
      advice.push_back("Tail effect: " + std::to_string(waves.full_waves) + " full waves and a last wave of " +
                       std::to_string(waves.tail_blocks) + " of " + std::to_string(waves.blocks_per_wave) +
                       " blocks; fit one more block per SM (__launch_bounds__) or size the grid to whole waves.");
    }
  }
  if (k.lmem.l1_load_hit_rate && *k.lmem.l1_load_hit_rate < 0.8 && k.lmem.l2_sectors && *k.lmem.l2_sectors > 0) {
    advice.push_back("Local loads hit L1 only " + format_percent(k.lmem.l1_load_hit_rate) +
                     " of the time: each miss waits for L2; " + kSpillRemedies + ".");
  }
  if (k.latency_causes.empty()) {
    advice.push_back(
        "No unit is busy: expose more independent work per warp (ILP: unroll, several elements "
        "per thread) or more warps (TLP), and shorten dependent chains of loads.");
  }
  (void)t;
}

void conditional_advice(const KernelAnalysis& k, const Thresholds& t, std::vector<std::string>& advice) {
  // No utilisation: give both branches of the seed's rule, as seed 001 does.
  if (k.lmem.l2_share) {
    advice.push_back("If this kernel is bandwidth-limited: local memory is " + l2_share_text(k.lmem) +
                     " of L2 traffic" +
                     (*k.lmem.l2_share >= t.lmem_significant ? ", significant: " + std::string(kSpillRemedies)
                                                             : ", not significant") +
                     ".");
  }
  if (k.lmem.instruction_share) {
    const bool negligible = *k.lmem.instruction_share < t.lmem_negligible;
    advice.push_back(
        "If it is instruction-limited: local memory is " + format_percent(k.lmem.instruction_share) +
        " of issued instructions" +
        (negligible ? ", not worth fixing (removing every spill gains at most that much)" : ", worth reducing") + ".");
  }
}

}  // namespace

std::vector<std::string> advise(const KernelAnalysis& kernel, const Thresholds& thresholds) {
  std::vector<std::string> advice;
  if (!kernel.verdict) {
    conditional_advice(kernel, thresholds, advice);
  } else if (*kernel.verdict == Verdict::bandwidth) {
    bandwidth_advice(kernel, thresholds, advice);
  } else if (*kernel.verdict == Verdict::instruction) {
    instruction_advice(kernel, thresholds, advice);
  } else {
    latency_advice(kernel, thresholds, advice);
  }
  // The samples name a latency-limited kernel's cause better than its counters: first.
  const auto stalls = stall_advice(kernel);
  const bool first = kernel.verdict && *kernel.verdict == Verdict::latency;
  advice.insert(first ? advice.begin() : advice.end(), stalls.begin(), stalls.end());
  return advice;
}

}  // namespace limiter::detail
