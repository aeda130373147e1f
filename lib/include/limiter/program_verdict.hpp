#pragma once
// The program before the kernel (docs/design.md §7): is the GPU the bottleneck at all? From a run's
// activity timeline (timeline.hpp), the share of the profiled window the GPU was busy, and the
// idle time split by what the host was doing meanwhile, with the verdict that follows, its
// evidence and its advice; per NVTX range where the timeline has ranges. The definitions and
// thresholds are at the top of lib/src/analysis/program_verdict.cpp and in docs/method.md's program
// section.
//
//   const ProgramVerdict program = judge_program(*record.timeline);
//   program.verdict == ProgramBound::launch   // the queue ran dry between launches
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "limiter/timeline.hpp"

namespace limiter {

enum class ProgramBound {
  gpu,      // kernels keep the GPU busy: the kernels' own verdicts say what to fix
  launch,   // idle while the host is inside launch calls: the queue runs dry between launches
  sync,     // idle while the host waits in a synchronisation
  copy,     // copies on the critical path: idle while the host copies, or the GPU doing only copies
  host,     // idle while the host works outside CUDA
  unknown,  // idle, and the record holds no host activity to say why
};
// "gpu-bound", "launch-bound", "sync-bound", "copy-bound", "host-bound", "idle (cause unknown)".
std::string_view to_string(ProgramBound bound);
// "gpu", "launch", "sync", "copy", "host", "unknown": the JSON and CSV spelling.
std::string_view program_bound_key(ProgramBound bound);

struct ProgramThresholds {
  double gpu_bound_share = 0.80;     // kernels busy at least this share of the window: GPU-bound
  double gpu_majority_share = 0.50;  // or at least this share and more than any idle cause
  double fix_min_share = 0.05;       // a program-level fix is listed when its time is this share of the window
  double short_kernel_ns = 20'000;   // kernels shorter than this on average: graphs pay off
  // Host time between two launch calls shorter than this counts as launching (the host issuing
  // work: the loop around the calls, and a tracer's own work per call), not as host work.
  double issue_gap_ns = 20'000;
  // A stretch this long with the GPU idle and no CUDA call on any host thread is a pause
  // (imports, model building, compilation, loading): set aside from the verdict and said, as the
  // advice for per-step host work does not fit it. Only one-off pauses are set aside: at most
  // max_pauses of them, leaving at least min_judged_ns to judge; more pauses are a host phase
  // that repeats, and are judged with the rest.
  double min_pause_ns = 1e9;
  std::size_t max_pauses = 2;
  double min_judged_ns = 1e8;
};

// Where the window's time went, in ns; each idle part is time the GPU ran nothing.
struct TimeSplit {
  double wall_ns = 0;               // the window (or a range's instances summed)
  double gpu_busy_ns = 0;           // union of kernel, copy and memset intervals over all streams
  double kernel_ns = 0;             // union of kernel intervals
  double copy_only_ns = 0;          // copies or memsets running and no kernel: copies on the critical path
  double idle_ns = 0;               // wall - busy
  double idle_launch_ns = 0;        // idle, the host inside a CUDA call that is neither a sync nor a copy
  double idle_sync_ns = 0;          // idle, the host inside a synchronisation
  double idle_copy_ns = 0;          // idle, the host inside a memcpy call (pageable copies are staged by the host)
  double idle_host_ns = 0;          // idle, the host outside CUDA
  double idle_unattributed_ns = 0;  // idle with no host activity in the record at all
  double share(double ns) const { return wall_ns > 0 ? ns / wall_ns : 0; }
  double busy_share() const { return share(gpu_busy_ns); }
  double kernel_share() const { return share(kernel_ns); }
  // The time a program-level fix of BOUND can give back (copy: idle in copies and copies alone).
  double time_of(enum ProgramBound bound) const;
};

struct ProgramEvidence {
  std::size_t kernels = 0, copies = 0, memsets = 0, synchronizations = 0, api_calls = 0, nvtx_ranges = 0;
  std::size_t launch_calls = 0;  // api calls that issue work (not syncs, not copies)
  std::size_t pageable_copies = 0;
  std::uint64_t copy_bytes = 0, pageable_copy_bytes = 0;
  double mean_kernel_ns = 0;
  double median_kernel_gap_ns = 0;    // between the end of a kernel and the start of the next on the GPU
  double mean_launch_call_ns = 0;     // time the host spends in a launch call
  double launches_per_second = 0;     // kernels over the window
  double sync_call_ns = 0;            // the host inside synchronisations (idle or not)
  bool host_activity = false;         // the timeline holds api calls or synchronisations
  std::uint64_t dropped_records = 0;  // timeline records dropped: every figure is a lower bound
};

// A program-level fix, ranked with the kernels in "what to fix first" by the time it can save.
struct ProgramFix {
  ProgramBound bound = ProgramBound::launch;
  double saveable_ns = 0;  // TimeSplit::time_of(bound)
  double share = 0;        // of the window
  std::string headline;    // the first remedy, short
  std::string advice;      // in full, with the numbers
};

// The verdict of one NVTX range (all its instances; ranges by path, "train_step/forward/").
struct RangeProgramVerdict {
  std::string range;
  std::size_t instances = 0;
  TimeSplit split;
  ProgramBound verdict = ProgramBound::gpu;
};

// A pause (ProgramThresholds::min_pause_ns): host work with the GPU idle and no CUDA call.
struct ProgramPause {
  std::uint64_t start_ns = 0, end_ns = 0;
  double duration_ns() const { return static_cast<double>(end_ns - start_ns); }
};

struct ProgramVerdict {
  ProgramBound verdict = ProgramBound::gpu;
  TimeSplit split;                   // the window without its pauses: what the verdict judges
  std::vector<ProgramPause> pauses;  // set aside, in time order
  double paused_ns = 0;              // their total
  ProgramEvidence evidence;
  std::uint64_t window_start_ns = 0, window_end_ns = 0;
  std::string reason;                       // the verdict and the numbers it used, in one sentence
  std::vector<std::string> advice;          // what fits the verdict, first the most useful
  std::vector<ProgramFix> fixes;            // each cause at or above fix_min_share, most time first
  std::vector<RangeProgramVerdict> ranges;  // most wall time first; empty without NVTX ranges
  ProgramThresholds thresholds;
  // Where it was judged, in one sentence, for a run of several phases (judge_run_program): "judged
  // on the timeline phase: ...". Empty for a single-phase record, judged on its whole timeline.
  std::string window_note;
};

// The verdict of the program in TIMELINE's window.
ProgramVerdict judge_program(const Timeline& timeline, const ProgramThresholds& thresholds = {});

struct RunRecord;
// The verdict of RUN's program, with window_note set (program_window.cpp): a default run's is
// judged on its timeline phase (RunRecord::phases), as the counters phase and the PC-sampling
// window slow the app; where the app ended before that phase, on its whole timeline. A record of
// one phase is judged on its whole timeline. Empty without a timeline, or with an empty one where
// the app ended in the counters phase.
std::optional<ProgramVerdict> judge_run_program(const RunRecord& run, const ProgramThresholds& thresholds = {});

// The verdict that a split implies (exposed for tests and for ranges).
ProgramBound program_bound_of(const TimeSplit& split, bool host_activity, const ProgramThresholds& thresholds = {});

// The sentence a reader sees for a record without a timeline.
inline constexpr const char* kNoTimelineNote =
    "no timeline in this record, so no program verdict (is the GPU the bottleneck at all?): "
    "`limiter run --trace -- APP` records one";

namespace detail {
// The wording (program_advice.cpp): reason, advice and fixes from the numbers.
void word_program_verdict(ProgramVerdict& program);
}  // namespace detail

}  // namespace limiter
