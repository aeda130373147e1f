#pragma once
// The exact session (docs/design.md §4): the Range Profiler gives each selected launch a range, and
// the Profiler Host API evaluates it. It knows nothing of other phases: the orchestrator's phase
// rule (collect/handover.hpp) tells it which kernels to leave out and joins its plain record into
// the one handed over. It is composed of parts with narrow interfaces, each owning its state and
// tested alone on the fake backend or with plain values:
//   budgets and selection   LaunchBudgets  (launch_budgets.hpp): which kernels, when to pause, when spent
//   counter turns           CounterTurns   (counter_turns.hpp): the per-device turns, the turn keeper
//   graphs                  GraphExecs     (graph_execs.hpp): execs recorded, the app's graphs kept
//   user ranges             UserRanges     (user_range_work.hpp): push/pop, the empty range, L2 flush
//   batches                 RangeBatches   (range_batches.hpp): start/resume, flush/decode, pause, retire
// and the session's own files, which order the calls between the parts: launches and their
// metadata (launch_tracking.cpp), a context's set-up (context_setup.cpp), user ranges around
// launches (user_ranges.cpp), graph launches node by node (graph_replay.cpp), the app's
// cuGraphDestroy (kept_graphs.cpp), what could not be profiled (missed_launches.cpp), its record
// and timings (range_record.cpp). Every CUPTI and driver call goes through its RangeBackend (range_backend.hpp).
#include <atomic>
#include <functional>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "collect/collector_internal.hpp"
#include "collect/counter_lock.hpp"
#include "collect/range/counter_turns.hpp"
#include "collect/range/device_preparer.hpp"
#include "collect/range/graph_execs.hpp"
#include "collect/range/launch_budgets.hpp"
#include "collect/range/range_batches.hpp"
#include "collect/range/user_range_work.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/range/range_timings.hpp"
#include "collect/range/range_types.hpp"
#include "collect/session.hpp"
#include "collect/trace.hpp"
#include "limiter/collector_options.hpp"

