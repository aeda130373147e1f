#pragma once
// Times of launches profiled in user ranges (graph launches, and every launch after them). A user
// range on the GPU lasts from PushRange to PopRange, so it spans the host's work between them as
// well as the kernel: a 3.6 us kernel read 16-33 us on an H100 (bench/results/2026-11-23-graphs.md). Counts
// (instructions, sectors) are exact; what scales with elapsed time is not. The compute engine's active cycles in the
// range (gr__cycles_active, collected with every plan in the same pass) give the kernel's own duration, and those
// counters are rescaled to it. The engine is also busy with the profiler's own range work: on an H100 a 3.6 us kernel
// read 6.2 us in an eager user range and 8.7 us as a graph node (p50; the ranges themselves 17 and 23 us). The work of
// an empty range is taken out (kRangeWorkCounter): 4.0 us eager, ~6.8 us as a node, which keeps the graph launch's own
// front-end work (bench/results/2026-11-24-graphs-default.md).
//
// Rejected: the kernels' CUPTI activity records (concurrent-kernel), matched by correlation ID.
// Enabling them instruments the kernels inside the range: on an H100 a small kernel's
// smsp__inst_issued grew by 60 % and its L2 writes by one sector, and the records' spans were
// ~0.5 ms, longer than the ranges themselves (bench/results/2026-11-23-graphs.md, session 3).
#include <optional>

#include "limiter/record.hpp"

namespace limiter {

// The counters time_user_range needs (added to every plan: no extra pass on GH100).
inline constexpr const char* kEngineActiveCycles = "gr__cycles_active.max";
inline constexpr const char* kEngineElapsedCycles = "gr__cycles_elapsed.max";

// The kernel's own duration in LAUNCH's user range: the range's duration (user_range_ns once
// set, else gpu__time_duration.sum) times the share of its cycles the compute engine was
// active; none without those counters.
std::optional<double> engine_active_ns(const KernelLaunch& launch);

// The engine's active time in an empty range (nothing launched between push and pop): the
// profiler's own range work, measured by the collector once per batch and context (the shortest
// so far), kept as this counter of the launch. A graph node keeps the graph launch's own work.
inline constexpr const char* kRangeWorkCounter = "limiter__range_work_ns";

// engine_active_ns less the range work (kRangeWorkCounter) where the launch has it, unless that
// would leave under a tenth of it (the calibration did not fit this range: nothing taken out).
std::optional<double> user_range_kernel_ns(const KernelLaunch& launch);

// Sets LAUNCH's user_range_ns (its range's gpu__time_duration.sum) and kernel_active_ns
// (KERNEL_NS), and, where the range lasted longer than the kernel, rescales by r = kernel / range:
//   gpu__time_duration.*, *cycles_elapsed* (not their .per_second: clocks)     x r
//   *.pct_of_peak_sustained_elapsed, *.per_cycle_elapsed, other *.per_second   / r (percentages at most 100)
// Counts, peaks and what is per active cycle stay: the SMs are idle outside the kernel.
// A launch without gpu__time_duration.sum only gets kernel_active_ns.
void time_user_range_by_kernel(KernelLaunch& launch, double kernel_ns);

// A user-ranged launch as the collector (and `limiter analyze` on its raw images) leaves it:
// rescaled to user_range_kernel_ns where the counters are there, else user_range_ns set and the
// range's own times kept. Returns whether it was rescaled.
bool time_user_range(KernelLaunch& launch);

}  // namespace limiter
