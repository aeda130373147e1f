// Setting up a context for profiling, at its first selected launch: the device as the record
// describes it, the config image for the plan (both prepared ahead, off the app's thread, where
// the context was seen earlier: device_preparer.hpp), and the first turn on the GPU's counters.
#include <cupti.h>

#include "collect/cupti/cupti_check.hpp"
#include "collect/range/range_session.hpp"

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

// The earliest safe moment to prepare a context's device is its creation (the resource
// callback): the context and its device exist, and cuInit has returned. Not at subscription:
// in an injected process that is inside cuInit (InitializeInjection), where
// cuptiProfilerInitialize fails with CUPTI_ERROR_UNKNOWN (seen on an H200) and no context
// exists yet; and the in-process API's constructor cannot be told apart from it there. So a
// context made before the collector subscribed (the in-process API) is prepared when a region
// begins on a thread where it is current (begin_region). Not at a launch's ENTER: under budgets
// the first launch is a selected one, whose set-up would wait for it at once.
// The app's thread only finds the device and starts a thread here.
void RangeSession::prepare_ahead(CUcontext context) noexcept {
  if (!context || !options.prepare_ahead) return;
  try {
    preparer.start(backend.device_of(context), context);
  } catch (const std::exception& e) {
    LIMITER_TRACE("context %p: nothing prepared ahead (%s)", static_cast<void*>(context), e.what());
  }
}

void RangeSession::on_context_created(CUcontext context) {
  {
    std::lock_guard lock(destroyed_mutex);
    destroyed_contexts.erase(context);  // a new context at a destroyed one's address
  }
  prepare_ahead(context);
}

// The first Start of a profiler object costs 300-800 ms, later ones ~45 ms (H100, CUDA 13.0,
// 2026-11-26: 344 ms in a plain CUDA app, 638 ms in a torchrun rank, 820 ms in an LLM decode
// loop). Started here and stopped at once, the profiler waits for its first launch in the
// state a flush leaves it in (ContextProfiler::stopped, fresh). Nothing waits here: a launch
// in progress (the session's lock busy) or another process's turn on the counters leaves it
// to the first launch, as before. Only the process's first context: the session's lock is held
// through the Start, and another context's launches would wait for it.
void RangeSession::start_ahead(CUcontext context) noexcept {
  {
    std::lock_guard destroyed(destroyed_mutex);
    if (destroyed_contexts.count(context)) return;
  }
  std::unique_lock lock(mutex, std::try_to_lock);
  if (!lock.owns_lock() || !phase_begun_.load() || turns_.stopping() || finishing || budgets_.spent() || !active() ||
      !contexts.empty() || failed_contexts.count(context))
    return;
  {
    std::lock_guard destroyed(destroyed_mutex);  // on_context_destroy marks it before it takes the lock
    if (destroyed_contexts.count(context)) return;
  }
  const auto started = Clock::now();
  const RangeTimings before = times;
  bool pushed = false, started_ahead = false;
  try {
    if (!turns_.try_take(backend.device_uuid(backend.device_of(context)))) {
      LIMITER_TRACE("context %p: not started ahead: another process has the counters", static_cast<void*>(context));
      return;
    }
    backend.push_context(context);
    pushed = true;
    ContextProfiler* p = context_profiler(context, 0);
    if (p && p->paused && !p->retired && batches_.wants_user_replay(*p) && batches_.resume(*p, 0)) {
      try {
        backend.stop(p->profiler);
        p->stopped = true;
        p->fresh = true;
        started_ahead = true;
      } catch (const std::exception& e) {  // the first launch starts a new one
        LIMITER_TRACE("context %p: Stop after the start ahead: %s", static_cast<void*>(context), e.what());
        p->stopped = true;
        batches_.pause(*p);
      }
    } else if (p && p->paused) {
      end_turn(*p);  // kernel replay, or no turn: the first launch starts it
    }
  } catch (const std::exception& e) {  // the first launch tries again, and says what fails
    LIMITER_TRACE("context %p: not started ahead: %s", static_cast<void*>(context), e.what());
  }
  if (pushed) backend.pop_context();
  // Off the app's thread: not the launches' cost.
  times.set_up_s = before.set_up_s;
  times.set_up_device_s = before.set_up_device_s;
  times.set_up_availability_s = before.set_up_availability_s;
  times.set_up_config_s = before.set_up_config_s;
  times.image_init_s = before.image_init_s;
  times.enable_s = before.enable_s;
  times.set_config_s = before.set_config_s;
  times.start_s = before.start_s;
  if (started_ahead) times.started_ahead_s += seconds_since(started);
  LIMITER_TRACE("context %p: %s in %.1f ms", static_cast<void*>(context),
                started_ahead ? "started ahead" : "set up ahead", seconds_since(started) * 1e3);
}

