// The activity session (activity_session.hpp): CUPTI's activity buffers and switches; the
// records become events in activity_records.cpp and the timeline in activity_timeline.cpp.
#include "collect/activity/activity_session.hpp"

#include <cstdlib>
#include <string>
#include <utility>

#include "collect/cupti/cupti_check.hpp"
#include "collect/activity/activity_records.hpp"
#include "collect/forked_child.hpp"
#include "collect/trace.hpp"

namespace limiter::detail {

namespace {

// ~16,000 records a buffer, as kineto's: few buffer requests on the app's threads. The buffer
// size made no measurable difference to a PyTorch loop's cost (256 KiB and 4 MiB alike,
// bench/results/2026-11-26-trace-cost.md); CUPTI's own instrumentation is that cost.
constexpr std::size_t kBufferBytes = 4u << 20;
constexpr auto kFlushPeriod = std::chrono::seconds(1);
constexpr CUpti_ActivityKind kGpuKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                            CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};

thread_local std::uint64_t launch_call_start_ns = 0;  // this thread's launch call in progress

}  // namespace

ActivitySession::ActivitySession(const CollectorOptions& options, LaunchSink* sink, bool alone, std::size_t from_phase,
                                 ActivityBackend& backend)
    : options_(options),
      backend_(backend),
      sink_(sink),
      alone_(alone),
      waiting_(from_phase > 0),
      from_phase_(from_phase),
      recorder_([this](const std::vector<TimelineEvent>& chunk) {
        if (sink_ && sink_->on_timeline_events) sink_->on_timeline_events(chunk);
      }),
      nvtx_(options.nvtx_process_scope) {}

ActivitySession::~ActivitySession() { stop(); }

void ActivitySession::enable() {
  if (enabled_) return;
  std::lock_guard lock(enable_mutex_);
  if (enabled_ || stopped_) return;
  if (!backend_.attach(*this, kBufferBytes))
    throw SystemError("one activity session per process (one Collector at a time)");
  try {
    for (CUpti_ActivityKind kind : kGpuKinds) backend_.enable(kind);
    // Only the driver calls the program verdict reads; every one where CUPTI cannot choose.
    const auto& names = backend_.driver_call_names();
    for (std::size_t id = 0; id < names.size() && !all_driver_calls_ && options_.api_records; ++id) {
      if (names[id].empty() || !traced_driver_call(names[id])) continue;
      if (backend_.enable_driver_call(static_cast<std::uint32_t>(id), true))
        traced_calls_.push_back(static_cast<std::uint32_t>(id));
      else
        all_driver_calls_ = true;
    }
    if (all_driver_calls_) backend_.enable(CUPTI_ACTIVITY_KIND_DRIVER);
    const auto& runtime = backend_.runtime_call_names();
    for (std::size_t id = 0; id < runtime.size() && options_.api_records; ++id) {
      if (runtime[id].empty() || !traced_driver_call(runtime[id])) continue;
      if (backend_.enable_runtime_call(static_cast<std::uint32_t>(id), true))
        traced_runtime_calls_.push_back(static_cast<std::uint32_t>(id));
    }
  } catch (...) {
    disable_all();              // what was enabled before the refusal would record for nobody
    all_driver_calls_ = false;  // a later try starts afresh
    traced_calls_.clear();
    traced_runtime_calls_.clear();
    backend_.detach(*this);
    throw;
  }
  // A region's window opens with the region. From the start of a process (limiter run) it is the
  // events' own span: from cuInit on, the window held the app's set-up and teardown (7.8 s around
  // a 0.6 s PyTorch loop on an H100), and its verdict was the set-up's, host-bound.
  const std::uint64_t opened = backend_.timestamp();
  if (!options_.always_active) recorder_.widen(opened, 0);
  nvtx_.open(opened);  // ranges kept from here (a range begun before starts here)
  enabled_ = true;
  flusher_ = std::thread([this] {
    std::unique_lock waiting(flusher_mutex_);
    auto next_flush = std::chrono::steady_clock::now() + kFlushPeriod;
    while (true) {
      flusher_wake_.wait_until(waiting, next_flush,
                               [this] { return flusher_stop_ || !pending_.empty() || calls_batch_full_; });
      if (flusher_stop_) return;
      const bool calls_full = calls_batch_full_.exchange(false);
      waiting.unlock();
      if (std::chrono::steady_clock::now() >= next_flush) {
        backend_.flush_all(false);  // completed buffers only: cheap, and the app's records reach disk
        next_flush = std::chrono::steady_clock::now() + kFlushPeriod;
        decode_pending();
        add_launch_calls();
        add_nvtx_ranges(false);
        report_window();
      } else {
        decode_pending();  // a buffer CUPTI completed (full, or at a flush)
        if (calls_full) add_launch_calls();
      }
      waiting.lock();
    }
  });
  LIMITER_TRACE("activity records on (%zu driver calls%s, %zu runtime calls)", traced_calls_.size(),
                all_driver_calls_ ? ", all" : "", traced_runtime_calls_.size());
}

