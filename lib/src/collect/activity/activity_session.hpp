#pragma once
// The activity session (docs/design.md §4): CUPTI Activity records of kernels, copies, memsets,
// synchronisations and the driver calls that issued them (launches, copies, memsets, waits and
// queries only), as the run's timeline (limiter/timeline.hpp). Cheap and on in every mode but
// PM sampling: alone with `--trace`, else beside the exact phases (phases.hpp), where the exact
// session tells it which launch each correlation id is (note_launch) so kernels and launches
// join. Buffers complete on CUPTI's thread and are only queued there: the session's own thread
// decodes them (demangling, the sink's JSON and file writes) off CUPTI's and the app's path,
// flushes every second and at the end, and hands them to the sink as chunks (a killed app keeps
// its timeline); dropped records are counted. With options.nvtx the app's NVTX ranges join the
// timeline too (nvtx_timeline.hpp), kept on the app's thread and handed on with the buffers.
//
// Every CUPTI and driver call goes through an ActivityBackend (activity_backend.hpp): CUPTI's in
// a run, a fake in unit tests. CUPTI's activity buffer callbacks are process-wide: one user at a
// time. ActivityTimestamps (PM sampling's kernel timestamps) is the other one, so the two never
// share a phase list.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "collect/cupti/activity_backend.hpp"
#include "collect/activity/activity_records.hpp"
#include "collect/activity/activity_timeline.hpp"
#include "collect/activity/pending_calls.hpp"
#include "collect/collector_internal.hpp"
#include "collect/nvtx/nvtx_timeline.hpp"
#include "collect/session.hpp"
#include "limiter/collector_options.hpp"

namespace limiter::detail {

class ActivitySession final : public Session,
                              public LaunchExits,
                              public NvtxCalls,
                              public PendingWork,
                              public CollectorStart,
                              public Background,
                              public ActivityBufferClient {
 public:
  // ALONE (--trace): no other session describes the device, so this one does at the first
  // launch (to the record and the sink's on_device). SINK may be null.
  // FROM_PHASE > 0 (the default run): nothing is recorded until that phase begins
  // (on_phase_begun); regions and NVTX ranges are followed meanwhile.
  // BACKEND: CUPTI's, or a fake in tests; it outlives the session.
  ActivitySession(const CollectorOptions& options, LaunchSink* sink, bool alone, std::size_t from_phase,
                  ActivityBackend& backend);
  ~ActivitySession() override;
  ActivitySession(const ActivitySession&) = delete;
  ActivitySession& operator=(const ActivitySession&) = delete;

  const char* name() const override { return "activity"; }
  // Launch EXITs: each launch call's interval from the driver's callbacks, so the program verdict
  // sees the host inside launch calls even where CUPTI writes no runtime API records (an
  // in-process collector started after the runtime: none on an H100, 2026-11-26).
  SessionCapabilities capabilities() override {
    SessionCapabilities takes;
    // Not beside --every-launch (from the start, not alone), where each call holds the range
    // profiler's serialised work.
    if (alone_ || from_phase_ > 0) takes.launch_exits = this;
    if (options_.nvtx) takes.nvtx = this;  // the ranges on the timeline (the per-range program verdict)
    takes.pending = this;
    takes.start = this;
    takes.background = this;
    return takes;
  }
  // With always_active (limiter run): records from here, the copies before the first launch too.
  void on_collector_started() override;
  void begin_region() override;  // records from the first region on (from the start with always_active)
  void end_region() override;
  void on_launch(const LaunchCall& call) override;       // counted; the first describes the device when alone
  void on_launch_exit(const LaunchCall& call) override;  // the call's interval, as an api_call event
  void on_context_destroy(CUcontext context) override;   // its records delivered while it exists
  void on_nvtx(const NvtxEvent& event) override;         // followed; kept once the window is open
  void on_phase_begun(std::size_t index) override;       // FROM_PHASE's: recording starts (as on_collector_started)
  void flush() override;
  bool flush_before_exit(std::chrono::milliseconds wait) noexcept override;
  void begin_after(RunRecord before, bool follows) override;
  RunRecord finish() noexcept override;  // the record handed over, with the timeline
  RunRecord finish_beside(RunRecord phases) noexcept override;
  std::vector<MissedLaunches> missed() const override { return {}; }
  std::uint64_t launches_seen() const override { return launches_seen_; }
  std::string timings() const override;

  // A launch of the record: its kernel's event gets SEQUENCE, the launch its start and end.
  void note_launch(std::uint32_t correlation_id, std::uint64_t sequence) {
    recorder_.note_launch(correlation_id, sequence);
  }
  // A completed buffer (CUPTI's thread): its dropped records counted, the buffer queued and
  // decoded on the flusher's thread (or by flush()), never inside CUPTI's callback. Nothing in a
  // forked child: the parent's records and files are not its to write.
  void buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t valid) override;

