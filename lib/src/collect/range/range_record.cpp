// The exact session's face to the orchestrator (session.hpp): regions, sync points, context
// teardown, flushes, its phase's beginning and the record it gives back.
#include <thread>

#include "collect/range/range_session.hpp"
#include "limiter/user_range_time.hpp"

namespace limiter::detail {

extern thread_local bool holds_launch_lock;
extern thread_local bool inside_flush;

namespace {

// A successful query decodes the batch only once its first launch is as old as a batch may get
// (kMaxBatchAge): PyTorch's NCCL watchdog polls events all the time, and at 100 ms a
// data-parallel step's profiled launches were cut into batches, a Start (~100 ms) each.
constexpr auto kQueryFlushAge = kMaxBatchAge;
constexpr std::chrono::milliseconds kReadWait{1000};

// The session's lock for callers that may run in an exit or signal handler: waits at most
// WAIT for another thread's launch to finish, never for this thread's own (a signal that
// interrupted our launch callback); unlocked when it does not come.
std::unique_lock<std::mutex> lock_within(std::mutex& mutex, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex, std::defer_lock);
  if (holds_launch_lock) return lock;
  const auto deadline = Clock::now() + wait;
  while (!lock.try_lock() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return lock;
}

}  // namespace

RangeSession::RangeSession(const CollectorOptions& opts, std::vector<std::string> plan_metrics,
                           RangeBackend& range_backend, NvtxTracker& tracker, LaunchSink* launch_sink,
                           bool ends_when_spent)
    : options(opts),
      metrics(std::move(plan_metrics)),
      backend(range_backend),
      nvtx(tracker),
      sink(launch_sink),
      budgets_(opts, ends_when_spent),
      graphs_(range_backend, opts.graph_profiling),
      turns_(opts.lock_dir, std::chrono::milliseconds(static_cast<std::int64_t>(opts.lock_timeout_s * 1000.0)),
             [this] { keep_turns_fair(); }),
      raw_dir(opts.raw_dir) {
  if (!raw_dir.empty()) open_raw_dir(raw_dir, raw_launches);
  preparer.on_prepared = [this](CUdevice, CUcontext context) { start_ahead(context); };
}

RangeSession::~RangeSession() {
  turns_.stop_handing_over();
  preparer.close_and_join();  // a start ahead may start the turn keeper (CounterTurns::try_take)
  turns_.stop();
}

SessionCapabilities RangeSession::capabilities() {
  SessionCapabilities takes;
  takes.launch_exits = this;
  takes.sync_points = this;
  takes.graphs = this;
  takes.contexts = this;  // their devices prepared ahead (context_setup.cpp)
  takes.pending = this;
  takes.phase_end = this;
  takes.kernels = this;
  return takes;
}

bool RangeSession::keeps_graphs() const { return options.replay != "kernel" && options.graph_profiling == "node"; }

void RangeSession::begin_region() {
  if (holds_launch_lock) return;  // a cudaProfilerStart inside our own launch work
  std::lock_guard lock(mutex);
  ++active_depth;
  // A context made before the collector subscribed (the in-process API) is seen first here.
  if (contexts.empty()) prepare_ahead(backend.current_context());
}

void RangeSession::end_region() {
  if (holds_launch_lock) return;
  std::lock_guard lock(mutex);
  if (active_depth > 0) --active_depth;
  try {
    // A region's launches are in the record when it ends; with no region left open, the
    // profilers pause so that the app's other launches run at full speed.
    for (auto& [context, profiler] : contexts) {
      if (active())
        batches_.flush(*profiler);
      else
        batches_.pause(*profiler);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: profiling error at the end of a region: %s\n", e.what());
  }
}

// The app waited anyway: decode the batch, so a kill after this point loses none of it. Our
// own cuCtxSynchronize (in RangeBatches::flush) comes back here: ignored, or the lock deadlocks. In the
// default run's counters phase (decode_at_every_wait false) a wait decodes only a batch as old as
// a query's: each decode costs the next launch a Start (45-85 ms), and a JAX step syncs once, so
// 261 budget launches took 252 batches and 27 s (H200, 2026-11-28); exit and signals still
// decode what is pending, a SIGKILL loses at most that age of budget launches.
void RangeSession::on_sync(SyncKind kind) {
  budgets_.on_sync();  // a host-timed kernel is done (or its wait is the app's): ranging may go on
  if (holds_launch_lock || inside_flush) return;
  const bool aged = kind == SyncKind::query || !decode_at_every_wait;
  flush_all(aged ? std::chrono::duration_cast<Clock::duration>(kQueryFlushAge) : Clock::duration::zero());
}

void RangeSession::on_context_destroy(CUcontext context) {
  preparer.wait_for_context(context, std::chrono::seconds(5));  // a preparer made it current
  {
    std::lock_guard destroyed(destroyed_mutex);
    destroyed_contexts.insert(context);
  }
  std::lock_guard lock(mutex);
  auto it = contexts.find(context);
  if (it != contexts.end()) batches_.retire(*it->second);
  if (options.cache_control == "all") backend.release_l2_flush(context);
}

void RangeSession::on_graph_event(const GraphEvent& event) {
  switch (event.kind) {
    case GraphEvent::Kind::graph_destroy_call:
      on_graph_destroy(event);
      return;
    case GraphEvent::Kind::exec_destroyed:
      on_graph_exec_destroyed();
      return;
    case GraphEvent::Kind::graph_destroying:
      on_graph_destroy_starting(event.graph);
      return;
    case GraphEvent::Kind::exec_created: {
      std::lock_guard lock(mutex);
      graphs_.record(event.graph, event.exec, event.graph_exec_id);
      return;
    }
    case GraphEvent::Kind::exec_destroying: {
      std::lock_guard lock(mutex);
      graphs_.exec_destroying(event.exec);
      return;
    }
  }
}

void RangeSession::flush() {
  if (budgets_.spent()) return;
  flush_all();
}

bool RangeSession::flush_before_exit(std::chrono::milliseconds wait) noexcept {
  turns_.stop_handing_over();
  const auto lock = lock_within(mutex, wait);
  if (!lock.owns_lock()) {
    // A signal that interrupted this thread inside our own launch callback: the lock is ours
    // and the session's state half-changed, so nothing more can be decoded.
    std::fprintf(stderr, "limiter: the process ended inside a launch: its last batch (at most %zu launches) is lost\n",
                 options.ranges_per_image ? options.ranges_per_image : kDefaultRangesPerImage);
    return false;
  }
  bool decoded = true;
  for (auto& [context, profiler] : contexts) {
    try {
      batches_.flush(*profiler, /*restart=*/false);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "limiter: the last launches could not be decoded: %s\n", e.what());
      decoded = false;
    }
    // Whatever is still pending (a failed decode) will not be.
    miss(MissReason::process_ended, profiler->pending.size());
    profiler->pending.clear();
  }
  report_status(true);
  // No preparer inside CUPTI while the process's libraries are torn down (one that never launched).
  if (!preparer.wait_idle(wait)) LIMITER_TRACE("a device's preparation still runs at exit");
  return decoded;
}

void RangeSession::write_raw_files() {
  std::lock_guard lock(mutex);
  for (auto& [context, profiler] : contexts) batches_.keep_raw_image(*profiler);
}

void RangeSession::flush_all(Clock::duration min_age) {
  std::lock_guard lock(mutex);
  const auto now = Clock::now();
  for (auto& [context, profiler] : contexts) {
    if (min_age > Clock::duration::zero() && now - profiler->oldest_pending < min_age) continue;
    batches_.flush(*profiler);
    yield_if_others_wait(*profiler);  // the app waited for the GPU: a good moment to hand over
  }
}

void RangeSession::launch_decoded(ContextProfiler& p, KernelLaunch&& launch, std::uint32_t correlation_id,
                                  std::size_t range) {
  launch.sequence = next_sequence++;
  if (on_launch_completed && correlation_id) on_launch_completed(correlation_id, launch.sequence);
  if (p.user_range) {  // the kernel's time, not the host's between push and pop, nor the profiler's
    if (p.range_work_ns) launch.counters[kRangeWorkCounter] = *p.range_work_ns;
    time_user_range(launch);
  }
  if (!raw_dir.empty()) append_raw_launch(raw_launches, launch, p.images_written, range);
  if (sink && sink->on_launch) sink->on_launch(launch);
  if (options.keep_launches) completed.push_back(std::move(launch));
}

void RangeSession::retire_all() noexcept {
  for (auto& [context, profiler] : contexts) {
    try {
      batches_.retire(*profiler);
    } catch (const std::exception& e) {  // its launches are counted as missed, with the error
      std::fprintf(stderr, "limiter: the exact phase did not end cleanly: %s\n", e.what());
    }
  }
}

void RangeSession::exclude_from_selection(std::vector<std::pair<std::string, std::string>> kernels) {
  std::lock_guard lock(mutex);
  budgets_.exclude(std::move(kernels));
}

void RangeSession::begin_after(RunRecord /*before*/, bool follows) {
  {
    std::lock_guard lock(mutex);
    began_after_ = true;
  }
  phase_begun_ = follows;
  if (follows) return;
  preparer.close();  // the process ends (see flush_before_exit)
  if (!preparer.wait_idle(std::chrono::seconds(2))) LIMITER_TRACE("a device's preparation still runs at exit");
}

RunRecord RangeSession::finish() noexcept {
  preparer.close();
  std::lock_guard lock(mutex);
  finishing = true;
  if (began_after_) retire_all();  // a later phase ends for good with the run
  RunRecord run;
  run.source = "cupti";
  run.device = last_device;
  run.cache_control = options.cache_control;
  run.missed = missed_;
  run.launches_seen = launches_seen_;
  run.kernels_seen = budgets_.selector().kernels_seen();
  run.launches = std::move(completed);
  completed.clear();
  return run;
}

// In a forked child the lock may be held by a parent thread that is not here: these give up.
std::vector<MissedLaunches> RangeSession::missed() const {
  const auto lock = lock_within(mutex, kReadWait);  // may be called from a signal handler
  return lock.owns_lock() ? missed_ : std::vector<MissedLaunches>{};
}

std::uint64_t RangeSession::launches_seen() const {
  const auto lock = lock_within(mutex, kReadWait);
  return lock.owns_lock() ? launches_seen_ : 0;
}

std::vector<KernelSeen> RangeSession::kernels_seen() const {
  const auto lock = lock_within(mutex, kReadWait);
  return lock.owns_lock() ? budgets_.selector().kernels_seen() : std::vector<KernelSeen>{};
}

RangeTimings RangeSession::range_timings() const {
  std::lock_guard lock(mutex);
  return times;
}

std::string RangeSession::timings() const { return range_timings().to_text(); }

}  // namespace limiter::detail