void ActivitySession::stop() noexcept {
  if (!enabled_ || stopped_.exchange(true)) return;
  {
    std::lock_guard lock(flusher_mutex_);
    flusher_stop_ = true;
  }
  flusher_wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  forced_ = true;
  backend_.flush_all(true);
  decode_pending();
  disable_all();
  if (!options_.always_active) recorder_.widen(0, backend_.timestamp());
  add_launch_calls(true);
  if (launch_calls_dropped_ > 0)
    std::fprintf(
        stderr, "limiter: %llu launch calls not on the timeline (over the bound of %zu waiting for the writer)\n",
        static_cast<unsigned long long>(launch_calls_dropped_.load()), PendingCalls::kBatch * PendingCalls::kBatches);
  add_nvtx_ranges(true);
  report_window();
  if (sink_ && sink_->on_timeline_final) {
    try {
      sink_->on_timeline_final(recorder_.timeline());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "limiter: the joined timeline was lost (the record keeps the streamed one): %s\n", e.what());
    }
  }
  backend_.detach(*this);
}

void ActivitySession::disable_all() noexcept {
  for (CUpti_ActivityKind kind : kGpuKinds) backend_.disable(kind);
  if (all_driver_calls_) backend_.disable(CUPTI_ACTIVITY_KIND_DRIVER);
  for (std::uint32_t id : traced_calls_) backend_.enable_driver_call(id, false);
  for (std::uint32_t id : traced_runtime_calls_) backend_.enable_runtime_call(id, false);
}

void ActivitySession::on_phase_begun(std::size_t index) {
  if (index < from_phase_ || !waiting_.exchange(false)) return;
  // From here as from the start of a process: the window is the events' own span (always_active),
  // or the region that is open now.
  if (options_.always_active || active_depth_ > 0) try_enable();
}

void ActivitySession::try_enable() noexcept {
  try {
    enable();
  } catch (const std::exception& e) {
    // Tried again at the next region or launch (what failed may pass then), said only once.
    if (!refused_.exchange(true)) std::fprintf(stderr, "limiter: no activity timeline: %s\n", e.what());
  }
}

void ActivitySession::on_collector_started() {
  if (!options_.always_active || waiting_) return;
  try_enable();
}

void ActivitySession::begin_region() {
  ++active_depth_;
  if (waiting_) return;
  try_enable();
}

void ActivitySession::end_region() {
  if (active_depth_ > 0) --active_depth_;
  if (enabled_) flush();
}

void ActivitySession::on_launch(const LaunchCall& call) {
  if (waiting_ || (!options_.always_active && active_depth_ == 0)) return;
  ++launches_seen_;
  if (!enabled_) {
    try_enable();
    if (!enabled_) return;
  }
  if (alone_ && !described_.exchange(true)) describe(call.context);
  launch_call_start_ns = backend_.timestamp();
}

