#pragma once
// The collector's modes as lists of phases, each phase a session (docs/design.md §4). Every
// combination of options is decided here, once:
//   exact (budgets, skip, -k, capture ranges)  [RangeSession]
//   --sampling                                 [PmSamplingSession]
//   --sampling --per-kernel-count K            [RangeSession until the budgets are spent, PmSamplingSession]
//   --sampling --exact-undecided K             [PmSamplingSession for N launches, RangeSession on what the
//                                               samples left undecided]
//   --trace                                    [ActivitySession]: the timeline alone, the cheapest mode
//   --stalls                                   [PcSamplingSession]: warp stall reasons per kernel and PC
//   --every-launch                             [RangeSession]: exact counters of every selected launch
//   (none of these: the default run)           [PcSamplingSession for a window, RangeSession until the
//                                               budgets are spent, TimelinePhase to the end], the
//                                               ActivitySession beside in the last phase
// Beside the phases, in the background: the ActivitySession (the timeline). With --every-launch
// and --timeline from the start; in the default run in its last phase only: kernel records
// instrument the kernels, which changes their counters and leaves PC samples without their
// kernel. Never beside PmSamplingSession: its kernel timestamps use the Activity API too, whose
// buffer callbacks are one per process (activity_session.hpp).
#include "collect/phases.hpp"
#include "collect/session_backends.hpp"
#include "limiter/collector_options.hpp"

namespace limiter::detail {

class NvtxTracker;
struct LaunchSink;

// The mode of OPTIONS (validated): its phases, in order, and its background, on BACKENDS (CUPTI's,
// or fakes in tests), with the app's NVTX ranges and SINK (may be null).
PhaseList sessions_for(const CollectorOptions& options, SessionBackends& backends, NvtxTracker& nvtx, LaunchSink* sink);

}  // namespace limiter::detail
