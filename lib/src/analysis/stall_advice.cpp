// Advice keyed to a kernel's dominant stall reasons (docs/design.md §7), in the seeds' terms: more
// independent loads in flight or more warps for memory latency (seed 000: occupancy and ILP),
// fewer barriers or more, smaller blocks for barriers (seed 002's reduction ladder), padding
// for shared-memory bank conflicts (seed 004), the register cap where the kernel spills (seed 001).
#include "analysis/analysis_steps.hpp"
#include "limiter/format.hpp"

namespace limiter::detail {
namespace {

// "Stall Long Scoreboard, 62% of the stalled samples".
std::string measured(const StallShare& reason) {
  return reason.title + ", " + format_percent(reason.stall_share, 0) + " of the stalled samples";
}

bool spills(const KernelAnalysis& k) {
  return k.lmem.l2_share.value_or(0) > 0 || k.lmem.instruction_share.value_or(0) > 0;
}

// The occupancy note a memory-latency remedy needs: low occupancy, and what limits it.
std::string occupancy_note(const KernelAnalysis& k) {
  if (!k.occupancy.theoretical || k.occupancy.theoretical->occupancy >= 0.5) return "";
  const auto& occ = *k.occupancy.theoretical;
  std::string note = "; occupancy is " + format_percent(occ.occupancy, 0) + ", limited by " + to_string(occ.limited_by);
  if (occ.limited_by == OccupancyLimiter::registers)
    note +=
        ": cap the registers (__launch_bounds__(threads, minBlocksPerSM) or -maxrregcount) as far as no spills appear";
  return note;
}

std::string long_scoreboard(const KernelAnalysis& k, const StallShare& r) {
  std::string text = "Warps wait on global or local memory (" + measured(r) +
                     "): put more independent loads in flight per thread (load several elements before using any: "
                     "unroll, ILP), or run more warps per SM to hide the latency" +
                     occupancy_note(k);
  if (spills(k))
    text += "; local memory is " + format_percent(k.lmem.l2_share) + " of the L1-L2 traffic and " +
            format_percent(k.lmem.instruction_share) +
            " of the instructions: the spills are part of the wait (raise the register cap: a higher "
            "-maxrregcount or a smaller minBlocksPerSM in __launch_bounds__)";
  return text + ".";
}

std::string barrier(const KernelAnalysis& k, const StallShare& r) {
  std::string blocks = k.block.count() >= 512 ? " (blocks of " + std::to_string(k.block.count()) + " threads)" : "";
  return "Warps wait at __syncthreads (" + measured(r) +
         "): fewer barriers (more work between them; warp-level primitives such as __shfl_down_sync for the "
         "last steps of a reduction, with no barrier), or smaller blocks" +
         blocks + " and more of them per SM, so that while one block waits at its barrier another runs.";
}

bool is_shared_memory(const std::string& reason) { return reason == "short_scoreboard" || reason == "mio_throttle"; }

// Short scoreboard and MIO throttle share a cause and a remedy: one item names both.
std::string shared_memory(const std::vector<StallShare>& dominant) {
  std::string measures;
  bool short_scoreboard = false;
  for (const auto& r : dominant) {
    if (!is_shared_memory(r.reason)) continue;
    measures += (measures.empty() ? "" : "; ") + measured(r);
    short_scoreboard = short_scoreboard || r.reason == "short_scoreboard";
  }
  return "Warps wait on shared memory (" + measures +
         "): remove bank conflicts (pad shared arrays, e.g. [32][33] instead of [32][32], or use odd strides), "
         "and access shared memory less often (keep values in registers, exchange them with warp shuffles)." +
         (short_scoreboard ? " Short scoreboard also counts special math (MUFU: sin, exp, rsqrt) and its dependants."
                           : "");
}

std::string dependent_math(const KernelAnalysis& k, const StallShare& r) {
  const bool pipe = r.reason == "math_pipe_throttle";
  return std::string(pipe ? "A math pipe is oversubscribed (" : "Warps wait on fixed-latency dependencies (") +
         measured(r) +
         "): give each warp independent instructions between dependent ones (ILP: several accumulators, unroll)" +
         (pipe ? ", spread the work over more pipes (mix FP32 and integer, tensor cores for matrix math)"
               : ", or run more warps per scheduler") +
         occupancy_note(k) + ".";
}

std::string other_reason(const KernelAnalysis& k, const StallShare& r) {
  const std::string& key = r.reason;
  if (key == "lg_throttle")
    return "The queue of global and local memory instructions is full (" + measured(r) +
           "): issue fewer, wider memory instructions (vectorise: float4 / int4 loads, one per 16 bytes)" +
           (spills(k) ? ", and fewer local-memory accesses (the spills: raise the register cap)" : "") + ".";
  if (key == "not_selected")
    return "Warps are ready but another one issued (" + measured(r) +
           "): the schedulers have warps to spare, so more occupancy will not help: execute fewer instructions.";
  if (key == "tex_throttle")
    return "The texture unit's queue is full (" + measured(r) +
           "): fewer texture and surface fetches (plain global loads for data without filtering, shared memory for "
           "reused data).";
  if (key == "membar")
    return "Warps wait on memory fences (" + measured(r) +
           "): fewer __threadfence calls and system-scope atomics; block scope where it suffices.";
  if (key == "branch_resolving")
    return "Warps wait for branch targets (" + measured(r) +
           "): fewer branches that diverge within a warp (uniform control flow, predication of short branches).";
  if (key == "no_instruction" || key == "no_instructions")
    return "Warps wait for their next instruction to be fetched (" + measured(r) +
           "): a large or far-jumping kernel misses the instruction cache: unroll less, inline less into one kernel.";
  if (key == "imc_miss")
    return "Warps wait on the constant cache (" + measured(r) +
           "): keep __constant__ accesses uniform across a warp; indexed tables belong in global memory.";
  if (key == "drain")
    return "Warps wait for their stores to drain as they finish (" + measured(r) +
           "): fewer stores at the kernel's end.";
  if (key == "sleeping")
    return "Warps sleep (" + measured(r) + "): check the back-off of spin loops (__nanosleep) and warp yields.";
  if (key == "warpgroup_arrive")
    return "Warps wait for their warpgroup's tensor-core MMA (wgmma) to complete (" + measured(r) +
           "): expected in a Hopper GEMM; where it dominates, give each wgmma more work (larger tiles) and "
           "the pipeline more stages, so that the loads of the next tiles overlap the MMAs in flight.";
  if (key == "dispatch_stall")
    return "The dispatcher could not issue (" + measured(r) + "): a pipeline conflict, rarely fixed in source.";
  return "Warps spend " + format_percent(r.stall_share, 0) + " of the stalled samples in " + r.title +
         ", a reason this limiter has no advice for (see Nsight Compute's Warp State section).";
}

}  // namespace

std::vector<std::string> stall_advice(const KernelAnalysis& kernel) {
  std::vector<std::string> advice;
  if (!kernel.stalls) return advice;
  bool shared_named = false;
  for (const auto& reason : kernel.stalls->dominant) {
    const std::string& key = reason.reason;
    if (key == "long_scoreboard")
      advice.push_back(long_scoreboard(kernel, reason));
    else if (key == "barrier")
      advice.push_back(barrier(kernel, reason));
    else if (is_shared_memory(key) && shared_named)
      continue;
    else if (is_shared_memory(key))
      advice.push_back(shared_memory(kernel.stalls->dominant));
    else if (key == "math_pipe_throttle" || key == "wait")
      advice.push_back(dependent_math(kernel, reason));
    else
      advice.push_back(other_reason(kernel, reason));
    shared_named = shared_named || is_shared_memory(key);
  }
  return advice;
}

}  // namespace limiter::detail