 private:
  void enable();                     // once: buffers taken, kinds enabled, the flusher started
  void try_enable() noexcept;        // enable(); a failure said once, and not tried again
  void stop() noexcept;              // once: flushed (forced), kinds disabled, the window closed
  void disable_all() noexcept;       // every kind and call enabled, disabled
  void describe(CUcontext context);  // alone: the first launch's device
  void decode_pending();             // the queued buffers, in the order they completed; then freed
  void decode(std::uint8_t* buffer, std::size_t valid);
  void report_window();                        // the window and dropped records to the sink
  void add_nvtx_ranges(bool at_end);           // the closed ones to the recorder; AT_END the open ones too
  void add_launch_calls(bool at_end = false);  // the launch calls kept since the last time, to the recorder

  CollectorOptions options_;
  ActivityBackend& backend_;
  LaunchSink* sink_;
  bool alone_;
  std::atomic<bool> waiting_;  // for its phase (from_phase > 0): no record, no CUPTI call yet
  std::size_t from_phase_;
  TimelineRecorder recorder_;
  NvtxTimeline nvtx_;
  // Launch calls (from the driver's callbacks) kept on the app's thread and handed to the
  // recorder in batches by the flusher: one by one, each went to the partial file with a flush inside the
  // app's launch (a JAX loop ran 1.7x and its GPU, 99 % busy, read 58 %; H100, 2026-11-26).
  PendingCalls calls_;
  std::atomic<std::uint64_t> launch_calls_dropped_{0};      // over PendingCalls' bound
  std::atomic<std::uint64_t> launch_calls_lost_at_end_{0};  // not taken: a signal stopped add()
  std::mutex enable_mutex_;
  std::atomic<bool> enabled_{false}, stopped_{false}, forced_{false}, described_{false}, refused_{false};
  std::atomic<int> active_depth_{0};
  std::atomic<std::uint64_t> launches_seen_{0}, records_{0};
  bool all_driver_calls_ = false;  // CUPTI refused per-call API records: all driver calls traced
  std::vector<std::uint32_t> traced_calls_;
  std::vector<std::uint32_t> traced_runtime_calls_;  // the runtime's launches, copies and waits
  std::optional<DeviceDescription> device_;
  RunRecord before_;
  struct CompletedBuffer {
    std::uint8_t* data;
    std::size_t valid;
    bool release;  // false once forced: CUPTI may still write into it (activity_timestamps.cpp)
  };
  std::mutex decode_mutex_;   // one decoder at a time (the flusher, or flush() on the app's thread)
  KernelNames kernel_names_;  // under decode_mutex_
  std::thread flusher_;
  std::mutex flusher_mutex_;  // the fields below
  std::condition_variable flusher_wake_;
  bool flusher_stop_ = false;
  std::atomic<bool> calls_batch_full_{false};  // calls_ holds a batch (or more) for the flusher
  std::vector<CompletedBuffer> pending_;
};

}  // namespace limiter::detail
