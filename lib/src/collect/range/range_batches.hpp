#pragma once
// Batches, a part of the exact session (range_session.hpp): one context's range profiler enabled,
// configured and started, its batch stopped and decoded, paused, retired, a failed batch lost.
// What it needs of the session goes through BatchEvents: the turns on the counters, the tally of
// missed launches, where a decoded launch goes, the config built again. Why batches and not a
// Start/Stop per launch: range_batches.cpp.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collect/range/range_timings.hpp"
#include "collect/range/range_types.hpp"

namespace limiter::detail {

class BatchEvents {
 public:
  // Before a profiler starts: the process's turn on the device; false: LAUNCHES counted as missed.
  virtual bool take_turn(ContextProfiler& profiler, std::size_t launches) = 0;
  // After a profiler stopped: the turn ends unless another context of the process runs there.
  virtual void end_turn(ContextProfiler& profiler) = 0;
  virtual void miss(MissReason reason, std::uint64_t launches, const std::string& detail = "") = 0;
  // A selected launch decoded, its counters evaluated: RANGE is its range in the context's image.
  virtual void launch_decoded(ContextProfiler& profiler, KernelLaunch&& launch, std::uint32_t correlation_id,
                              std::size_t range) = 0;
  virtual void batch_decoded() = 0;
  // A SetConfig or Start failed: the config built again with the device's counter availability;
  // false where there is nothing new to try.
  virtual bool rebuild_config(ContextProfiler& profiler) = 0;

 protected:
  ~BatchEvents() = default;
};

class RangeBatches {
 public:
  // REPLAY: CollectorOptions::replay. RANGES_SELECTED_ONLY: a user range per selected launch from
  // the start (selection filters launches, or --cache-control all). RAW_DIR: --save-raw's folder.
  RangeBatches(RangeBackend& backend, const std::vector<std::string>& metrics, RangeTimings& times, BatchEvents& events,
               std::string replay, bool ranges_selected_only, std::string raw_dir)
      : backend_(backend),
        metrics_(metrics),
        times_(times),
        events_(events),
        replay_(std::move(replay)),
        ranges_selected_only_(ranges_selected_only),
        raw_dir_(std::move(raw_dir)) {}

  // User replay for this context: one pass, and not --replay kernel.
  bool wants_user_replay(const ContextProfiler& profiler) const { return profiler.passes == 1 && replay_ != "kernel"; }
  // Enabled, configured and started, after taking the turn (false: no turn, stays paused).
  bool start_profiler(ContextProfiler& profiler, std::size_t launches);
  // A paused context started again for LAUNCHES; false when it cannot be (they are missed).
  bool resume(ContextProfiler& profiler, std::size_t launches);
  // User replay: the batch stopped and decoded; Start waits for the next ranged launch (start).
  // RESTART false: the profiler is disabled next (it stays as it is).
  void flush(ContextProfiler& profiler, bool restart = true);
  void start(ContextProfiler& profiler);  // a stopped profiler started for a launch's range
  // Stopped, decoded and disabled: the context's launches run unprofiled until enabled again.
  void disable(ContextProfiler& profiler);
  void decode(ContextProfiler& profiler);
  void retire(ContextProfiler& profiler);  // finished for good: decoded, disabled, turn ended
  void pause(ContextProfiler& profiler);
  void stop_for_now(ContextProfiler& profiler);    // pause and finish: disabled, turn ended
  void keep_raw_image(ContextProfiler& profiler);  // --save-raw: the image as it is

 private:
  void enable_profiler(ContextProfiler& profiler);
  void configure_and_start(ContextProfiler& profiler);
  void stop_and_decode(ContextProfiler& profiler);  // user replay: the batch's pass submitted, decoded
  // The batch's pending launches dropped, the selected ones counted as missed with ERROR.
  void lose_batch(ContextProfiler& profiler, const std::string& error);
  void reinitialize_image(ContextProfiler& profiler);
  void complete(ContextProfiler& profiler, PendingLaunch&& pending, std::size_t range);

  RangeBackend& backend_;
  const std::vector<std::string>& metrics_;
  RangeTimings& times_;
  BatchEvents& events_;
  std::string replay_;
  bool ranges_selected_only_;
  std::string raw_dir_;
};

}  // namespace limiter::detail
