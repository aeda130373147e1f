#pragma once
// The collector's state, shared by its rooms: driver callbacks (driver_callbacks.cpp), launch
// metadata (launch_tracking.cpp), context set-up (context_setup.cpp), the range-profiler
// session (range_session.cpp), and what could not be profiled (missed_launches.cpp).
#include <cuda.h>
#include <cupti.h>
#include <cupti_range_profiler.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collect/clock.hpp"
#include "collect/collector_internal.hpp"
#include "collect/counter_lock.hpp"
#include "collect/launch_selector.hpp"
#include "collect/nvtx_tracker.hpp"
#include "collect/profiler_host.hpp"
#include "collect/trace.hpp"
#include "limiter/collector.hpp"

namespace limiter {

namespace detail {

class SamplingMode;

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


struct PendingLaunch {
  KernelLaunch launch;  // metadata; counters are added when its range is decoded
  bool keep = false;    // selected by the filters (others are decoded and dropped)
  // An empty user range (push, pop, nothing between): the profiler's own work in a range
  // (user_range_time.hpp), not a launch of the record.
  bool measures_range_work = false;
};

// Kernel attributes, asked once per function handle.
struct KernelAttributes {
  int registers = 0;
  int static_shared = 0;
  int local = 0;
};

// What a launch callback needs of its function, worked out once per function and context:
// demangling a PyTorch template name takes microseconds, and every launch asks (unselected ones
// included, so this is the per-launch cost of a run under a budget once its steps are profiled).
struct KernelInfo {
  std::string mangled_name, name;
  KernelAttributes resources;
};

// One node of an executable graph, in a topological order of the graph (graph_replay.cpp).
struct GraphNode {
  CUgraphNode handle = nullptr;  // identifies the node in the exec (cuGraphNodeSetEnabled)
  CUgraphNodeType type{};
  std::uint64_t index = 0;              // position in the topological order: graph_node in the record
  std::optional<KernelLaunch> kernel;  // kernel nodes: name, grid, block, resources from the node's parameters
};

// What the collector knows of an executable graph, from its instantiation.
struct GraphExec {
  std::uint64_t graph_id = 0;  // CUPTI's graph-exec ID
  std::vector<GraphNode> nodes;  // topological order
  std::size_t kernel_count = 0;
  CUgraph source = nullptr;  // the app's graph, whose node handles identify the exec's nodes
  // Every node can run on its own (kernel, memset, memcpy, empty nodes; usable handles): a
  // selected launch runs node by node, each kernel in its own range. Otherwise the launch is
  // one range, and this says why.
  bool per_node = false;
  std::string whole_reason;
};

struct ContextProfiler;

// A launch between its ENTER and EXIT callbacks, for EXIT to finish (user ranges, graphs).
struct LaunchInFlight {
  ContextProfiler* profiler = nullptr;
  CUstream stream = nullptr;
  bool per_thread_stream = false;
  GraphExec* graph = nullptr;
  bool nodes_disabled = false;  // per node: the app's own launch ran with them off; EXIT turns them on
  bool range_open = false;      // a user range around the app's launch: EXIT closes it
  bool sync_before_pop = false;  // and waits for the launch's stream first
  std::size_t pending_index = 0;  // the range's launch in the batch (dropped if the launch fails)
};

// When a user range is closed (user_ranges.cpp): at once, PopRange being ordered after the
// launch's work on the GPU, or after a stream synchronise (for graph ranges, or all ranges).
enum class RangeSync { none, graph, all };
RangeSync range_sync_of(const std::string& name);  // CollectorOptions::range_sync

std::string demangle(const char* mangled);

// A graph node cuGraphNodeSetEnabled accepts (kernel, memset, memcpy): it can run on its own.
bool runnable_alone(CUgraphNodeType type);

// In user-range mode: the place in the batch of the launch a range was pushed for (its name).
std::optional<std::size_t> user_range_index(const std::vector<std::uint8_t>& image, std::size_t range);

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
  bool user_replay = false;         // one pass (not --replay kernel): ranges decoded in batches, at Stop
  bool user_range = false;          // user replay in user-range mode: a range pushed per launch and per graph node
  bool graphs_launched = false;     // a graph was launched under user replay: user range from then on
  std::size_t ranges_per_image = kDefaultRangesPerImage;
  std::size_t ranges_consumed = 0;  // ranges of `image` already evaluated
  std::size_t images_written = 0;
  std::deque<PendingLaunch> pending;
  Clock::time_point oldest_pending{};  // when the batch's first launch was made
  // User-range mode: the engine's active time in the shortest empty range so far, taken out of
  // the launches' times (user_range_time.hpp); one empty range per batch.
  std::optional<double> range_work_ns;
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
  // By function handle and context; its own lock, since launch callbacks read it before taking
  // the collector's.
  std::mutex kernel_info_mutex;
  std::map<std::pair<void*, CUcontext>, detail::KernelInfo> kernel_info;
  std::map<CUgraphExec, detail::GraphExec> graph_execs;
  // The app's graphs it destroyed while an exec made from them is profiled node by node: kept
  // alive (kept_graphs.cpp), and destroyed by us once no exec of theirs is left.
  std::set<CUgraph> kept_graphs;
  std::vector<CUgraph> kept_graphs_to_release;  // their last exec is being destroyed: released at its EXIT
  detail::LaunchInFlight in_flight;  // set from a launch's ENTER to its EXIT (lock held)
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
  // `--sampling` with per-kernel budgets (budgets_then_sampling.cpp): once the budgets are spent,
  // the profilers are finished and the sampler takes the launch and context callbacks over.
  detail::SamplingMode* sampling_after_budgets = nullptr;
  std::atomic<bool> handed_to_sampling{false};
  // `--sampling --exact-undecided K` (sampling_then_exact.cpp): the same two objects the other
  // way round: the sampler has the callbacks first, then this collector profiles exactly.
  bool sampling_first = false;
  std::atomic<bool> sampling_phase_ended{false};
  std::string sampling_phase_text;  // what the switch found and cost (--timing)

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
  detail::KernelAttributes attributes_of(CUfunction function, CUdevice device);
  // The name and resources of a launch's function (cached; refreshed when the handle now names
  // another kernel, as after a module unload). A copy: the cache may change under other threads.
  detail::KernelInfo kernel_info_of(CUfunction function, CUcontext context, const char* mangled_name);
  // User replay for this context: one pass, and not --replay kernel.
  bool wants_user_replay(const ContextProfiler& profiler) const {
    return profiler.passes == 1 && options.replay != "kernel";
  }

