#pragma once
// Times of launches profiled in user ranges (--replay graphs). A user range on the GPU lasts from
// PushRange to PopRange, so it spans the host's work between them as well as the kernel: a 3.6 us
// kernel read 16-25 us on an H100 (bench/results/2026-11-23-graphs.md). Counts (instructions,
// sectors) are exact; what scales with elapsed time is not. Given the kernel's own duration from
// its activity record, those counters are rescaled to it.
#include "limiter/record.hpp"

namespace limiter {

// Sets LAUNCH's user_range_ns (its range's gpu__time_duration.sum) and activity_ns (KERNEL_NS),
// and, where the range lasted longer than the kernel, rescales by r = kernel / range:
//   gpu__time_duration.*, *cycles_elapsed* (not their .per_second: clocks)     x r
//   *.pct_of_peak_sustained_elapsed, *.per_cycle_elapsed, other *.per_second   / r (percentages at most 100)
// Counts, peaks and what is per active cycle stay: the SMs are idle outside the kernel.
// A launch without gpu__time_duration.sum only gets activity_ns.
void time_user_range_by_kernel(KernelLaunch& launch, double kernel_ns);

}  // namespace limiter