void ActivitySession::on_launch_exit(const LaunchCall& call) {
  const std::uint64_t start = launch_call_start_ns;
  launch_call_start_ns = 0;
  if (start == 0 || !enabled_ || stopped_) return;
  TimelineEvent event;
  event.kind = ActivityKind::api_call;
  event.start_ns = start;
  event.end_ns = std::max(backend_.timestamp(), start);
  // The driver's call (inside the runtime's cudaLaunchKernel where the app used the runtime: the
  // program verdict counts a call inside another once).
  event.name = call.is_graph() ? "cuGraphLaunch" : "cuLaunchKernel";
  event.correlation_id = call.correlation_id;
  if (!calls_.add(std::move(event))) return;
  // The batch's events are written by the flusher: on the app's thread, a batch's JSON and its
  // wait for the recorder's lock (held while the flusher writes a buffer of kernel records)
  // were the app's cost (reviewer's finding, 2026-11-26). No lock taken here: a fatal signal
  // handled on this thread stops the session and would wait for it. A wake-up lost between the
  // flusher's check and its wait costs at most its period (it writes the calls then too).
  calls_batch_full_.store(true);
  flusher_wake_.notify_one();
}

void ActivitySession::add_launch_calls(bool at_end) {
  std::uint64_t dropped = 0;
  std::optional<std::vector<TimelineEvent>> calls = calls_.take(dropped);
  if (!calls) {
    // A fatal signal stopped this thread inside add(), or another thread there. Mid-run the
    // calls wait for the next take; at the end they are counted lost, not waited for.
    if (!at_end) return;
    dropped = calls_.take_dropped();
    const std::uint64_t lost = calls_.waiting();
    launch_calls_lost_at_end_ = lost;
    recorder_.count_dropped(lost);
    if (lost > 0)
      std::fprintf(stderr,
                   "limiter: %llu launch calls not on the timeline (the process ended while one was being kept)\n",
                   static_cast<unsigned long long>(lost));
    calls.emplace();
  }
  if (dropped > 0) {  // in the record's dropped count, and said at the end
    recorder_.count_dropped(dropped);
    launch_calls_dropped_ += dropped;
  }
  recorder_.add(std::move(*calls));
}

