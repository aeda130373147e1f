#pragma once
// What the collector does, as one value: `limiter run` fills it from its flags (one table of
// them: run_flags.hpp), checks it (validate_collector_options) and hands it to the injected
// library through the environment (collector_options_environment /
// collector_options_from_environment); the in-process API takes it as it is. Nothing else in the
// collector reads the environment.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace limiter {

// The default run (no single-answer mode chosen): PC sampling for a bounded window, then exact
// counters for each kernel and launch configuration's first launches (a budget), then the
// activity timeline to the end: why kernels wait, their verdicts and the program verdict in one
// run (phases.hpp). The budget when none is given, chosen by measurement (bench/budget_agreement.py on
// every committed every-launch record of a real program: S=0 C=3 is the cheapest at 97 % or more
// of kernel time on 10 of 11; a skip never profiles a kernel launched once, C below 3 misses
// warm-up launches whose verdict differs; bench/results/2026-11-28-default-run.md):
inline constexpr std::uint64_t kDefaultBudgetSkip = 0;
inline constexpr std::uint64_t kDefaultBudgetCount = 3;

struct CollectorOptions {
  std::string plan = "default";      // a named metric plan (`limiter metrics` lists them)
  std::vector<std::string> metrics;  // a user list instead of the plan, when not empty
  std::string kernel_regex;          // profile only kernels whose name matches (ECMAScript)
  std::uint64_t skip = 0;            // matching launches to skip first
  std::uint64_t count = std::numeric_limits<std::uint64_t>::max();  // then profile at most this many
  std::uint64_t sample_every = 1;                                   // profile every Nth launch of each kernel
  std::uint64_t per_kernel_skip = 0;  // launches of each kernel and configuration to skip first
  std::uint64_t per_kernel_count = std::numeric_limits<std::uint64_t>::max();  // then profile this many of each
  bool nvtx = false;                            // record each launch's NVTX ranges (the app's NVTX must find a tool:
                                                // limiter run's own in NVTX_INJECTION64_PATH, or libcupti in-process)
  std::vector<std::string> nvtx_include;        // profile only launches inside these ranges (ncu's syntax,
  std::vector<std::string> nvtx_exclude;        // nvtx_ranges.hpp), and none inside these
  bool nvtx_process_scope = false;              // push/pop ranges on one stack for all threads (ncu's
                                                // --nvtx-push-pop-scope process; PyTorch's backward)
  bool budget_by_range = false;                 // per-kernel budgets count per kernel, configuration and NVTX ranges
  std::string raw_dir;                          // keep raw counter images here, for `limiter analyze`
  std::vector<std::string> command_line;        // recorded in the run
  std::string replay = "auto";                  // auto: user replay for one-pass plans, graph launches included
                                                // (graph_replay.cpp), kernel replay for plans of several passes;
                                                // kernel: kernel replay always. "graphs" is an old name of auto
  std::string graph_profiling = "node";         // node: each kernel node of a graph launch in its own range (the
                                                // app's graphs kept alive for it: kept_graphs.cpp); graph: one
                                                // range per graph launch (ncu's --graph-profiling graph)
  std::size_t ranges_per_image = 0;             // ranges per counter-data image (and user-replay batch); 0 = 128
  bool always_active = false;                   // profile from the first launch (limiter run), no start() needed
  bool profiler_api_regions = false;            // cudaProfilerStart/Stop open and close profiled regions, as
                                                // start()/stop() do (ncu --profile-from-start off)
  bool keep_launches = true;                    // false: launches only go to the sink (memory stays flat)
  bool sampling = false;                        // PM-sampling mode (no range profiler; see above). Sampling covers
                                                // the GPU from the first launch in a region until take_run();
                                                // with a per-kernel budget, from when the budgets are spent
  std::uint64_t sampling_interval_ns = 100000;  // under ~100 us the host falls behind the GPU and
                                                // samples are lost, counted (H100)
  std::uint64_t exact_undecided_count = 0;      // with sampling: after sampling_phase_launches, the next
                                                // this many launches of each kernel and configuration the
                                                // samples did not judge, exactly (0: sampling to the end)
  std::uint64_t sampling_phase_launches = 20000;
  bool trace = false;                    // the activity timeline alone (no counters, no range profiler): the
                                         // program verdict at the app's own speed; launches are counted
  bool api_records = true;               // the activity session's CUPTI API records of the driver's and the
                                         // runtime's launch, copy and sync calls; off: launch calls from the
                                         // driver's callbacks, copies and waits from their GPU-side records
  bool prepare_ahead = true;             // the exact mode's set-up prepared from a context's creation, off
                                         // the app's thread; off in a worker the app started (not from the
                                         // environment: each injected process decides), which seldom
                                         // profiles and whose exit would wait for the preparation
  bool stalls = false;                   // PC sampling: warp stall reasons per kernel and its hottest PCs
                                         // (PcSamplingSession; stalls.hpp)
  bool every_launch = false;             // exact counters alone, of every launch the filters select (the
                                         // default before the phase list; `limiter kernels`, the known answers)
  bool timeline = false;                 // --timeline: the activity timeline beside --every-launch's counters.
                                         // Off by default: kernel records instrument the kernels (CUPTI guide
                                         // 2.17.1.1), and on an H100 the counters then read one more L2 write
                                         // sector per kernel and up to +60 % instructions issued (2026-11-26)
  std::uint64_t stall_window_ms = 1000;  // the default run's first phase: PC sampling's window, from its first launch
  std::uint64_t stall_window_samples = 5000000;  // ... or until this many samples, whichever comes first
  std::string cubin_dir;                // PC sampling keeps the sampled kernels' cubins here (<dir>/cubins), for
                                        // their SASS after the app; empty: under raw_dir (--save-raw)
  std::uint32_t stall_period_log2 = 0;  // one sample per SM every 2^N cycles (5..31); 0: the session's default
  std::string cache_control = "none";   // exact mode. none: the app's own cache state (limiter's default);
                                        // all: flush and invalidate L2 before each profiled launch, as ncu's
                                        // default --cache-control all does
  double lock_timeout_s = 60;           // longest wait for this process's turn on a GPU's counters while
                                        // another profiled process has it; then launches run unprofiled
                                        // and the record counts them as missed
  std::string lock_dir = "/tmp";        // where the per-GPU counter locks live (every profiled process of
                                        // a machine must share it: LIMITER_LOCK_DIR)