namespace limiter::detail {

class RangeSession final : public Session,
                           public LaunchExits,
                           public SyncPoints,
                           public GraphEvents,
                           public ContextCreation,
                           public PendingWork,
                           public PhaseEnd,
                           public KernelTally,
                           private BatchEvents {
 public:
  // METRICS: the plan's. NVTX: the app's ranges (shared with the orchestrator). SINK: where
  // completed launches go at once (the injection's partial file); may be null.
  // ENDS_WHEN_BUDGETS_SPENT: the session ends where a budget run would pause: phase_over() turns
  // true instead.
  RangeSession(const CollectorOptions& options, std::vector<std::string> metrics, RangeBackend& backend,
               NvtxTracker& nvtx, LaunchSink* sink, bool ends_when_budgets_spent = false);
  ~RangeSession() override;

  const char* name() const override { return "exact"; }
  SessionCapabilities capabilities() override;
  void begin_region() override;
  void end_region() override;
  void on_launch(const LaunchCall& call) override;
  void on_launch_exit(const LaunchCall& call) override;
  void on_sync(SyncKind kind) override;
  void on_graph_event(const GraphEvent& event) override;
  bool keeps_graphs() const override;                   // where graph launches are profiled node by node
  void on_context_created(CUcontext context) override;  // its device prepared ahead (context_setup.cpp)
  void on_context_destroy(CUcontext context) override;
  void flush() override;
  bool flush_before_exit(std::chrono::milliseconds wait) noexcept override;
  void write_raw_files() override;
  // The record before is the orchestrator's to analyse and join (handover.hpp). FOLLOWS: the
  // session's phase begins (a profiler may start ahead from now on; finish retires its profilers);
  // else the process ends and no preparation is left running.
  void begin_after(RunRecord before, bool follows) override;
  bool phase_over() const override { return budgets_.spent(); }
  std::string phase_over_reason() const override { return budgets_.spent_reason(); }
  // Its own record: its launches, missed launches, launches seen and kernels seen.
  RunRecord finish() noexcept override;
  // Launches of these kernels and configurations (name, LaunchSelector::configuration_text) are
  // only counted from now on, never selected.
  void exclude_from_selection(std::vector<std::pair<std::string, std::string>> kernels);
  // A later phase: its devices may be prepared ahead (prepare_ahead_of_phase), but no profiler
  // starts before its phase begins (begin_after). Before the first launch.
  void follows_a_phase() { phase_begun_ = false; }
  // The phase before runs in CONTEXT: its device prepared now, off the app's thread, so that the
  // set-up is not paid at the hand-over.
  void prepare_ahead_of_phase(CUcontext context) noexcept { prepare_ahead(context); }
  std::vector<MissedLaunches> missed() const override;
  std::uint64_t launches_seen() const override;
  std::vector<KernelSeen> kernels_seen() const override;
  std::string timings() const override;
  RangeTimings range_timings() const;  // the parts of timings(), for tests and benchmarks
  // Called once a context is set up, with its device and chip: the next phase prepares ahead.
  std::function<void(int device, const std::string& chip)> on_context_ready;
  // Each launch of the record as it completes, with the correlation id of the app's call that
  // issued it (the activity session joins kernels to launches by it). Under the session's lock.
  std::function<void(std::uint32_t correlation_id, std::uint64_t sequence)> on_launch_completed;
  // A wait (not a query) decodes the batch at once; the default run's counters phase waits for
  // the batch to age instead (on_sync).
  bool decode_at_every_wait = true;

 private:
  bool active() const { return options.always_active || active_depth > 0; }

  // launch_tracking.cpp
  // The name and resources of a launch's function (cached; refreshed when the handle now names
  // another kernel, as after a module unload). A copy: the cache may change under other threads.
  KernelInfo kernel_info_of(CUfunction function, CUcontext context, const char* mangled_name);
  std::vector<PendingLaunch> launches_of(const LaunchCall& call, GraphExec*& graph);
  // Under the lock: the selected launches go to the context's profiler.
  void profile_launches(const LaunchCall& call, GraphExec* graph, std::vector<PendingLaunch>& launches,
                        std::size_t selected, const Clock::time_point& entered);

  // context_setup.cpp
  void prepare_ahead(CUcontext context) noexcept;  // its device, off the app's thread
  // On the preparer's thread, its device prepared: the context set up and its profiler enabled,
  // started once and stopped, so that the first launch pays a later Start (~45 ms) instead of
  // the first (300-800 ms, H100). Only where nothing waits: the session's lock and the
  // counters' turn free at once, the context alive and profiled.
  void start_ahead(CUcontext context) noexcept;
  ContextProfiler* context_profiler(CUcontext context, std::size_t launches);
  void set_up(ContextProfiler& profiler);
  bool rebuild_config(ContextProfiler& profiler) override;  // with the device's counter availability

  // graph_replay.cpp
  // User replay: the selected graph launch's kernels profiled (node by node, or as one range).
  void profile_graph_launch(ContextProfiler& profiler, GraphExec& graph, CUstream stream, bool per_thread_stream,
                            std::vector<PendingLaunch>& launches);
  // The first profiled graph launch of a context: its profiler re-created in user-range mode.
  void enter_user_range_mode(ContextProfiler& profiler);

  // kept_graphs.cpp: the app destroys a graph (cuGraphDestroy ENTER and EXIT) whose node handles
  // a node-by-node exec still needs; an exec's destruction ends (cuGraphExecDestroy EXIT).
  void on_graph_destroy(const GraphEvent& call);
  void on_graph_destroy_starting(CUgraph graph);  // resource callback: which graph the driver destroys
  void on_graph_exec_destroyed();

  // user_ranges.cpp: the session's side of its UserRanges
  // User-range mode: a selected eager launch in its own range, closed at EXIT.
  void open_launch_range(ContextProfiler& profiler, CUstream stream, bool per_thread_stream, PendingLaunch&& launch);
  void push_range(ContextProfiler& profiler);  // named by the next launch's place in the batch
  // The batch's empty range, unless it has one: pushed and popped with nothing between.
  void measure_range_work(ContextProfiler& profiler);
  // At EXIT: a graph's nodes enabled again, an open range closed (a failed launch's dropped).
  void finish_launch(bool failed);

  // range_record.cpp: what the session's RangeBatches tell it
  void launch_decoded(ContextProfiler& profiler, KernelLaunch&& launch, std::uint32_t correlation_id,
                      std::size_t range) override;
  void batch_decoded() override { report_status(false); }
  // Decodes every context's batch whose first launch is at least MIN_AGE old (sync points).
  void flush_all(Clock::duration min_age = Clock::duration::zero());
  void retire_all() noexcept;

  // counter_turns_session.cpp: the session's side of its CounterTurns
  void yield_if_others_wait(ContextProfiler& profiler);
  bool take_turn(ContextProfiler& profiler, std::size_t launches) override;  // false: LAUNCHES missed
  void end_turn(ContextProfiler& profiler) override;  // once no context of the process runs on the device
  void keep_turns_fair();                             // the turn keeper's tick

  // missed_launches.cpp
  void miss(MissReason reason, std::uint64_t launches, const std::string& detail = "") override;
  void report_status(bool force);  // to the sink: the tally and launches seen, when they changed

  CollectorOptions options;
  std::vector<std::string> metrics;
  RangeBackend& backend;
  NvtxTracker& nvtx;
  LaunchSink* sink;  // may be null
  LaunchBudgets budgets_;
  mutable std::mutex mutex;  // held from a launch's ENTER callback to its EXIT, on the same thread
  std::map<CUcontext, std::unique_ptr<ContextProfiler>> contexts;
  std::map<CUcontext, FailedContext> failed_contexts;
  // Not to be started ahead (start_ahead) once gone; its own lock, taken in resource callbacks.
  std::mutex destroyed_mutex;
  std::set<CUcontext> destroyed_contexts;
  bool finishing = false;  // finish() began: nothing is started ahead from then on
  // By function handle and context; its own lock, since launch callbacks read it before taking
  // the session's.
  std::mutex kernel_info_mutex;
  std::map<std::pair<void*, CUcontext>, KernelInfo> kernel_info;
  GraphExecs graphs_;        // under the session's lock
  LaunchInFlight in_flight;  // set from a launch's ENTER to its EXIT (lock held)
  CounterTurns turns_;       // its keeper's tick takes the session's lock: joined in ~RangeSession
  std::vector<KernelLaunch> completed;
  std::vector<MissedLaunches> missed_;
  Clock::time_point status_reported{};
  bool missed_changed = false;
  std::uint64_t launches_seen_ = 0, launches_seen_reported = 0;  // every launch in a profiled region
  DeviceDescription last_device;
  std::uint64_t next_sequence = 0;
  int active_depth = 0;
  std::string raw_dir;
  std::ofstream raw_launches;
  RangeTimings times;
  UserRanges ranges_{backend, times, options.cache_control == "all", range_sync_of(options.range_sync)};
  RangeBatches batches_{
      backend,
      metrics,
      times,
      *this,
      options.replay,
      (budgets_.selector().filters() && !options.auto_range_for_filters) || options.cache_control == "all",
      options.raw_dir};
  std::atomic<bool> phase_begun_{true};  // follows_a_phase: false until begin_after
  bool began_after_ = false;             // begin_after was called: finish ends the session for good (retire_all)
  // Each device's set-up, prepared off the app's thread until its first context's set_up takes
  // it (device_preparer.hpp). Last: its threads end before the rest of the session goes.
  DevicePreparer preparer{backend, metrics};
};

}  // namespace limiter::detail
