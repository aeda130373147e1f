#pragma once
// Pieces of the collector shared with the injection library and the offline analyzer:
// where completed launches go, and the raw data set (CUPTI's documentation) that `limiter analyze`
// re-evaluates without a GPU.
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "limiter/record.hpp"

namespace limiter::detail {

// While a profiler runs, every launch is a range (auto range). After this many unselected
// launches in a row (per-kernel budgets spent, a -k that matches rarely) it is paused, so the
// app runs at full speed until a launch is selected again. A pause and a resume cost ~100 ms
// (Stop, Disable, Enable, Start), about as much as ranging ~70 launches. With `--sampling` and
// per-kernel budgets, this is where the exact phase ends and sampling begins.
constexpr std::uint64_t kPauseAfterUnselected = 64;

// Called under the collector's lock, in launch order.
struct LaunchSink {
  std::function<void(const DeviceDescription&)> on_device;
  std::function<void(const KernelLaunch&)> on_launch;
  // The tally of missed launches and the launches seen, when they changed (at most 10 times a second).
  std::function<void(const std::vector<MissedLaunches>&, std::uint64_t launches_seen)> on_status;
  // Sampling mode: the aggregates attributed so far (and what is missing), about once a second,
  // from the decode thread; the last one stands in for a process that dies without its handlers.
  std::function<void(const RunRecord&)> on_snapshot;
  // Sampling mode: sampling started, and later its first samples arrived. By then CUPTI has
  // loaded and set up what it needs; an exit handler registered now runs before their static
  // destructors (std::exit runs the handlers last-registered first).
  std::function<void()> on_sampling_started;
  // The activity timeline (activity_session.hpp): each completed buffer's events as they arrive
  // (CUPTI's thread or a flush; one chunk at a time), and the window with the dropped-record
  // count (events left empty) after each flush.
  std::function<void(const std::vector<TimelineEvent>&)> on_timeline_events;
  std::function<void(const Timeline& window)> on_timeline_status;
  // At the end (the process exits): the whole timeline, its kernels joined to the launches
  // decoded since their chunks went out; the record's, in place of the chunks.
  std::function<void(Timeline&&)> on_timeline_final;
  // A run of several phases: a phase ended and handed over this record (its stalls, the phases'
  // windows so far), on the app's thread; written down so that a later crash loses none of it.
  std::function<void(const RunRecord&)> on_phase_over;
};

// Raw data set, one folder per process:
//   meta.json           chip, device, cache control, metrics, pass count, replay mode, tool version
//   availability.bin    counter-availability image
//   config.bin          config image
//   image_<N>.bin       counter-data images, in order
//   launches.jsonl      one launch per line: metadata + {"image": N, "range": R}
void open_raw_dir(const std::string& dir, std::ofstream& launches);
void write_raw_context(const std::string& dir, const DeviceDescription& device, const std::string& cache_control,
                       const std::vector<std::string>& metrics, std::size_t passes, const std::string& replay,
                       const std::vector<std::uint8_t>& availability, const std::vector<std::uint8_t>& config);
void write_raw_image(const std::string& dir, std::size_t index, const std::vector<std::uint8_t>& image);
void append_raw_launch(std::ofstream& launches, const KernelLaunch& launch, std::size_t image, std::size_t range);

}  // namespace limiter::detail