  // Knobs for measurements and for reports from new platforms: variables alone, no flag
  // (environment names in brackets).
  bool debug = false;                   // trace the collector's steps on stderr [LIMITER_DEBUG]
  bool auto_range_for_filters = false;  // keep auto range under selection filters, the earlier
                                        // behaviour, for benchmarks [LIMITER_FILTER_RANGES=auto]
  std::string range_sync = "none";      // synchronise before each user range's pop: none, graph (graph
                                        // nodes), all [LIMITER_RANGE_SYNC]
  std::size_t pm_buffer_mib = 512;      // the PM sampler's hardware buffer [LIMITER_PM_BUFFER_MIB]
  bool keep_pm_images = false;          // with raw_dir: keep the PM images too, not only the decoded
                                        // samples [LIMITER_PM_RAW_IMAGES=1]
};

// The single-answer modes: --every-launch, --trace, --stalls, --sampling. None chosen: the default
// phase list.
inline bool runs_default_phases(const CollectorOptions& o) {
  return !o.every_launch && !o.trace && !o.stalls && !o.sampling;
}

// Throws InputError when a value is out of range or options contradict each other (the modes
// that allow each option, in run_flags.hpp's table); the message names the flags of `limiter run`
// on both sides (the in-process fields are documented beside them above). `limiter run` calls it
// before the app starts, the Collector constructor for the in-process API.
void validate_collector_options(const CollectorOptions& options);

// The environment that carries OPTIONS into an injected process: NAME=value entries, one for
// every row of the table of flags (all fields but keep_launches and prepare_ahead, each injected
// process's own choice).
std::vector<std::string> collector_options_environment(const CollectorOptions& options);

// The options an injected process was given, each variable as its row reads it (an older name
// where the variable is not set). LOOKUP returns a variable's value or nullptr (std::getenv when
// empty). Throws InputError, one line, on a malformed value; how the values go together is not
// checked again (validate_collector_options did, in limiter run).
using EnvironmentLookup = std::function<const char*(const char*)>;
CollectorOptions collector_options_from_environment(const EnvironmentLookup& lookup = {});

}  // namespace limiter