  // graph_replay.cpp
  void record_graph(const CUpti_GraphData& graph);
  void forget_graph_exec(CUgraphExec exec);
  void forget_source_graph(CUgraph graph);
  // User replay: the selected graph launch's kernels profiled (node by node, or as one range).
  void profile_graph_launch(ContextProfiler& profiler, detail::GraphExec& graph, CUstream stream,
                            bool per_thread_stream, std::vector<detail::PendingLaunch>& launches);
  // The first profiled graph launch of a context: its profiler re-created in user-range mode.
  void enter_user_range_mode(ContextProfiler& profiler);

  // kept_graphs.cpp: the app destroys a graph (cuGraphDestroy ENTER and EXIT) whose node handles
  // a node-by-node exec still needs; an exec's destruction ends (cuGraphExecDestroy EXIT).
  void on_graph_destroy(const CUpti_CallbackData& call);
  void on_graph_destroy_starting(CUgraph graph);  // resource callback: which graph the driver destroys
  void release_kept_graph_of(CUgraphExec exec);   // an exec is destroyed (lock held)
  void on_graph_exec_destroyed();

  // user_ranges.cpp
  // User-range mode: a selected eager launch in its own range, closed at EXIT.
  void open_launch_range(ContextProfiler& profiler, CUstream stream, bool per_thread_stream,
                         detail::PendingLaunch&& launch);
  void push_range(ContextProfiler& profiler);  // named by the next launch's place in the batch
  void pop_range(ContextProfiler& profiler, CUstream stream, bool per_thread_stream, bool synchronize);
  // The batch's empty range, unless it has one: pushed and popped with nothing between.
  void measure_range_work(ContextProfiler& profiler);
  // Decoded: an empty range's engine-active time kept as the context's range work.
  void keep_range_work(ContextProfiler& profiler, const KernelLaunch& empty);
  // At EXIT: a graph's nodes enabled again, an open range closed (a failed launch's dropped).
  void finish_launch(const CUpti_CallbackData& data);

  // range_session.cpp
  bool start_profiler(ContextProfiler& profiler, std::size_t launches);
  bool resume(ContextProfiler& profiler, std::size_t launches);
  void enable_profiler(ContextProfiler& profiler);
  void configure_and_start(ContextProfiler& profiler);
  void flush_batch(ContextProfiler& profiler, bool restart = true);
  void stop_and_decode(ContextProfiler& profiler);  // user replay: the batch's pass submitted, decoded
  void start_next_batch(ContextProfiler& profiler);
  void disable_profiler(ContextProfiler& profiler);
  void reinitialize_image(ContextProfiler& profiler);
  void decode(ContextProfiler& profiler);
  void complete(ContextProfiler& profiler, detail::PendingLaunch&& pending, std::size_t range);
  void keep_raw_image(ContextProfiler& profiler);
  void finish(ContextProfiler& profiler);
  void pause(ContextProfiler& profiler);
  void stop_for_now(ContextProfiler& profiler);  // pause and finish: disabled, turn ended
  // Decodes every context's batch whose first launch is at least MIN_AGE old (sync points).
  void flush_all(detail::Clock::duration min_age = detail::Clock::duration::zero());
  void yield_if_others_wait(ContextProfiler& profiler);
  bool take_turn(ContextProfiler& profiler, std::size_t launches);
  void end_turn(ContextProfiler& profiler);
  detail::CounterLock& counter_lock(const ContextProfiler& profiler);
  void keep_turns_fair();

  // budgets_then_sampling.cpp: every context's profiler finished (its launches decoded) and the
  // exact launches handed to the sampler; SAMPLING_FOLLOWS false at the end of the run. Lock held.
  void hand_over_to_sampling(bool sampling_follows);
  // Sampling first: whether this launch (ENTER) ends the sampling phase; then take_over_from_sampling().
  bool sampling_phase_over() const;
  void take_over_from_sampling();
  // Sampling first, at take_run(): the sampled record with the exact phase's launches joined.
  RunRecord sampling_then_exact_run();

  // missed_launches.cpp
  void miss(detail::MissReason reason, std::uint64_t launches, const std::string& detail = "");
  void report_status(bool force);  // to the sink: the tally and launches seen, when they changed
};

// driver_callbacks.cpp: subscribes IMPL to the launch, sync-point, graph and resource callbacks.
void subscribe_callbacks(Collector::Impl& impl);

}  // namespace limiter