void ActivitySession::describe(CUcontext context) {
  try {
    device_ = backend_.describe(context);
    if (device_ && sink_ && sink_->on_device) sink_->on_device(*device_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: could not describe the GPU: %s\n", e.what());
  }
}

void ActivitySession::on_context_destroy(CUcontext) {
  if (enabled_ && !stopped_) flush();
}

void ActivitySession::on_nvtx(const NvtxEvent& event) {
  if (stopped_) return;
  try {
    nvtx_.on_event(event);
  } catch (const std::exception&) {
    // Out of memory on the app's thread: this call's range is not followed; the app runs on.
  }
}

void ActivitySession::add_nvtx_ranges(bool at_end) {
  try {
    // At the end, the ranges still open close where the window does: the last event's end from
    // the start of a process (so no teardown joins the window), the region's end otherwise.
    recorder_.add(at_end ? nvtx_.close_open(recorder_.window().end_ns) : nvtx_.take_closed());
    recorder_.set_nvtx_counts(nvtx_.dropped(), nvtx_.unclosed());
    if (!at_end) return;
    if (nvtx_.dropped())
      std::fprintf(stderr, "limiter: %llu NVTX ranges not on the timeline (over its bound of %zu ranges)\n",
                   static_cast<unsigned long long>(nvtx_.dropped()), NvtxTimeline::kMaxRanges);
    LIMITER_TRACE("NVTX ranges: %llu kept, %llu closed at the window's end, %llu pops or ends without a range",
                  static_cast<unsigned long long>(nvtx_.kept()), static_cast<unsigned long long>(nvtx_.unclosed()),
                  static_cast<unsigned long long>(nvtx_.unmatched()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: NVTX ranges lost from the timeline: %s\n", e.what());
  }
}

void ActivitySession::flush() {
  // A forked child runs nothing of the parent's session (forked_child.hpp): its flusher thread
  // may have held a lock at the fork, which the child would wait for forever.
  if (!enabled_ || stopped_ || in_forked_child_by_pid()) return;
  backend_.flush_all(false);
  decode_pending();  // a context's kernel names are CUPTI's while it exists
  add_launch_calls();
  add_nvtx_ranges(false);
  report_window();
}

bool ActivitySession::flush_before_exit(std::chrono::milliseconds) noexcept {
  stop();  // the process ends: every record, forced out, to the sink
  return true;
}

void ActivitySession::buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                                       std::size_t valid) {
  if (in_forked_child_by_pid()) return;  // the parent's buffer, left as it is
  recorder_.count_dropped(backend_.dropped_records(context, stream));
  {
    std::lock_guard lock(flusher_mutex_);
    pending_.push_back({buffer, valid, !forced_});
  }
  flusher_wake_.notify_one();
}

void ActivitySession::decode_pending() {
  std::lock_guard decoding(decode_mutex_);
  std::vector<CompletedBuffer> buffers;
  {
    std::lock_guard lock(flusher_mutex_);
    buffers.swap(pending_);
  }
  for (const CompletedBuffer& buffer : buffers) {
    try {
      decode(buffer.data, buffer.valid);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "limiter: activity records lost: %s\n", e.what());
    }
    if (buffer.release) std::free(buffer.data);
  }
}

void ActivitySession::decode(std::uint8_t* buffer, std::size_t valid) {
  std::vector<TimelineEvent> events;
  CUpti_Activity* record = nullptr;
  const ApiNamer api_name = [this](bool runtime, std::uint32_t cbid) { return backend_.api_name(runtime, cbid); };
  while (backend_.next_record(buffer, valid, record)) {
    ++records_;
    if (auto event = timeline_event_of(*record, api_name, &kernel_names_)) events.push_back(std::move(*event));
  }
  recorder_.add(std::move(events));
}

void ActivitySession::report_window() {
  if (!sink_) return;
  if (sink_->on_timeline_status) sink_->on_timeline_status(recorder_.window());
  // Alone (--trace) no other session reports the launches seen.
  if (alone_ && sink_->on_status) sink_->on_status({}, launches_seen_);
}

void ActivitySession::begin_after(RunRecord before, bool) { before_ = std::move(before); }

RunRecord ActivitySession::finish_beside(RunRecord run) noexcept {
  stop();
  try {
    if (!enabled_) return run;
    run.timeline = recorder_.timeline();
    apply_kernel_times(*run.timeline, run.launches);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: the activity timeline was lost: %s\n", e.what());
  }
  return run;
}

RunRecord ActivitySession::finish() noexcept {
  RunRecord run = finish_beside(std::move(before_));
  run.source = "cupti";
  if (device_) run.device = *device_;
  run.launches_seen = run.launches_seen.value_or(0) + launches_seen_;
  return run;
}

std::string ActivitySession::timings() const {
  return std::to_string(records_.load()) + " activity records, " + std::to_string(recorder_.events()) +
         " timeline events, " + std::to_string(recorder_.dropped()) + " dropped (" +
         std::to_string(launch_calls_dropped_.load()) + " of them launch calls over the bound, " +
         std::to_string(launch_calls_lost_at_end_.load()) + " not taken at the end), " + std::to_string(nvtx_.kept()) +
         " NVTX ranges (" + std::to_string(nvtx_.dropped()) + " over the bound, " + std::to_string(nvtx_.unclosed()) +
         " closed at the end)" +
         (all_driver_calls_ ? " (every driver call traced: CUPTI refused a per-call choice)" : "") + "\n";
}

}  // namespace limiter::detail
