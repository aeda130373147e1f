// Known-answer stall kernels (docs/design.md §7, stall reasons): the dominant reason PC sampling should
// find in each kernel built to wait on one thing, keyed as ncu's Warp State section names them
// (stalls.hpp). The reasons follow Nsight Compute's definitions: long scoreboard = waiting on an
// L1TEX result (global, local memory); short scoreboard = on an MIO result (shared memory) and
// MIO throttle = the MIO queue full (bank-conflict replays); LG throttle = the local/global
// queue full (fire-and-forget atomics); math pipe throttle = the pipe busy; wait = a fixed-
// latency dependency; barrier = siblings still short of __syncthreads.
#include <string>
#include <utility>

#include "catalog_parts.hpp"

namespace limiter::kernels::detail {

void add_warp_stalls(std::vector<CatalogEntry>& entries) {
  add_entry(entries, "barrier_heavy", Family::warp_stalls, Verdict::latency, "002", "1024-thread blocks, 2^12 barriers",
            "a barrier after every few instructions and uneven work: one warp of each block runs a short "
            "dependent chain while the other 31 wait at __syncthreads (seed 002's idle threads at the "
            "reduction tree's barriers; the remedy: fewer barriers, or more, smaller blocks per SM)");
  add_entry(entries, "fma_dependent_chain", Family::warp_stalls, Verdict::latency, "000", "one FFMA chain, 4 warps/SM",
            "one chain of dependent FMAs per thread and one warp per scheduler: each FFMA waits out the "
            "previous one's fixed latency, so issue slots stay mostly empty (seed 000: too little "
            "parallelism to hide latency; calib_fma_ilp is the same work with 8 chains at full occupancy)");
}

void set_intended_stalls(std::vector<CatalogEntry>& entries) {
  // Only kernels built around one wait; the others mix reasons and have no known answer.
  const std::pair<const char*, std::vector<std::string>> intended[] = {
      {"calib_pointer_chase", {"long_scoreboard"}},  // one dependent global load at a time
      // Scattered reads fill the LG queue before their DRAM latency shows: ncu's Warp State on an
      // H200 (2026-11-28, bench/results/2026-11-28-default-run-2.md) lg throttle 55.5 %, long
      // scoreboard 38.0 %, as limiter's PC samples (55 %, 40 %; an H100 read the same).
      {"random_gather", {"lg_throttle", "long_scoreboard"}},
      {"shared_bank_conflicts", {"mio_throttle", "short_scoreboard"}},  // 32 wavefronts per load
      {"tensor_mma_loop", {"math_pipe_throttle", "wait"}},              // the tensor pipe oversubscribed
      // ncu's Warp State on an H200 (2026-11-26): long scoreboard 51 %, drain 32 %: the adds wait on
      // their eight addresses in L2, and the warps wait at exit for the last ones to drain.
      {"atomics_few_addresses", {"long_scoreboard", "drain"}},
      {"barrier_heavy", {"barrier"}},
      {"fma_dependent_chain", {"wait"}},
  };
  for (auto& entry : entries)
    for (const auto& [name, stalls] : intended)
      if (entry.name == name) entry.intended_stalls = stalls;
}

}  // namespace limiter::kernels::detail
