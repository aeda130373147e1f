// Setting up a context for profiling, at its first selected launch: the device as the record
// describes it, the config image for the plan, and the first turn on the GPU's counters.
#include <cupti.h>

#include "collect/cupti_check.hpp"
#include "collect/range_session.hpp"

namespace limiter::detail {

// The context's profiler, set up at its first use; nullptr while it cannot be profiled (the
// LAUNCHES are then counted as missed, with the reason).
ContextProfiler* RangeSession::context_profiler(CUcontext context, std::size_t launches) {
  if (auto failed = failed_contexts.find(context); failed != failed_contexts.end()) {
    if (Clock::now() < failed->second.retry_at) {
      miss(failed->second.reason, launches, failed->second.detail);
      return nullptr;
    }
    failed_contexts.erase(failed);
  }
  auto& slot = contexts[context];
  if (!slot) {
    slot = std::make_unique<ContextProfiler>();
    slot->context = context;
    try {
      set_up(*slot);
    } catch (const std::exception& e) {
      // Reported once; a busy GPU is tried again later, anything else never: the app runs on unprofiled.
      FailedContext failed;
      failed.detail = e.what();
      const auto* cupti = dynamic_cast<const CuptiError*>(&e);
      if (cupti && cupti->status == CUPTI_ERROR_HARDWARE_BUSY) {
        failed.reason = MissReason::counters_busy;
        failed.detail.clear();
        failed.retry_at = Clock::now() + kBusyRetry;
      } else {
        std::fprintf(stderr, "limiter: profiling disabled in this context: %s\n", e.what());
      }
      slot->paused = true;
      end_turn(*slot);
      contexts.erase(context);
      miss(failed.reason, launches, failed.detail);
      failed_contexts[context] = std::move(failed);
      return nullptr;
    }
  }
  return slot.get();
}

void RangeSession::set_up(ContextProfiler& p) {
  LIMITER_TRACE("set up context %p", static_cast<void*>(p.context));
  p.paused = true;  // until the launch starts it (resume)
  auto started = Clock::now();
  p.device = backend.device_of(p.context);
  p.device_uuid = backend.device_uuid(p.device);
  // The counters' turn before any profiler call: while another process profiles, even the
  // availability query can meet CUPTI_ERROR_HARDWARE_BUSY. Kept for the launch that follows.
  const bool turn = take_turn(p, 0);
  backend.check_supported(p.device);
  p.description = backend.describe(p.device);  // as the record describes it
  last_device = p.description;
  times.set_up_device_s += seconds_since(started);

  // No counter-availability image here: it costs ~120 ms (H100, 2026-11-26), and a whole GPU
  // has every counter of the plans. A device that lacks one (MIG, vGPU) fails at SetConfig or
  // Start instead, and check_counter_availability() builds the config again with the image.
  (void)turn;
  started = Clock::now();
  p.host = backend.counter_host(p.description.chip, p.availability);
  p.config = p.host->config_image(metrics);
  p.passes = p.host->pass_count(p.config);
  times.set_up_config_s += seconds_since(started);

  p.ranges_per_image = options.ranges_per_image ? options.ranges_per_image : kDefaultRangesPerImage;
  // Started by the launch (resume): that is where a turn that does not come is counted.
  p.user_replay = wants_user_replay(p);
  if (options.cache_control == "all" && !p.user_replay) {
    // Under kernel replay every launch is an auto range, ours too, and CUPTI replays the passes
    // after restoring memory: there is no moment of ours before each pass to empty L2 in.
    throw SystemError("--cache-control all needs one-pass profiling (user replay), but this plan needs " +
                      std::to_string(p.passes) + " passes or --replay kernel was given: use the default plan, or "
                      "--cache-control none");
  }
  if (!raw_dir.empty()) {
    write_raw_context(raw_dir, p.description, options.cache_control, metrics, p.passes,
                      p.user_replay ? "user" : "kernel", p.availability, p.config);
  }
  if (sink && sink->on_device) sink->on_device(p.description);
  if (on_context_ready) on_context_ready(static_cast<int>(p.device), p.description.chip);
}

// The config built again with the device's counter availability, after a SetConfig or Start
// that failed without it: the host API then refuses a counter the device cannot give, by name.
// False when there is nothing new to try (already checked, or no image to be had).
bool RangeSession::check_counter_availability(ContextProfiler& p) {
  if (p.availability_checked) return false;
  p.availability_checked = true;
  const auto started = Clock::now();
  p.availability = backend.counter_availability(p.context);
  times.set_up_availability_s += seconds_since(started);
  LIMITER_TRACE("counter availability %zu bytes: the config built again", p.availability.size());
  if (p.availability.empty()) return false;
  p.host = backend.counter_host(p.description.chip, p.availability);
  p.config = p.host->config_image(metrics);
  p.passes = p.host->pass_count(p.config);
  p.user_replay = wants_user_replay(p);
  return true;
}

}  // namespace limiter::detail
