#pragma once
// The collector's state, shared by its rooms: driver callbacks (driver_callbacks.cpp), launch
// metadata (launch_tracking.cpp), context set-up (context_setup.cpp), the range-profiler
// session (range_session.cpp), and what could not be profiled (missed_launches.cpp).
#include <cuda.h>
#include <cupti.h>
#include <cupti_range_profiler.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collect/collector_internal.hpp"
#include "collect/counter_lock.hpp"
#include "collect/launch_selector.hpp"
#include "collect/nvtx_tracker.hpp"
#include "collect/profiler_host.hpp"
#include "limiter/collector.hpp"

namespace limiter {

// LIMITER_DEBUG=1 traces the collector's steps on stderr (for reports from new platforms).
inline const bool kCollectorTrace = std::getenv("LIMITER_DEBUG") != nullptr;
#define LIMITER_TRACE(...)                   \
  do {                                       \
    if (::limiter::kCollectorTrace) {        \
      std::fprintf(stderr, "limiter: ");     \
      std::fprintf(stderr, __VA_ARGS__);     \
      std::fprintf(stderr, "\n");            \
    }                                        \
  } while (0)

namespace detail {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Ranges one counter-data image holds before it is evaluated, kept (raw) and re-initialised.
// With user replay it is also the batch between two Stop/Start pairs, and Start costs ~44 ms
// per batch on an H200 while CUPTI holds ~1.5 MB of host memory per range slot. Measured with
// 2,000 launches (bench/results/2026-11-22-h200-collector-overhead.md): 64 slots 1.98 ms per
// launch and 372 MB RSS, 128 slots 1.36 ms and 472 MB, 256 slots 1.12 ms and 669 MB.
constexpr std::size_t kDefaultRangesPerImage = 128;

// A completed launch waits at most this long in a user-replay batch while the app keeps
// launching without synchronising: what a SIGKILL can take away is bounded.
constexpr auto kMaxBatchAge = std::chrono::seconds(1);

// The shortest turn on the GPU's counters before a process yields to a waiting one: each turn
// costs a Stop, a Disable, an Enable and a Start (limiter run --timing shows how much).
constexpr auto kMinTurn = std::chrono::milliseconds(1000);

// A busy GPU (another tool holds its counters) is tried again this often.
// Within a turn, a busy Start is tried kBusyAttempts times, backing off from 5 ms (~155 ms).
constexpr auto kBusyRetry = std::chrono::milliseconds(250);
constexpr int kBusyAttempts = 6;

// While a profiler runs, every launch is a range (auto range). After this many unselected
// launches in a row (per-kernel budgets spent, a -k that matches rarely) it is paused, so the
// app runs at full speed until a launch is selected again. A pause and a resume cost ~100 ms
// (Stop, Disable, Enable, Start), about as much as ranging ~70 launches.
constexpr std::uint64_t kPauseAfterUnselected = 64;

struct PendingLaunch {
  KernelLaunch launch;  // metadata; counters are added when its range is decoded
  bool keep = false;    // selected by the filters (others are decoded and dropped)
};

// Kernel attributes, asked once per function handle.
struct KernelAttributes {
  int registers = 0;
  int static_shared = 0;
  int local = 0;
};

struct GraphKernel {
  KernelLaunch launch;  // name, grid, block, shared from the node's parameters
};

std::string demangle(const char* mangled);

// Why launches could not be profiled, with the fix: the reasons a record's "missed" list names.
enum class MissReason { counters_busy, lock_timeout, set_up_failed, not_ranged, dropped, error, process_ended };

// One profiled context: its range profiler and counter-data image.
struct ContextProfiler {
  CUcontext context = nullptr;
  CUdevice device = 0;
  std::string device_uuid;
  DeviceDescription description;
  std::vector<std::uint8_t> availability, config, image;
  std::unique_ptr<ProfilerHost> host;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  std::size_t passes = 1;
  bool user_replay = false;         // one pass, no graph yet: ranges are decoded in batches, at Stop
  std::size_t ranges_per_image = kDefaultRangesPerImage;
  std::size_t ranges_consumed = 0;  // ranges of `image` already evaluated
  std::size_t images_written = 0;
  std::deque<PendingLaunch> pending;
  Clock::time_point oldest_pending{};  // when the batch's first launch was made
  bool paused = false;   // disabled between profiled regions or turns: launches run at full speed
  bool retired = false;  // disabled for good (--launch-count reached, context destroyed)
  Clock::time_point busy_until{};  // another tool held the counters at the last Start
};

// A context whose profiler could not start, and whether to try again.
struct FailedContext {
  MissReason reason = MissReason::set_up_failed;
  std::string detail;
  Clock::time_point retry_at = Clock::time_point::max();  // busy counters: tried again later
};

}  // namespace detail

struct Collector::Impl {
  using ContextProfiler = detail::ContextProfiler;