void RangeSession::set_up(ContextProfiler& p) {
  LIMITER_TRACE("set up context %p", static_cast<void*>(p.context));
  p.paused = true;  // until the launch starts it (resume)
  const auto started = Clock::now();
  p.device = backend.device_of(p.context);
  p.device_uuid = backend.device_uuid(p.device);
  // The counters' turn before any profiler call that touches them: while another process
  // profiles, the availability query (rebuild_config), SetConfig and Start can meet
  // CUPTI_ERROR_HARDWARE_BUSY. Kept for the launch that follows. What was prepared ahead
  // (initialise, support check, description, config image) reads no counter: it needs no turn.
  const bool turn = take_turn(p, 0);
  (void)turn;
  // No counter-availability image: it costs ~120 ms (H100, 2026-11-26), and a whole GPU has
  // every counter of the plans. A device that lacks one (MIG, vGPU) fails at SetConfig or Start
  // instead, and rebuild_config() builds the config again with the image.
  double waited = 0;
  std::optional<PreparedDevice> prepared = preparer.take(p.device, waited);
  if (prepared && (prepared->device_error || prepared->config_error)) {
    // Done again here, where it always ran, and the error said is this thread's: a failure
    // peculiar to the preparer's thread costs the wait, never the context's profiling.
    LIMITER_TRACE("context %p: the preparation ahead failed: done again on the launch's thread",
                  static_cast<void*>(p.context));
    prepared.reset();
  }
  const bool ahead = prepared.has_value();
  if (!ahead) prepared = prepare_device(backend, p.device, nullptr, metrics);  // here, as the launch waits
  const double on_this_thread = seconds_since(started);
  if (ahead) {
    ++times.devices_prepared;
    times.prepared_device_s += prepared->supported_s + prepared->describe_s;
    times.prepared_config_s += prepared->config_s;
    times.prepare_wait_s += waited;
    times.set_up_device_s += on_this_thread;  // the wait included
    LIMITER_TRACE("context %p: device %d prepared ahead, waited %.1f ms for it", static_cast<void*>(p.context),
                  static_cast<int>(p.device), waited * 1e3);
  } else {
    times.set_up_device_s += on_this_thread - prepared->config_s;
    times.set_up_config_s += prepared->config_s;
  }
  // Errors where set_up found them before: the device's, then (the device described) the config's.
  if (prepared->device_error) std::rethrow_exception(prepared->device_error);
  p.description = prepared->description;  // as the record describes it
  last_device = p.description;
  if (prepared->config_error) std::rethrow_exception(prepared->config_error);
  p.host = std::move(prepared->host);
  p.config = std::move(prepared->config);
  p.passes = prepared->passes;

  p.ranges_per_image = options.ranges_per_image ? options.ranges_per_image : kDefaultRangesPerImage;
  // Started by the launch (resume): that is where a turn that does not come is counted.
  p.user_replay = batches_.wants_user_replay(p);
  if (options.cache_control == "all" && !p.user_replay) {
    // Under kernel replay every launch is an auto range, ours too, and CUPTI replays the passes
    // after restoring memory: there is no moment of ours before each pass to empty L2 in.
    throw SystemError("--cache-control all needs one-pass profiling (user replay), but this plan needs " +
                      std::to_string(p.passes) +
                      " passes or --replay kernel was given: use the default plan, or "
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
bool RangeSession::rebuild_config(ContextProfiler& p) {
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
  p.user_replay = batches_.wants_user_replay(p);
  return true;
}

}  // namespace limiter::detail
