#pragma once
// The known-answer check of the suite's stall kernels: the dominant stall reason PC
// sampling found in a kernel (`limiter kernels --stalls`, RunRecord::stalls) against the one
// the catalog intends (CatalogEntry::intended_stalls). Host-only, tested on hand-made values.
//
//   const StallCheck check = check_stall(*find_entry("barrier_heavy"), run.stalls ? &*run.stalls : nullptr);
//   check.outcome == StallOutcome::matches   // "barrier" had the most samples
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "limiter/kernels/catalog.hpp"
#include "limiter/kernels/results.hpp"
#include "limiter/stalls.hpp"

namespace limiter::kernels {

// What a kernel waited on most: the reason with the most samples other than "selected" (a warp
// that issued is not waiting). Ties go to the reason first in name order.
struct DominantStall {
  std::string reason;
  std::uint64_t samples = 0;
  double share = 0;  // of all the kernel's samples, "selected" included
};
std::optional<DominantStall> dominant_stall(const KernelStalls& kernel);  // empty: no stall samples

enum class StallOutcome {
  no_intended,  // the catalog names no stall for this kernel
  no_data,      // the run has no PC sampling at all
  no_samples,   // sampled, but not this kernel (too short for one sample, or not run)
  matches,      // the dominant reason is one the catalog intends
  differs,
};

struct StallCheck {
  StallOutcome outcome = StallOutcome::no_intended;
  std::optional<DominantStall> dominant;
  std::string text;  // "yes", "NO (barrier)", "no stall data (run with --stalls)", ...
};

inline constexpr const char* kNoStallData = "no stall data (run with --stalls)";

// The check of ENTRY against STALLS (null: the run was not sampled). The kernel's stalls are
// found under the entry's name, as the suite names its launches (add_experiment_stalls).
StallCheck check_stall(const CatalogEntry& entry, const StallInfo* stalls);

// Adds one experiment's PC sampling to the suite's: its kernels (one launch, or a kernel and
// its helpers) become one KernelStalls named EXPERIMENT, so experiments that share a kernel
// function (atomics_many_addresses, atomics_few_addresses) stay apart.
void add_experiment_stalls(StallInfo& suite, const StallInfo& experiment, const std::string& name);

// The table of every measured kernel with an intended stall: intended, dominant (share), check;
// one line saying so when STALLS is null. Returns the number of checks that differ.
std::size_t write_stall_checks(const std::vector<Measurement>& measurements, const StallInfo* stalls,
                               std::ostream& out);

}  // namespace limiter::kernels