  CollectorOptions options;
  std::vector<std::string> metrics;
  detail::LaunchSelector selector;
  detail::NvtxTracker nvtx;  // the app's NVTX ranges (options.nvtx)
  CUpti_SubscriberHandle subscriber = nullptr;
  std::mutex mutex;  // held from a launch's ENTER callback to its EXIT, on the same thread
  std::map<CUcontext, std::unique_ptr<ContextProfiler>> contexts;
  std::map<CUcontext, detail::FailedContext> failed_contexts;
  std::set<CUcontext> graph_contexts;  // contexts that build CUDA graphs: kernel replay from set-up
  std::map<void*, detail::KernelAttributes> attributes;
  std::map<CUgraphExec, std::vector<detail::GraphKernel>> graph_kernels;
  std::map<std::string, std::unique_ptr<detail::CounterLock>> counter_locks;  // by device UUID
  std::chrono::milliseconds lock_timeout{60'000};  // LIMITER_LOCK_TIMEOUT (seconds)
  bool lock_starved = false;  // a turn did not come in lock_timeout: later launches only try
  std::thread turn_keeper;     // keep_turns_fair, from the first turn on
  std::atomic<bool> stopping{false};
  std::vector<KernelLaunch> completed;
  std::vector<MissedLaunches> missed;
  detail::Clock::time_point status_reported{};
  bool missed_changed = false;
  std::uint64_t launches_seen = 0, launches_seen_reported = 0;  // every launch in a profiled region
  std::uint64_t unselected_in_a_row = 0;  // while a profiler runs: pauses it after kPauseAfterUnselected
  DeviceDescription last_device;
  std::uint64_t next_sequence = 0;
  int active_depth = 0;
  std::string raw_dir;
  std::ofstream raw_launches;
  detail::LaunchSink sink;  // injection: each completed launch goes to disk at once
  CollectorTimings times;

  explicit Impl(const CollectorOptions& opts) : options(opts), selector(opts) {
    nvtx.set_process_scope(opts.nvtx_process_scope);
  }

  bool active() const { return options.always_active || active_depth > 0; }
  // Profiled regions (Collector::start/stop, cudaProfilerStart/Stop); the caller holds the lock.
  void begin_region();
  void end_region();

  // context_setup.cpp
  ContextProfiler* context_profiler(CUcontext context, std::size_t launches);
  void set_up(ContextProfiler& profiler);

  // launch_tracking.cpp
  void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void on_launch_exit(const CUpti_CallbackData& data);
  void on_graph_work(CUcontext context);
  detail::KernelAttributes attributes_of(CUfunction function, CUdevice device);
  void record_graph(const CUpti_GraphData& graph);

  // range_session.cpp
  bool start_profiler(ContextProfiler& profiler, std::size_t launches);
  bool resume(ContextProfiler& profiler, std::size_t launches);
  void enable_profiler(ContextProfiler& profiler);
  void configure_and_start(ContextProfiler& profiler);
  void flush_batch(ContextProfiler& profiler, bool restart = true);
  void disable_profiler(ContextProfiler& profiler);
  void reinitialize_image(ContextProfiler& profiler);
  void decode(ContextProfiler& profiler);
  void complete(ContextProfiler& profiler, detail::PendingLaunch&& pending, std::size_t range);
  void keep_raw_image(ContextProfiler& profiler);
  void finish(ContextProfiler& profiler);
  void pause(ContextProfiler& profiler);
  // Decodes every context's batch whose first launch is at least MIN_AGE old (sync points).
  void flush_all(detail::Clock::duration min_age = detail::Clock::duration::zero());
  void yield_if_others_wait(ContextProfiler& profiler);
  bool take_turn(ContextProfiler& profiler, std::size_t launches);
  void end_turn(ContextProfiler& profiler);
  detail::CounterLock& counter_lock(const ContextProfiler& profiler);
  void keep_turns_fair();

  // missed_launches.cpp
  void miss(detail::MissReason reason, std::uint64_t launches, const std::string& detail = "");
  void report_status(bool force);  // to the sink: the tally and launches seen, when they changed
};

// driver_callbacks.cpp: subscribes IMPL to the launch, sync-point, graph and resource callbacks.
void subscribe_callbacks(Collector::Impl& impl);

}  // namespace limiter
